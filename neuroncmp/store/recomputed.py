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
from functools import lru_cache

from ..catalog import derived_specs, lookup
from ..conventions import CONVENTIONS
from ..model import Metric, Profile, Source
from .identity import SeriesKey
from .scanned import Runs
from .trends import SeriesValues

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


def rebuilt(read: Sequence[SeriesValues], metrics: Iterable[str]) -> list[SeriesValues]:
    """The series of ``metrics`` made from the series ``read`` (every value the value set reads, by
    series; all over one scan's runs): each run's value set made once, from its stored values."""
    import numpy as np

    metrics = list(metrics)
    out = []
    for key, (runs, by_run) in _by_run(read).items():
        made: dict[str, tuple[list[int], list[float], list[str]]] = {name: ([], [], []) for name in metrics}
        for place in sorted(by_run):
            numbers, units = by_run[place]
            values = _profile(numbers, units, runs.batch_sizes[place]).values.all
            for name, (at, found, unit) in made.items():
                metric = values.get(name)
                if metric is not None and not isinstance(metric.value, str):
                    at.append(place)
                    found.append(float(metric.value))
                    unit.append(metric.unit)
        out += [SeriesValues(name, key, unit[-1], runs, np.array(at, dtype=np.int64), np.array(found))
                for name, (at, found, unit) in made.items() if at]
    return out


Stored = tuple[dict[str, float], dict[str, str]]  # a run's stored values and their units, by metric


def _by_run(read: Iterable[SeriesValues]) -> dict[SeriesKey, tuple[Runs, dict[int, Stored]]]:
    """Series key -> the scan's runs, and each run's place among them -> the stored values (with
    units) read of it."""
    found: dict[SeriesKey, tuple[Runs, dict[int, Stored]]] = {}
    for values in read:
        _, runs = found.setdefault(values.key, (values.runs, {}))
        for place, value in zip(values.at.tolist(), values.values.tolist(), strict=True):
            numbers, units = runs.setdefault(place, ({}, {}))
            numbers[values.metric] = value
            units[values.metric] = values.unit
    return found


def _profile(numbers: Mapping[str, float], units: Mapping[str, str], batch_size: int | None) -> Profile:
    """A profile of one run's stored values, for its value set (as ``baseline`` rebuilds one)."""
    metrics = {name: Metric(name, value, units[name], str(value), _group(name)) for name, value in numbers.items()}
    return Profile(Source("store", "store"), "run", {"batch_size": batch_size} if batch_size else {},
                   metrics=metrics).freeze()


@lru_cache(maxsize=256)
def _group(name: str) -> str:
    return lookup(name).group


def as_ruled(found: Sequence[SeriesValues], metrics: Iterable[str]) -> list[SeriesValues]:
    """The series of ``metrics`` as a query shows them, from the scan of their stored values and
    of what the value set reads (``needed``): a metric no rule makes or judges as stored, one a
    rule does as the value set remakes it (``rebuilt``)."""
    metrics = set(metrics)
    ruled = metrics & RULED
    plain = [values for values in found if values.metric in metrics - RULED]
    read = [values for values in found if values.metric in needed(ruled)] if ruled else []
    return plain + rebuilt(read, sorted(ruled))
