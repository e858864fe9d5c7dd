"""``neuroncmp history METRIC``: every series of a metric in time order, with its level shifts."""

from __future__ import annotations

from typing import Any

import click

from ..errors import UsageError
from .app import BoundaryCommand
from .options import (
    engine_options,
    output_options,
    pairs,
    series_by_option,
    store_option,
    terminal_options,
    where_option,
)


@click.command(cls=BoundaryCommand)
@click.argument("metric")
@where_option
@series_by_option
@output_options("history")
@click.option("--last", type=click.IntRange(1), default=None, metavar="N",
              help="Show only the last N points of each series (shifts use them all).")
@terminal_options
@store_option
@engine_options
def history(metric: str, where: tuple[str, ...], series_by: str | None, fmt: str | None,
            output: str | None, last: int | None, no_color: bool, width: int | None,
            store_path: str, engine: Any) -> None:
    """Show METRIC's history: one series per distinct tag set, shifts marked (term, json, or a
    png chart with the plot extra and -o FILE.png)."""
    from ..render.base import HistoryReport
    from ..store import folder, queries
    from ..store.options import HistoryOptions
    from .output import check_output, choose, emit

    renderer = choose("history", fmt, output)
    check_output(output, (), store=store_path)  # -o into the store would replace its own files
    if renderer.kind == "image" and output is None:  # before the store is read
        raise UsageError(f"--format {renderer.name} writes a file: add -o FILE{renderer.extensions[0]}")
    options = HistoryOptions.of(metric, pairs(where, "--where"), series_by)
    result = queries.history(engine, folder.root_of(store_path), options)
    emit(renderer, "history", HistoryReport(result, last), output, no_color, width)
