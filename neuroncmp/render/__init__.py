"""Renderers: one module per output; each returns a string or a rich renderable, never prints."""

from __future__ import annotations

FORMATS = ("term", "md", "json", "csv", "html")
BY_EXTENSION = {".md": "md", ".markdown": "md", ".json": "json", ".csv": "csv", ".html": "html",
                ".htm": "html", ".txt": "term"}


def render_text(comparison: object, fmt: str, *, width: int = 100) -> str:
    """Any comparison format as a string (the terminal one rendered plain at ``width``)."""
    if fmt == "term":
        from .term import render

        return render(comparison, width)  # type: ignore[arg-type]
    module = {"md": "markdown", "json": "json_", "csv": "csv_", "html": "html"}[fmt]
    from importlib import import_module

    return import_module(f"{__name__}.{module}").render(comparison)  # type: ignore[no-any-return]
