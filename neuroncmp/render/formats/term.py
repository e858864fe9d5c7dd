"""The terminal format (``term``): what rich draws for a terminal (``render/terminal/``), as plain
text in a file. Each view loads with its own document, so a store command loads no comparison or
analysis code, and rich loads only when something is drawn (not for ``--help``).
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import Any

from ..base import Renderer


def _view(module: str, name: str = "drawn") -> Callable[[Any, int], list[Any]]:
    """The view ``name`` of ``render/terminal/{module}.py``, imported when first drawn."""
    def drawn(value: Any, width: int) -> list[Any]:
        view: Callable[[Any, int], list[Any]] = getattr(import_module(f"..terminal.{module}", __package__), name)
        return view(value, width)

    return drawn


VIEWS = {"diff": _view("diff"), "profiles": _view("show"), "sweep": _view("sweep"), "ops": _view("ops"),
         "ranks": _view("ranks"), "metrics": _view("metrics", "metrics"), "formats": _view("metrics", "formats"),
         **{name: _view("store", name) for name in ("history", "regressions", "store_runs", "store_add",
                                                     "store_series_by", "store_check", "store_compact")}}


class Term(Renderer):
    name, extensions, order, aliases = "term", (".txt",), 10, ("table",)
    description = "the terminal table (plain text in a file)"
    draws = True

    def drawn(self, document: str, value: Any, width: int = 100) -> list[Any]:
        return VIEWS[document](value, width)

    def render(self, document: str, value: Any, width: int = 100) -> str:
        from ..terminal import text

        return text(self.drawn(document, value, width), width)

    def supports(self, document: str) -> bool:
        return document in VIEWS


RENDERER = Term()
