"""``neuroncmp formats``: the input formats neuroncmp reads and the output formats it writes."""

from __future__ import annotations

from .app import cli
from .options import listing_options


@cli.command()
@listing_options
def formats(fmt: str | None, output: str | None, no_color: bool, width: int | None) -> None:
    """List the input formats neuroncmp reads (and the output formats it writes)."""
    from ..ingest.registry import parsers
    from ..render.listings import formats_json, formats_text
    from ..render.registry import renderers
    from .output import columns, listing_format, put

    chosen = listing_format(fmt, output)  # no colour to turn off: plain text either way
    text = formats_json(parsers(), renderers()) if chosen == "json" else \
        formats_text(parsers(), renderers(), width or (100 if output else columns(None)))
    put(text, output)
