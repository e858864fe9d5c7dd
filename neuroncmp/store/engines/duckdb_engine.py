"""The DuckDB engine: the store read in-process (``reading``), written by pyarrow (``adding``)."""

from __future__ import annotations

import json
from collections.abc import Sequence
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

    def series_by(self, root: Path | str) -> tuple[str, ...]:
        return folder.series_by(root)

    def runs(self, root: Path | str, where: Where, series_by: Sequence[str] = ()) -> list[Run]:
        found = reading.retrying(self._local(root), reading.runs)
        return trends.chosen_runs(found, where, series_by)

    def history(self, root: Path | str, metric: str, where: Where,
                series_by: Sequence[str] = ()) -> trends.History:
        return reading.retrying(self._local(root),
                                lambda con: _history(con, root, metric, where, series_by))

    def regressions(self, root: Path | str, where: Where, since: datetime | None,
                    all_changes: bool, min_change: float | None,
                    series_by: Sequence[str] = ()) -> trends.Regressions:
        def work(con: Any) -> trends.Regressions:
            found, series, metrics, short = _changes(con, where, series_by)
            chosen = trends.select(found, all_changes=all_changes, min_change=min_change, since=since)
            return trends.Regressions(chosen, series, metrics, all_changes, min_change, since,
                                     where, short)
        return reading.retrying(self._local(root), work)

    @staticmethod
    def _local(root: Path | str) -> Path:
        return folder.local(root, "--engine duckdb")


def _history(con: Any, root: Path | str, metric: str, where: Where,
             series_by: Sequence[str]) -> trends.History:
    units = reading.units(con, metric)
    if metric not in units:
        raise trends.unknown_metric(metric, root, sorted(reading.units(con)))
    runs = {run.run: run for run in trends.chosen_runs(reading.runs(con), where, series_by)}
    keys = {run.run: run.series for run in runs.values()}
    series = tuple(trends.build_series(metric, units[metric], json.loads(key), values,
                                       _points(runs, ids, values))
                   for _, key, ids, values in reading.series(con, keys, metric))
    return trends.History(metric, units[metric], series)


def _changes(con: Any, where: Where,
             series_by: Sequence[str]) -> tuple[list[trends.Change], int, int, int]:
    """Every change in every series of the matching runs, and how many series and metrics, and
    how many series are too short for a shift test."""
    runs = {run.run: run for run in trends.chosen_runs(reading.runs(con), where, series_by)}
    keys = {run.run: run.series for run in runs.values()}
    units = reading.units(con)
    found: list[trends.Change] = []
    series, metrics, short = 0, set(), 0
    for metric, key, ids, values in reading.series(con, keys):
        built = trends.build_series(metric, units[metric], json.loads(key), values,
                                    _points(runs, ids, values), points=False)
        found += built.changes
        series += 1
        short += len(values) < trends.SHIFT_TEST_RUNS
        metrics.add(metric)
    return found, series, len(metrics), short


def _points(runs: dict[str, Run], ids: list[str], values: list[float]) -> Any:
    def point(i: int) -> trends.Point:
        run = runs[ids[i]]
        return trends.Point(run.run, run.commit, run.time, values[i])
    return point
