"""History and regressions: each series' points in time order and the level shifts in it.

Pure over what the reader returns: ``history`` and ``regressions`` take runs and series values and
return immutable results; the detector is ``analysis.shifts.detect_shifts``, run per series.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Callable, Iterable, Mapping, Sequence

from ..analysis.shifts import MIN_SIZE, detect_shifts
from ..catalog import HIGHER, LOWER, closest, lookup
from ..choices import BETTER, CHANGED, WORSE
from ..errors import UsageError
from . import where as where_check
from .identity import series_key, series_of, unknown_keys
from .reading import Run

SHIFT_TEST_RUNS = 2 * MIN_SIZE  # the fewest runs in which the detector can find a shift
_ORDER = {WORSE: 0, CHANGED: 1, BETTER: 2}


@dataclass(frozen=True, slots=True)
class Point:
    run: str
    commit: str | None
    time: datetime
    value: float


@dataclass(frozen=True, slots=True)
class Change:
    """A level shift in one series: ``at`` is the first run of the new level, ``before_run`` the
    last run before it; ``before``/``after`` are medians (base unit), ``change`` after/before - 1."""

    metric: str
    series: Mapping[str, str]
    at: Point
    before_run: Point
    before: float
    after: float
    unit: str
    change: float
    direction: str
    p_value: float


@dataclass(frozen=True, slots=True)
class Series:
    tags: Mapping[str, str]
    points: tuple[Point, ...]
    changes: tuple[Change, ...]


def short_warning(series: int, short: int) -> str | None:
    """A warning when most series are too short for a shift test: then no shift can be found
    and an all-clear means nothing (nightly file names that split series do this)."""
    if not series or short * 2 <= series:
        return None
    held = "none with" if short == series else f"{short:,} without"
    return (f"{series:,} series, {held} the {SHIFT_TEST_RUNS} runs a shift test needs: do the "
            "file names split them? see --series-by ('neuroncmp store ls' shows each run's series)")


@dataclass(frozen=True, slots=True)
class History:
    metric: str
    unit: str
    series: tuple[Series, ...]

    @property
    def warnings(self) -> tuple[str, ...]:
        short = sum(len(s.points) < SHIFT_TEST_RUNS for s in self.series)
        found = short_warning(len(self.series), short)
        return (found,) if found else ()

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
        found = short_warning(self.series_count, self.short_series)
        return (found,) if found else ()

    def to_frame(self) -> Any:
        """pandas (imported here): one row per change, as in the JSON with ``at`` and
        ``before_run`` flattened."""
        import pandas as pd

        return pd.DataFrame([{"metric": c.metric, "series": dict(c.series), "at_run": c.at.run,
                              "at_commit": c.at.commit, "at_time": c.at.time,
                              "before_run": c.before_run.run, "before_commit": c.before_run.commit,
                              "before_time": c.before_run.time, "before": c.before, "after": c.after,
                              "unit": c.unit, "change": c.change, "direction": c.direction,
                              "p_value": c.p_value} for c in self.changes])


def direction(metric: str, before: float, after: float) -> str:
    """``worse``/``better`` by the catalog's direction for ``metric``, else ``changed``."""
    better = lookup(metric).direction
    if better not in (HIGHER, LOWER) or after == before:
        return CHANGED
    return BETTER if (after > before) == (better == HIGHER) else WORSE


def chosen_runs(runs: list[Run], where: Mapping[str, Sequence[str]],
                series_by: Sequence[str] = ()) -> list[Run]:
    """The runs ``where`` picks, each keyed by ``series_by`` (the store's setting or the
    option; all tags when empty). A ``where`` that picks none is a usage error naming the
    closest known values; so is a ``series_by`` key no run carries."""
    if series_by and runs and (missing := unknown_keys(series_by, (r.tags for r in runs))):
        known = sorted({k for r in runs for k in r.tags})
        near = closest(missing[0], known)
        hint = f"; did you mean {', '.join(near)}?" if near else ""
        raise UsageError(f"--series-by {','.join(series_by)}: no run has a tag "
                         f"{', '.join(repr(k) for k in missing)}{hint} (tags: {', '.join(known)})")
    keyed = [replace(r, series=series_key(series_of(r.tags, series_by))) for r in runs] \
        if series_by else runs
    found = matching(keyed, where)
    where_check.check((r.tags for r in keyed), where, len(found))
    return found


def matching(runs: Iterable[Run], where: Mapping[str, Iterable[str]]) -> list[Run]:
    """Runs whose tags match every ``where`` key (any of its values)."""
    wanted = {key: set(values) for key, values in where.items()}
    return [run for run in runs if all(run.tags.get(k) in v for k, v in wanted.items())]


def build_series(metric: str, unit: str, tags: Mapping[str, str], values: list[float],
                 point: Callable[[int], Point], *, points: bool = True) -> Series:
    """One series: its points (``point(i)`` makes the i-th; left out when ``points`` is False:
    regressions need only the runs either side of each shift) and the shifts the detector finds
    in its values."""
    changes = tuple(make_change(metric, tags, unit, point(s.index), point(s.index - 1), s.before,
                                s.after, s.change, s.p_value)
                    for s in detect_shifts(values))
    return Series(tags, tuple(point(i) for i in range(len(values))) if points else (), changes)


def make_change(metric: str, tags: Mapping[str, str], unit: str, at: Point, before_run: Point,
                before: float, after: float, change: float, p_value: float) -> Change:
    """A ``Change`` from a detected shift, its direction from the catalog."""
    return Change(metric, tags, at, before_run, before, after, unit, change,
                  direction(metric, before, after), p_value)


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
    near = closest(metric, known)
    hint = f"; did you mean {', '.join(near)}?" if near else ""
    more = ", ..." if len(known) > 5 else ""
    return UsageError(f"no metric '{metric}' in the store {root}{hint} ({len(known)} metrics: "
                      f"{', '.join(known[:5])}{more}; 'neuroncmp metrics' explains them)")
