"""``neuroncmp show``: every profile in the files, grouped, in human units; or the normalized JSON."""

from __future__ import annotations

import click

from .app import BoundaryCommand
from .options import format_in_option, output_options, peak_options, terminal_options


@click.command(cls=BoundaryCommand)
@click.argument("files", nargs=-1, required=True, type=click.Path())
@output_options("profiles")
@format_in_option
@peak_options
@terminal_options
def show(files: tuple[str, ...], fmt: str | None, output: str | None, format_in: str | None,
         peak_flops: float | None, hbm_bandwidth: float | None, dma_bandwidth: float | None,
         no_color: bool, width: int | None) -> None:
    """Show every profile in FILES, grouped by catalog group, in human units, with what bounds its step
    and AWS's gaps (term, the default; or json: normalized, base units)."""
    from ..commands.show import ShowOptions, show_report
    from .output import check_output, choose, emit, notes

    renderer = choose("profiles", fmt, output)
    check_output(output, files)
    loaded = show_report(files, ShowOptions(format_in, peak_flops, hbm_bandwidth, dma_bandwidth))
    notes(loaded.notes)
    emit(renderer, "profiles", loaded, output, no_color, width)
