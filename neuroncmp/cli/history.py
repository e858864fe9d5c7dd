"""``neuroncmp history METRIC``: every series of a metric in time order, with its level shifts."""

from __future__ import annotations

from typing import Any

import click

from ..errors import UsageError
from .app import BoundaryCommand
from .options import (
    all_option,
    engine_options,
    output_options,
    pairs,
    series_by_option,
    store_option,
    terminal_options,
    where_option,
)

# The terminal's table of each series: its last points, as a long frame prints its tail; the trend line
# above it and the shifts are of every point. A year of nightly runs is 365 lines a series otherwise.
POINTS_SHOWN = 20


@click.command(cls=BoundaryCommand)
@click.argument("metric")
@where_option
@series_by_option
@output_options("history")
@click.option("--last", type=click.IntRange(1), default=None, metavar="N",
              help=f"Show only the last N points of each series (shifts use them all; default on the terminal: "
                   f"{POINTS_SHOWN}, --all for every one).")
@all_option
@terminal_options
@store_option
@engine_options
def history(metric: str, where: tuple[str, ...], series_by: str | None, fmt: str | None,
            output: str | None, last: int | None, all_rows: bool, no_color: bool, width: int | None,
            store_path: str, engine: Any) -> None:
    """Show METRIC's history: one series per distinct tag set, shifts marked (term, json, or a
    png chart with the plot extra and -o FILE.png)."""
    from ..render.base import HistoryReport
    from ..store import folder, queries
    from ..store.options import HistoryOptions
    from .output import check_output, choose, emit

    if all_rows and last:
        raise UsageError("--all shows every point and --last N the last N: give one of them")
    renderer = choose("history", fmt, output)
    check_output(output, (), store=store_path)  # -o into the store would replace its own files
    if renderer.kind == "image" and output is None:  # before the store is read
        raise UsageError(f"--format {renderer.name} writes a file: add -o FILE{renderer.extensions[0]}")
    options = HistoryOptions.of(metric, pairs(where, "--where"), series_by)
    result = queries.history(engine, folder.root_of(store_path), options)
    # a file keeps every point, as diff's does; the JSON and the chart always hold every one
    shown = last or (None if all_rows or output else POINTS_SHOWN)
    emit(renderer, "history", HistoryReport(result, shown), output, no_color, width)
