"""``neuroncmp ops``: which operators changed between a baseline and its variants."""

from __future__ import annotations

import click

from ..choices import OPS_LEVELS, Basis, OpsLevel, Order
from ..errors import UsageError
from .app import BoundaryCommand
from .options import (
    all_option,
    baseline_option,
    basis_option,
    format_in_option,
    order_option,
    output_options,
    terminal_options,
    threshold_option,
)


@click.command(cls=BoundaryCommand)
@click.argument("files", nargs=-1, required=True, type=click.Path())
@click.option("--level", type=click.Choice(OPS_LEVELS), default="opcode", show_default=True,
              help="engine x opcode, HLO op, framework layer, or NKI kernel source line.")
@click.option("--top", type=click.IntRange(1), metavar="N",
              help="Operators shown per variant in the tables, the rest summed on one line (default: 20 in the "
                   "terminal; every one in the other formats and with -o).")
@all_option
@baseline_option
@basis_option
@order_option
@threshold_option("N%|AMOUNT", "Noise band for times, as for diff: '5%', 'time=2%', 'time=1us'.")
@output_options("ops")
@format_in_option
@terminal_options
def ops(files: tuple[str, ...], level: OpsLevel, top: int | None, all_rows: bool, baseline: str | None,
        basis: Basis, order: Order, bands: tuple[str, ...], fmt: str | None, output: str | None, format_in: str | None,
        no_color: bool, width: int | None) -> None:
    """Compare operators: FILES are view JSONs (--output-format json), Explorer Parquet folders or
    capture run folders' profiles; the first is the baseline unless --baseline names another."""
    from ..commands.ops import OpsOptions, ops_report
    from .output import check_output, choose, emit, notes, warn

    renderer = choose("ops", fmt, output)
    check_output(output, files)
    shown = _top(top, all_rows, terminal=renderer.name == "term" and output is None)
    options = OpsOptions(level, shown, baseline, basis, tuple(bands), order, format_in)  # click chose them
    report = ops_report(files, options)
    notes(report.notes)
    if renderer.kind == "table":  # rows only: the graph changes and step doubts go to standard error
        warn([*(v.graph_change for v in report.comparison.variants if v.graph_change),
              *report.comparison.step_doubts])
    emit(renderer, "ops", report, output, no_color, width)


def _top(top: int | None, all_ops: bool, terminal: bool) -> int | None:
    """Operators per table: ``--top``; else every one (``--all``, a file, a format other than the
    terminal: a document, as ``diff``'s are) or the terminal's 20, one screen."""
    from ..commands.ops import TOP

    if all_ops and top is not None:
        raise UsageError("--top and --all: give one (--all shows every operator)")
    if top is not None or all_ops:
        return top
    return TOP if terminal else None
