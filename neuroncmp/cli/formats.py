"""``neuroncmp formats``: the input formats neuroncmp reads and the output formats it writes."""

from __future__ import annotations

import click

from .app import BoundaryCommand
from .options import listing_options


@click.command(cls=BoundaryCommand)
@listing_options
def formats(fmt: str | None, output: str | None, no_color: bool, width: int | None) -> None:
    """List the input formats neuroncmp reads (and the output formats it writes)."""
    from ..ingest.registry import parsers
    from ..render.base import FormatsReport
    from ..render.registry import by_name, renderers
    from .output import emit, listing_format

    renderer = by_name(listing_format(fmt, output), "formats")  # -o FILE.json: json, any other file: term
    emit(renderer, "formats", FormatsReport(tuple(parsers()), renderers()), output, no_color, width)
