"""``neuroncmp regressions``: the level shifts in every series of every metric, worst first."""

from __future__ import annotations

from typing import Any

import click

from ..choices import WORSE
from ..errors import GateTripped
from .app import BoundaryCommand
from .options import (
    Number,
    engine_options,
    output_options,
    pairs,
    series_by_option,
    since_option,
    store_option,
    terminal_options,
    where_option,
)


@click.command(cls=BoundaryCommand)
@where_option
@series_by_option
@since_option("")
@click.option("--all-changes", is_flag=True, help="Also improvements and changes with no better direction.")
@click.option("--min-change", type=Number(1e6, " %", zero_ok=True), default=None, metavar="PCT",
              help="Only changes of at least PCT percent (relative).")
@click.option("--fail-on-regression", is_flag=True, help="Exit 3 when a change for the worse is listed.")
@output_options("regressions")
@terminal_options
@store_option
@engine_options
def regressions(where: tuple[str, ...], series_by: str | None, since: str | None, all_changes: bool,
                min_change: float | None, fail_on_regression: bool, fmt: str | None,
                output: str | None, no_color: bool, width: int | None, store_path: str,
                engine: Any) -> None:
    """List level shifts in every series: changes for the worse first (by the catalog's direction)."""
    from ..render.base import RegressionsReport
    from ..store import folder, queries
    from ..store.options import RegressionsOptions
    from .output import check_output, choose, emit

    renderer = choose("regressions", fmt, output)
    check_output(output, (), store=store_path)  # -o into the store would replace its own files
    options = RegressionsOptions.of(pairs(where, "--where"), since, all_changes,
                                    None if min_change is None else min_change / 100, series_by)
    result = queries.regressions(engine, folder.root_of(store_path), options)
    emit(renderer, "regressions", RegressionsReport(result, store_path), output, no_color, width)
    if fail_on_regression and any(change.direction == WORSE for change in result.changes):
        raise GateTripped("a change for the worse was found")
