"""History and regressions: each series' points in time order and the level shifts in it, pure over
what an engine's scan returns (its records and functions: docs/code.md); ``queries`` puts them together.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, NamedTuple

from ..analysis.placement import CONFIDENCE
from ..analysis.shifts import MIN_SIZE, Shift, detect_many
from ..catalog import HIGHER, LOWER, closest, lookup, suggestion
from ..choices import BETTER, CHANGED, WORSE, Direction
from ..errors import UsageError
from .engines.base import Runs
from .identity import SeriesKey, series_of, unknown_keys
from .reading import Run

SHIFT_TEST_RUNS = 2 * MIN_SIZE  # the fewest runs in which the detector can find a shift
_ORDER = {WORSE: 0, CHANGED: 1, BETTER: 2}


class Point(NamedTuple):
    """One run's value in a series (a tuple: a long history has millions of them)."""

    run: str
    commit: str | None
    time: datetime
    value: float


@dataclass(frozen=True, slots=True)
class Candidates:
    """The runs that may be the first of a new level: ``first`` to ``last`` (``runs`` runs, in
    time order), which hold it with probability ``confidence`` (the central interval of the
    split's posterior, ``analysis.placement``); ``before`` is the run before ``first``, the last
    on the old level at that confidence. With commits in a linear history, the change came
    from a commit after ``before.commit`` up to ``last.commit``."""

    first: Point
    last: Point
    before: Point
    runs: int
    confidence: float


@dataclass(frozen=True, slots=True)
class Change:
    """A level shift in one series: ``at`` is the first run of the new level (the best estimate),
    ``before_run`` the last run before it, ``candidates`` the runs that may be the first at the
    stated confidence; ``before``/``after`` are medians (base unit), ``change`` after/before - 1."""

    metric: str
    series: SeriesKey
    at: Point
    before_run: Point
    before: float
    after: float
    unit: str
    change: float
    direction: Direction
    p_value: float
    candidates: Candidates


@dataclass(frozen=True, slots=True)
class Series:
    key: SeriesKey
    points: tuple[Point, ...]
    changes: tuple[Change, ...]

    @property
    def tags(self) -> dict[str, str]:
        return dict(self.key)


@dataclass(frozen=True, slots=True)
class SeriesValues:
    """One series of one metric as a query reads it: its values (base unit, text ones left out,
    a numpy array) in time order (then by run id), ``at`` each value's run (an index into
    ``runs``, the scan's runs)."""

    metric: str
    key: SeriesKey
    unit: str
    runs: Runs
    at: Any
    values: Any

    def point(self, index: int) -> Point:
        place, runs = int(self.at[index]), self.runs
        return Point(runs.ids[place], runs.commits[place], runs.times[place], float(self.values[index]))

    def points(self) -> tuple[Point, ...]:
        places, runs = self.at.tolist(), self.runs
        return tuple(map(Point, map(runs.ids.__getitem__, places), map(runs.commits.__getitem__, places),
                         map(runs.times.__getitem__, places), self.values.tolist()))


@dataclass(frozen=True, slots=True)
class Shifts:
    """What ``regressions`` keeps of one series: its changes and how many runs it has."""

    metric: str
    key: SeriesKey
    size: int
    changes: tuple[Change, ...]


def short_warnings(series: int, short: int) -> tuple[str, ...]:
    """A warning when most series are too short for a shift test: then no shift can be found
    and an all-clear means nothing (nightly file names that split series do this)."""
    if not series or short * 2 <= series:
        return ()
    held = "none with" if short == series else f"{short:,} without"
    return (f"{series:,} series, {held} the {SHIFT_TEST_RUNS} runs a shift test needs: do the "
            "file names split them? see --series-by ('neuroncmp store ls' shows each run's series)",)


