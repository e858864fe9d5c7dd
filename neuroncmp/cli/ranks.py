"""``neuroncmp ranks``: the ranks of one distributed step, the straggler and why; two runs' spreads."""

from __future__ import annotations

import click

from ..errors import GateTripped
from .app import BoundaryCommand
from .options import (
    baseline_run_option,
    fail_on_option,
    format_in_option,
    output_options,
    terminal_options,
    threshold_option,
)


@click.command(cls=BoundaryCommand)
@click.argument("files", nargs=-1, required=True, type=click.Path())
@baseline_run_option
@threshold_option("N%|AMOUNT", "Noise band for times, as for diff: '5%', 'time=2%', 'time=1us'.")
@fail_on_option("[QUANTITY.]STAT>+N%", "Exit 3 when the run's STAT (median, p90, max) of the step (or "
                "collectives., outside.) is more than N% above the baseline run's: 'p90>+5%'.")
@output_options("ranks")
@format_in_option
@terminal_options
def ranks(files: tuple[str, ...], baseline: tuple[str, ...], bands: tuple[str, ...], rules: tuple[str, ...],
          fmt: str | None, output: str | None, format_in: str | None, no_color: bool, width: int | None) -> None:
    """The ranks of one distributed step: FILES are one profile per rank or core (or their folder);
    per-rank table, spread, outliers and what accounts for them."""
    from ..commands.ranks import RanksOptions, ranks_report
    from .output import check_output, choose, emit, notes

    renderer = choose("ranks", fmt, output)
    check_output(output, files + baseline)
    report = ranks_report(files, RanksOptions(baseline, tuple(bands), tuple(rules), format_in))
    notes(report.notes)
    emit(renderer, "ranks", report, output, no_color, width)
    if report.tripped:
        raise GateTripped("a tail gate tripped")
