"""``neuroncmp show``: every profile in the files, grouped, in human units; or the normalized JSON."""

from __future__ import annotations

import click

from .app import BoundaryCommand
from .options import format_in_option, no_color_option, output_options, peak_options, peak_values, width_option


@click.command(cls=BoundaryCommand)
@click.argument("files", nargs=-1, required=True, type=click.Path())
@output_options("profiles")
@format_in_option
@peak_options
@no_color_option
@width_option
def show(files: tuple[str, ...], fmt: str | None, output: str | None, format_in: str | None,
         peak_tflops: float | None, hbm_gbps: float | None, dma_gbps: float | None,
         no_color: bool, width: int | None) -> None:
    """Show every profile in FILES, grouped by catalog group, in human units, with what bounds its step
    and AWS's gaps (term, the default; or json: normalized, base units)."""
    from ..commands.show import ShowOptions, show_report
    from .output import check_output, choose, emit, notes

    renderer = choose("profiles", fmt, output)
    check_output(output, files)
    peak, hbm, dma = peak_values(peak_tflops, hbm_gbps, dma_gbps)
    loaded = show_report(files, ShowOptions(format_in, peak, hbm, dma))
    notes(loaded.notes)
    emit(renderer, "profiles", loaded, output, no_color, width)
