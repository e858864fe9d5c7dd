"""The words of the store's commands, the same in every format: tags, shifts and their sizes,
the runs that may start a shift, p-values, the trend line. The terminal draws them
(``terminal/store.py``); Markdown and the report site write them (what they show:
``docs/history/history.md``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

from ..stats import median
from ..units import FRACTION, format_value, percent, pick_scale, significant
from .changes import DIRECTION_MARK, points_text, sparks

if TYPE_CHECKING:  # the records only: the store's modules stay off the import path of a render
    from datetime import datetime

    from ..store.identity import SeriesKey
    from ..store.trends import Change, Point


def tags_text(tags: Mapping[str, str] | SeriesKey | Iterable[tuple[str, str]]) -> str:
    return " ".join(f"{k}={v}" for k, v in sorted(dict(tags).items())) or "(no tags)"


def change_text(change: Change, unit: str, scale: tuple[float, str] | None = None) -> str:
    before = format_value(change.before, unit, scale)
    after = format_value(change.after, unit, scale)
    return (f"{before} -> {after} ({change_size(change, unit)}) {change.direction} "
            f"{DIRECTION_MARK[change.direction]}, p {p_text(change.p_value)}")


def candidates_text(change: Change, shown: Callable[[Point, str], str] | None = None) -> str:
    """The runs that may be the first of the new level, at the stated confidence, each named by its
    commit and called so: "at commit 5649f8e (95 %)", "between commits 98466a9 and 5649f8e (2 runs,
    95 %)"; by run id, called a run, where either has no commit. ``shown`` writes each name (a code
    span, a link: it is given the point and the name). The words around them hold no input text."""
    found = change.candidates
    by_commit = bool(found.first.commit and found.last.commit)
    kind = "commit" if by_commit else "run"

    def name(point: Point) -> str:
        text = (point.commit if by_commit else point.run) or point.run
        return shown(point, text) if shown else text

    sure = percent(found.confidence)
    if found.runs == 1:
        return f"at {kind} {name(found.first)} ({sure})"
    return f"between {kind}s {name(found.first)} and {name(found.last)} ({found.runs} runs, {sure})"


def shift_cells(change: Change) -> list[str]:
    """A shift's before and after (in the unit their median reads best in), its size and p-value: the
    numbers of every table of shifts."""
    scale = pick_scale(median([change.before, change.after]), change.unit)
    return [format_value(change.before, change.unit, scale), format_value(change.after, change.unit, scale),
            change_size(change, change.unit), p_text(change.p_value)]


CANDIDATES_NOTE = ("at run, commit: the best estimate of the first run of the new level; first new run: "
                   "the runs that may be it, named by their commits, with the probability stated "
                   "(docs: How shifts are found)")


NOT_FINITE = "?"


def finite_median(values: list[float]) -> float | None:
    finite = [v for v in values if math.isfinite(v)]
    return median(finite) if finite else None


def display_scale(values: Iterable[float], unit: str) -> tuple[float, str] | None:
    """The one display unit of a series in every format, chosen from the median of its finite values (a
    store keeps an infinity as read; it sets no scale); None without one."""
    middle = finite_median(list(values))
    return None if middle is None else pick_scale(middle, unit)


def sparkline(values: list[float], shifts: list[int], width: int) -> tuple[str, str]:
    """A trend of at most ``width`` characters (bucket medians) and a line marking the shifts.

    The scale runs from the 2nd to the 98th percentile, so one slow run does not flatten it.
    Non-finite values (a store keeps values as read) take no part in the scale; a bucket with
    nothing else shows ``NOT_FINITE``."""
    width = max(width, 8)
    size = max(1, math.ceil(len(values) / width))
    buckets = [finite_median(values[i:i + size]) for i in range(0, len(values), size)]
    ordered = sorted(v for v in values if math.isfinite(v)) or [0.0]
    low = ordered[int(0.02 * (len(ordered) - 1))]
    high = ordered[math.ceil(0.98 * (len(ordered) - 1))]
    spark_ = "".join(NOT_FINITE if b is None else sparks([b], low, high) for b in buckets)
    marks = [" "] * len(buckets)
    for index in shifts:
        marks[index // size] = "^"
    return spark_, "".join(marks).rstrip()


def p_text(p: float) -> str:
    """Two significant figures; below 1e-16 (where doubles stop resolving it) ``<1e-16``."""
    return "<1e-16" if p < 1e-16 else f"{p:.2g}"


def change_size(change: Change, unit: str) -> str:
    """A shift's size as ``diff`` shows it: percentage points for a fraction (MFU 20.28 % ->
    19.54 % is -0.74pp, not -3.66 %), else the relative change."""
    if unit != FRACTION:
        return _percent(change.change)
    points = (change.after - change.before) * 100
    if not math.isfinite(points):
        return "n/a"
    return points_text(points)


def _percent(change: float) -> str:
    if not math.isfinite(change):
        return "n/a"
    return f"{'+' if change >= 0 else ''}{significant(change * 100, 3)}%"


def iso_time(moment: datetime) -> str:
    return moment.isoformat(timespec="seconds").replace("+00:00", "Z")
