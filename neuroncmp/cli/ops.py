"""``neuroncmp ops``: which operators changed between a baseline and its variants."""

from __future__ import annotations

import click

from ..choices import BASES, OPS_LEVELS, ORDERS, check
from .app import BoundaryCommand
from .options import (
    baseline_option,
    basis_option,
    format_in_option,
    no_color_option,
    order_option,
    output_options,
    threshold_option,
    width_option,
)


@click.command(cls=BoundaryCommand)
@click.argument("files", nargs=-1, required=True, type=click.Path())
@click.option("--level", type=click.Choice(OPS_LEVELS), default="opcode", show_default=True,
              help="engine x opcode, HLO op, framework layer, or NKI kernel source line.")
@click.option("--top", type=click.IntRange(1), default=20, show_default=True, metavar="N",
              help="Operators shown per variant (the rest are summed on one line).")
@baseline_option
@basis_option
@order_option
@threshold_option("N%|AMOUNT", "Noise band for times, as for diff: '5%', 'time=2%', 'time=1us'.")
@output_options("ops")
@format_in_option
@no_color_option
@width_option
def ops(files: tuple[str, ...], level: str, top: int, baseline: str | None, basis: str, order: str,
        bands: tuple[str, ...], fmt: str | None, output: str | None, format_in: str | None, no_color: bool,
        width: int | None) -> None:
    """Compare operators: FILES are view JSONs (--output-format json), Explorer Parquet folders or
    capture run folders' profiles; the first is the baseline unless --baseline names another."""
    from ..commands.ops import OpsOptions, ops_report
    from .output import check_output, choose, emit, notes, warn

    renderer = choose("ops", fmt, output)
    check_output(output, files)
    options = OpsOptions(check("--level", level, OPS_LEVELS), top, baseline, check("--basis", basis, BASES),
                         tuple(bands), check("--order", order, ORDERS), format_in)
    report = ops_report(files, options)
    notes(report.notes)
    if renderer.kind == "table":  # rows only: the graph changes and step doubts go to standard error
        warn([*(v.graph_change for v in report.comparison.variants if v.graph_change),
              *report.comparison.step_doubts])
    emit(renderer, "ops", report, output, no_color, width)
