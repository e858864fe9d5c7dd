"""The values a rule makes or judges, read as today's rules make them from what the store holds.

The store keeps each run's values as read, and its derived values as they were computed when the run
was added. A rule that changes (a derived metric's formula used where an input is not available, a 0
found to be no measurement: ``conventions``) would otherwise show in ``history`` and ``regressions`` as a
shift at the first run added after the change, in a store that holds runs added before it. So the
series of every metric a rule makes or judges (``RULED``) is rebuilt at read time from the runs' stored
measured values, by the model's own value set (``model.value_set``), whatever the store holds for it:
a derived value recomputed, a 0 by convention left out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..catalog import derived_specs, lookup
from ..conventions import CONVENTIONS
from ..model import Metric, Profile, Source
from .engines.base import Engine
from .identity import SeriesKey
from .trends import SeriesValues, Shifts, series_shifts

RULED = frozenset({spec.name for spec in derived_specs()}
                  | {name for convention in CONVENTIONS for name in convention.names})


def needed(metrics: Iterable[str]) -> tuple[str, ...]:
    """The stored metrics the value set reads to make or judge ``metrics``: their own values, every
    formula's inputs, and what a convention covering any of them reads (``batch_size`` is the runs')."""
    names = set(metrics)
    for spec in derived_specs():
        if spec.name in names:
            names.update(spec.every_input)
    for convention in CONVENTIONS:
        if names.intersection(convention.names):
            names.update(convention.reads)
    return tuple(sorted(names - {"batch_size"}))


def as_read(values: SeriesValues) -> SeriesValues:
    """A series as the engine reads it (the per-series function of a read that only collects)."""
    return values


def shifts_or_read(values: SeriesValues) -> tuple[Shifts | None, SeriesValues | None]:
    """``regressions``' one pass over every stored series: the shifts of a metric no rule makes or
    judges, and the values of one the value set reads (both, for a metric that is both)."""
    shifts = None if values.metric in RULED else series_shifts(values)
    return shifts, values if values.metric in _NEEDED_BY_ANY else None


def series(engine: Engine, root: Path | str, keys: Mapping[SeriesKey, SeriesKey],
           metrics: Iterable[str]) -> list[SeriesValues]:
    """Each series of each of ``metrics`` as the value set makes it from the stored values it reads."""
    metrics = list(metrics)
    read = [values for name in needed(metrics) for values in engine.series(root, keys, name, as_read)]
    return rebuilt(read, engine, root, metrics)


def rebuilt(read: Sequence[SeriesValues], engine: Engine, root: Path | str,
            metrics: Iterable[str]) -> list[SeriesValues]:
    """The series of ``metrics`` made from the series ``read`` (every value the value set reads, by series)."""
    batch = {run.run: run.batch_size for run in engine.runs(root)}
    out = []
    for key, runs in _by_run(read).items():
        made = {name: _Points() for name in metrics}
        for run, (commit, time, numbers, units) in sorted(runs.items(), key=lambda item: (item[1][1], item[0])):
            values = _profile(numbers, units, batch.get(run)).values.all
            for name, points in made.items():
                metric = values.get(name)
                if metric is not None and not isinstance(metric.value, str):
                    points.add(run, commit, time, float(metric.value), metric.unit)
        out += [points.series(name, key) for name, points in made.items() if points.runs]
    return out


_NEEDED_BY_ANY = frozenset(needed(RULED))

Stored = tuple[str | None, datetime, dict[str, float], dict[str, str]]  # commit, time, values, units


def _by_run(read: Iterable[SeriesValues]) -> dict[SeriesKey, dict[str, Stored]]:
    """Series key -> run -> its commit, time, and the stored values (with units) read of it."""
    found: dict[SeriesKey, dict[str, Stored]] = {}
    for values in read:
        runs = found.setdefault(values.key, {})
        for index, run in enumerate(values.runs):
            stored = runs.setdefault(run, (values.commits[index], values.times[index], {}, {}))
            stored[2][values.metric] = values.values[index]
            stored[3][values.metric] = values.unit
    return found


def _profile(numbers: Mapping[str, float], units: Mapping[str, str], batch_size: int | None) -> Profile:
    """A profile of one run's stored values, for its value set (as ``baseline`` rebuilds one)."""
    metrics = {name: Metric(name, value, units[name], str(value), _group(name)) for name, value in numbers.items()}
    return Profile(Source("store", "store"), "run", {"batch_size": batch_size} if batch_size else {},
                   metrics=metrics)


@lru_cache(maxsize=256)
def _group(name: str) -> str:
    return lookup(name).group


class _Points:
    """One rebuilt series' points, in time order."""

    def __init__(self) -> None:
        self.runs: list[str] = []
        self.commits: list[str | None] = []
        self.times: list[datetime] = []
        self.values: list[float] = []
        self.unit = ""

    def add(self, run: str, commit: str | None, time: datetime, value: float, unit: str) -> None:
        self.runs.append(run)
        self.commits.append(commit)
        self.times.append(time)
        self.values.append(value)
        self.unit = unit

    def series(self, metric: str, key: SeriesKey) -> SeriesValues:
        return SeriesValues(metric, key, self.unit, tuple(self.runs), tuple(self.commits), tuple(self.times),
                            tuple(self.values))


def regressions_series(engine: Engine, root: Path | str, keys: Mapping[SeriesKey, SeriesKey]) -> list[Shifts]:
    """The shifts of every stored series (``regressions``): the stored values' own for a metric no
    rule makes or judges, the rebuilt values' for one that one does (one read of every series)."""
    found: list[Any] = engine.series(root, keys, None, shifts_or_read)
    shifts = [s for s, _ in found if s is not None]
    read = [values for _, values in found if values is not None]
    return shifts + [series_shifts(values) for values in rebuilt(read, engine, root, sorted(RULED))]
