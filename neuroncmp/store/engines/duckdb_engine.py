"""The DuckDB engine: the store read in-process (``reading``), written by pyarrow (``adding``)."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from .. import adding, folder, reading, trends
from ..adding import AddReport
from ..listing import Entry, Problem
from ..reading import Run
from .base import Where


class DuckDBEngine:
    """Embedded, one machine: the default."""

    name = "duckdb"

    def add(self, root: Path | str, entries: list[Entry], *, skip_bad: bool,
            problems: list[Problem]) -> AddReport:
        return adding.add(folder.local(root, "store add"), entries, skip_bad=skip_bad,
                          problems=problems)

    def runs(self, root: Path | str, where: Where) -> list[Run]:
        found = reading.retrying(self._local(root), reading.runs)
        return trends.matching(found, where)

    def history(self, root: Path | str, metric: str, where: Where) -> trends.History:
        return reading.retrying(self._local(root), lambda con: _history(con, root, metric, where))

    def regressions(self, root: Path | str, where: Where, since: datetime | None,
                    all_changes: bool, min_change: float | None) -> trends.Regressions:
        def work(con: Any) -> trends.Regressions:
            found, series, metrics = _changes(con, where)
            chosen = trends.select(found, all_changes=all_changes, min_change=min_change, since=since)
            return trends.Regressions(chosen, series, metrics, all_changes, min_change, since,
                                     where)
        return reading.retrying(self._local(root), work)

    @staticmethod
    def _local(root: Path | str) -> Path:
        return folder.local(root, "--engine duckdb")


def _history(con: Any, root: Path | str, metric: str, where: Where) -> trends.History:
    units = reading.units(con, metric)
    if metric not in units:
        raise trends.unknown_metric(metric, root, sorted(reading.units(con)))
    runs = {run.run: run for run in trends.matching(reading.runs(con), where)}
    series = tuple(trends.build_series(metric, units[metric], json.loads(key), values,
                                       _points(runs, ids, values))
                   for _, key, ids, values in reading.series(con, list(runs), metric))
    return trends.History(metric, units[metric], series)


def _changes(con: Any, where: Where) -> tuple[list[trends.Change], int, int]:
    """Every change in every series of the matching runs, and how many series and metrics."""
    runs = {run.run: run for run in trends.matching(reading.runs(con), where)}
    units = reading.units(con)
    found: list[trends.Change] = []
    series, metrics = 0, set()
    for metric, key, ids, values in reading.series(con, list(runs)):
        built = trends.build_series(metric, units[metric], json.loads(key), values,
                                    _points(runs, ids, values), points=False)
        found += built.changes
        series += 1
        metrics.add(metric)
    return found, series, len(metrics)


def _points(runs: dict[str, Run], ids: list[str], values: list[float]) -> Any:
    def point(i: int) -> trends.Point:
        run = runs[ids[i]]
        return trends.Point(run.run, run.commit, run.time, values[i])
    return point