@dataclass(frozen=True, slots=True)
class History:
    metric: str
    unit: str
    series: tuple[Series, ...]

    @property
    def warnings(self) -> tuple[str, ...]:
        return short_warnings(len(self.series), sum(len(s.points) < SHIFT_TEST_RUNS for s in self.series))

    def to_frame(self) -> Any:
        """pandas (imported here): one row per point, the series' tags as columns, ``shift``
        true on the first run of each new level."""
        import pandas as pd

        starts = {(id(s), c.at.run) for s in self.series for c in s.changes}
        return pd.DataFrame([{**s.tags, "metric": self.metric, "run": p.run, "commit": p.commit,
                              "time": p.time, "value": p.value, "unit": self.unit,
                              "shift": (id(s), p.run) in starts}
                             for s in self.series for p in s.points])


@dataclass(frozen=True, slots=True)
class Regressions:
    """Changes found in every series of every metric, worst first, with the filters applied."""

    changes: tuple[Change, ...]
    series_count: int
    metric_count: int
    all_changes: bool
    min_change: float | None
    since: datetime | None
    where: Mapping[str, Sequence[str]] = field(default_factory=dict)  # the --where tags
    short_series: int = 0  # series with fewer runs than a shift test needs (SHIFT_TEST_RUNS)

    @property
    def warnings(self) -> tuple[str, ...]:
        return short_warnings(self.series_count, self.short_series)

    def to_frame(self) -> Any:
        """pandas (imported here): one row per change, as in the JSON with ``at`` and
        ``before_run`` flattened."""
        import pandas as pd

        return pd.DataFrame([{"metric": c.metric, "series": dict(c.series), "at_run": c.at.run,
                              "at_commit": c.at.commit, "at_time": c.at.time,
                              "before_run": c.before_run.run, "before_commit": c.before_run.commit,
                              "before_time": c.before_run.time, "before": c.before, "after": c.after,
                              "unit": c.unit, "change": c.change, "direction": c.direction,
                              "p_value": c.p_value, "first_candidate_run": c.candidates.first.run,
                              "first_candidate_commit": c.candidates.first.commit,
                              "last_candidate_run": c.candidates.last.run,
                              "last_candidate_commit": c.candidates.last.commit,
                              "candidate_runs": c.candidates.runs,
                              "confidence": c.candidates.confidence} for c in self.changes])


def direction(metric: str, before: float, after: float) -> Direction:
    """``worse``/``better`` by the catalog's direction for ``metric``, else ``changed``."""
    better = lookup(metric).direction
    if better not in (HIGHER, LOWER) or after == before:
        return CHANGED
    return BETTER if (after > before) == (better == HIGHER) else WORSE


def choose_keys(tag_sets: Iterable[Mapping[str, str]], where: Mapping[str, Sequence[str]],
                series_by: Sequence[str] = ()) -> dict[SeriesKey, SeriesKey]:
    """Which runs a query takes and their series, decided on their tags alone: each distinct tag
    set ``where`` picks (as ``SeriesKey.of(tags)``) -> its series key (by ``series_by``, all tags
    when empty). A ``where`` that picks none is a usage error naming the closest known values; so
    is a ``series_by`` key no run carries."""
    sets = list(tag_sets)
    if series_by and sets and (missing := unknown_keys(series_by, sets)):
        known = sorted({k for tags in sets for k in tags})
        raise UsageError(f"--series-by {','.join(series_by)}: no run has a tag "
                         f"{', '.join(repr(k) for k in missing)}{_hint(missing[0], known)} (tags: {', '.join(known)})")
    found = {SeriesKey.of(tags): SeriesKey.of(series_of(tags, series_by))
             for tags in sets if matches(tags, where)}
    _check_where(sets, where, len(found))
    return found


def _check_where(tags: Iterable[Mapping[str, str]], where: Mapping[str, Sequence[str]], matched: int) -> None:
    """A ``where`` that matches no run is a usage error, never an empty answer (a CI gate would pass on
    a typo such as ``model=bert-larg``): it says which key or value is unknown, with the closest known ones."""
    if not where or matched:
        return
    values: dict[str, set[str]] = {}
    for run in tags:
        for key, value in run.items():
            values.setdefault(key, set()).add(value)
    if not values:
        raise UsageError(f"--where {_text(where)}: the store has no runs")
    for key, wanted in where.items():
        if key not in values:
            raise UsageError(f"--where {key}=...: no run has a tag '{key}'"
                             f"{_hint(key, values)} (tags: {_few(values)})")
        missing = [v for v in wanted if v not in values[key]]
        if len(missing) == len(wanted):
            raise UsageError(f"--where {key}={','.join(wanted)}: no run has this value"
                             f"{_hint(missing[0], values[key])} ({key}: {_few(values[key])})")
    raise UsageError(f"--where {_text(where)}: no run has all of these tags together; "
                     "'neuroncmp store ls' lists each run's tags")


