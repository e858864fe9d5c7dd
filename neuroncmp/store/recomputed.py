"""The values a rule makes or judges, read as today's rules make them from what the store holds
(docs/history/history.md): a rule that changed would otherwise show as a shift at the first run
added after it. The series of every metric in ``RULED`` is rebuilt from the runs' stored measured
values by the model's own value set (``model.value_set``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ..catalog import derived_specs
from ..conventions import CONVENTIONS
from ..model import made_from
from .identity import SeriesKey
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
    series; all over one scan's runs): each run's values made once by the model's rules
    (``model.made_from``) from its stored numbers, as ``model.value_set`` makes them of a profile
    of those numbers: a derived value computed, a 0 by convention left out, any other as stored."""
    by_key: dict[SeriesKey, list[SeriesValues]] = {}
    for values in read:
        by_key.setdefault(values.key, []).append(values)
    column = {name: j for j, name in enumerate(metrics)}
    return [made for key, series in by_key.items() for made in _remade(key, series, column)]


def _remade(key: SeriesKey, series: list[SeriesValues], column: dict[str, int]) -> list[SeriesValues]:
    """The series of the metrics ``column`` numbers, made from one series key's ``series``."""
    import numpy as np

    runs, names = series[0].runs, [values.metric for values in series]
    places, stored, there = _table(series)
    shape = (len(places), len(column))
    made, kept, units = np.full(shape, np.nan), np.zeros(shape, dtype=bool), np.full(shape, "", dtype=object)
    for j, values in enumerate(series):
        if values.metric in column:
            at = column[values.metric]
            made[:, at], kept[:, at], units[:, at] = stored[:, j], there[:, j], values.unit
    made_rows, kept_rows, unit_rows = made.tolist(), kept.tolist(), units.tolist()
    finite = (np.isfinite(stored) & there).tolist()
    for row, (numbers, ok, place) in enumerate(zip(stored.tolist(), finite, places.tolist(), strict=True)):
        taken, derived = made_from({n: v for n, v, good in zip(names, numbers, ok) if good}, runs.batch_sizes[place])
        for name in taken.keys() & column.keys():
            kept_rows[row][column[name]] = False
        for name in derived.keys() & column.keys():
            at, metric = column[name], derived[name]
            made_rows[row][at], kept_rows[row][at], unit_rows[row][at] = float(metric.value), True, metric.unit
    made, kept = np.array(made_rows, dtype=float).reshape(shape), np.array(kept_rows, dtype=bool).reshape(shape)
    return [SeriesValues(name, key, unit_rows[rows[-1]][at], runs, places[rows], made[rows, at])
            for name, at in column.items() if len(rows := np.flatnonzero(kept[:, at]))]


def _table(series: Sequence[SeriesValues]) -> tuple[Any, Any, Any]:
    """The runs (places in the scan's runs, in order) any of ``series`` has a value of, and each
    one's value of each series (runs x series) and whether it has one."""
    import numpy as np

    places = np.unique(np.concatenate([values.at for values in series]))
    stored, there = np.zeros((len(places), len(series))), np.zeros((len(places), len(series)), dtype=bool)
    for j, values in enumerate(series):
        rows = np.searchsorted(places, values.at)
        stored[rows, j], there[rows, j] = values.values, True
    return places, stored, there


def as_ruled(found: Sequence[SeriesValues], metrics: Iterable[str]) -> list[SeriesValues]:
    """The series of ``metrics`` as a query shows them, from the scan of their stored values and
    of what the value set reads (``needed``): a metric no rule makes or judges as stored, one a
    rule does as the value set remakes it (``rebuilt``)."""
    metrics = set(metrics)
    ruled = metrics & RULED
    plain = [values for values in found if values.metric in metrics - RULED]
    read = [values for values in found if values.metric in needed(ruled)] if ruled else []
    return plain + rebuilt(read, sorted(ruled))
