"""``neuroncmp show``: every profile in the files, grouped, in human units; or the normalized JSON."""

from __future__ import annotations

import click

from .app import cli
from .options import FormatChoice, format_in_option, no_color_option, width_option


@cli.command()
@click.argument("files", nargs=-1, required=True, type=click.Path())
@click.option("--format", "fmt", type=FormatChoice("profiles"), default=None,
              help="table (default): grouped, human units; json: normalized, base units.")
@format_in_option
@no_color_option
@width_option
def show(files: tuple[str, ...], fmt: str, format_in: str | None, no_color: bool,
         width: int | None) -> None:
    """Show every profile in FILES, grouped by catalog group, in human units."""
    from ..ingest import load_many
    from .output import choose, emit

    renderer = choose("profiles", fmt, None)
    emit(renderer, "profiles", load_many(files, format_in), None, no_color, width)