def _hint(typed: str, known: Iterable[str]) -> str:
    near = closest(typed, sorted(known))
    return f"; did you mean {', '.join(near)}?" if near else ""


def _few(values: Iterable[str], shown: int = 8) -> str:
    ordered = sorted(values)
    more = f", ... ({len(ordered)} in all)" if len(ordered) > shown else ""
    return ", ".join(ordered[:shown]) + more


def _text(where: Mapping[str, Sequence[str]]) -> str:
    return " ".join(f"{k}={','.join(v)}" for k, v in where.items())


def chosen_runs(runs: list[Run], where: Mapping[str, Sequence[str]],
                series_by: Sequence[str] = ()) -> list[Run]:
    """The runs ``where`` picks (each one's ``series`` its stored key: all its tags), each keyed by
    ``series_by`` (``choose_keys``)."""
    keys = choose_keys({run.series: run.tags for run in runs}.values(), where, series_by)
    return [run if keys[run.series] == run.series else replace(run, series=keys[run.series])
            for run in runs if run.series in keys]


def matches(tags: Mapping[str, str], where: Mapping[str, Iterable[str]]) -> bool:
    """Whether ``tags`` match every ``where`` key (any of its values)."""
    return all(tags.get(key) in set(values) for key, values in where.items())


def matching(runs: Iterable[Run], where: Mapping[str, Iterable[str]]) -> list[Run]:
    """Runs whose tags match every ``where`` key (any of its values)."""
    return [run for run in runs if matches(run.tags, where)]


def series_shifts(found: Sequence[SeriesValues]) -> list[Shifts]:
    """Each series' changes and length: the shifts the detector finds in its values, every series
    tested at once (``detect_many``)."""
    shifts = detect_many([values.values for values in found])
    return [Shifts(values.metric, values.key, len(values.values),
                   tuple(make_change(values, shift) for shift in each))
            for values, each in zip(found, shifts, strict=True)]


def make_change(values: SeriesValues, shift: Shift) -> Change:
    """A ``Change`` from a shift the detector found in ``values``, its direction from the catalog."""
    candidates = Candidates(values.point(shift.earliest), values.point(shift.latest),
                            values.point(shift.earliest - 1), shift.latest - shift.earliest + 1,
                            CONFIDENCE)
    return Change(values.metric, values.key, values.point(shift.index), values.point(shift.index - 1),
                  shift.before, shift.after, values.unit, shift.change,
                  direction(values.metric, shift.before, shift.after), shift.p_value, candidates)


def select(changes: Iterable[Change], *, all_changes: bool, min_change: float | None,
           since: datetime | None) -> tuple[Change, ...]:
    """The changes to report, worst first: worse, then changed, then better; bigger first."""
    kept = [c for c in changes
            if (all_changes or c.direction == WORSE)
            and (min_change is None or not abs(c.change) < min_change)
            and (since is None or c.at.time > since)]
    return tuple(sorted(kept, key=lambda c: (_ORDER[c.direction], -_size(c), c.metric, c.at.time)))


def _size(change: Change) -> float:
    return abs(change.change) if math.isfinite(change.change) else math.inf


def unknown_metric(metric: str, root: Any, known: list[str]) -> UsageError:
    """The error for a metric the store has no values of, naming a few it has."""
    more = ", ..." if len(known) > 5 else ""
    return UsageError(f"no metric '{metric}' in the store {root}{suggestion(metric, known)} ({len(known)} metrics: "
                      f"{', '.join(known[:5])}{more}; 'neuroncmp metrics' explains them)")
