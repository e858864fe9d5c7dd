"""Level shifts in one metric's history: a rank scan, robust placement, binary segmentation.

One pure function, ``detect_shifts(values)``, over one series in run order, so any engine can run
it per series (a loop here, ``applyInPandas`` in Spark). Pure Python, deterministic, ``math``
only. docs/shifts.md gives every formula; in short:

1. **Is there a shift?** Replace a segment's ``k`` values by their mid-ranks, centred:
   ``c_i = r_i - (k+1)/2``. For every split ``t`` with at least ``min_size`` points each side,
   ``Z_t = S_t / sqrt(t (k-t) / (k (k-1)) * sum c_i^2)`` with ``S_t = c_1 + ... + c_t`` (the
   standardized Mann-Whitney rank sum). Ranks make the test distribution-free: whatever the
   noise's shape and level, a series without a shift gives the same distribution of ``Z``, and
   an outlier 10 sigma off weighs no more than a value 3 sigma off.
2. **How surprising is the largest ``|Z_t|``?** Siegmund's approximation for the maximum of a
   standardized bridge over the scanned splits, with his discrete-time correction ``nu``, capped
   by Bonferroni (``p_value``). A shift needs ``p < alpha`` and different medians either side.
3. **Where exactly?** Ranks place a shift loosely (each level's ranks spread over a range), so
   the split is placed again (``locate``) with the two levels and the noise scale estimated
   robustly: the posterior median of the split under a Gaussian likelihood whose squared
   residuals are capped at ``(3 sigma)^2``, so an outlier pulls no more than a point on the
   other level. The same posterior gives the range of candidate first runs: its central 95 %
   (``earliest`` to ``latest``), the runs the data cannot tell apart as the first of the new
   level.
4. **A level that came back?** When no single split holds, the window scan (circular binary
   segmentation's statistic) compares every window of runs with the rest; each of the two
   scans is held to ``alpha / 2``, so a series without a shift alarms with probability < alpha.
5. **More than one?** Both sides of a shift are searched again (binary segmentation); then
   every shift is re-tested and re-placed on the span between its neighbours, and the weakest
   is dropped while any fails.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import isfinite

from ..stats import median
from .placement import locate
from .rank_scan import Split, scan, scan_windows

Placed = tuple[int, float, float, int, int]  # a split (index, Z, p) and its range (earliest, latest)

ALPHA = 0.005     # false alarms: measured 0.1 % of 80-run series without a shift (docs/shifts.md)
MIN_SIZE = 5      # runs each side: fewer consecutive odd runs are outliers, never a shift


@dataclass(frozen=True, slots=True)
class Shift:
    """A level shift. ``index`` is the first point of the new level, as an index into the input.

    ``before`` and ``after`` are the medians of the segments either side, up to the neighbouring
    shifts; ``change`` is ``after / before - 1`` (NaN when ``before`` is 0); ``z`` is the
    standardized rank statistic of the split and ``p_value`` its p-value, corrected for the scan.
    ``earliest`` and ``latest`` (input indexes, ``earliest <= index <= latest``) bound the first
    point of the new level with probability ``placement.CONFIDENCE`` (95 %): the central interval
    of the split's posterior, whose median is ``index``.
    """

    index: int
    before: float
    after: float
    change: float
    z: float
    p_value: float
    earliest: int
    latest: int


def detect_shifts(values: Sequence[float], *, alpha: float = ALPHA,
                  min_size: int = MIN_SIZE) -> tuple[Shift, ...]:
    """Level shifts in ``values`` (in run order), earliest first.

    Non-finite values (NaN, inf) carry no level and are skipped; indexes still refer to the
    input. Fewer than ``2 * min_size`` finite values, or a constant series, give no shift.
    """
    if min_size < 1:
        raise ValueError(f"min_size must be at least 1, got {min_size}")
    kept = [i for i, v in enumerate(values) if isfinite(v)]
    xs = [float(values[i]) for i in kept]
    splits = _prune(xs, _segment(xs, alpha, min_size), alpha, min_size)
    return tuple(_shift(xs, kept, splits, j) for j in range(len(splits)))


def _segment(xs: list[float], alpha: float, min_size: int) -> list[Split]:
    """Binary segmentation: every significant split, searched again on both its sides."""
    found, todo = [], [(0, len(xs))]
    while todo:
        start, end = todo.pop()
        splits = [(start + at, z, p) for at, z, p in _test(xs[start:end], min_size, alpha)]
        found += splits
        cuts = [start] + [at for at, _, _ in splits] + [end]
        todo += list(zip(cuts, cuts[1:], strict=False)) if splits else []
    return sorted(found)


def _prune(xs: list[float], found: list[Split], alpha: float, min_size: int) -> list[Placed]:
    """Re-test and re-place each split on the span between its neighbours (it was found before
    they were known); drop the weakest while any fails, until every one left holds."""
    while found:
        bounds = [0] + [index for index, _, _ in found] + [len(xs)]
        retested = []
        for j in range(len(found)):
            span = xs[bounds[j]:bounds[j + 2]]
            split = scan(span, min_size)
            z, p = (split[1], split[2]) if split else (0.0, 1.0)
            placed = locate(span, bounds[j + 1] - bounds[j], min_size)
            ok = p < alpha and median(span[:placed.at]) != median(span[placed.at:])
            retested.append((bounds[j] + placed.at, z, p if ok else 1.0,
                             bounds[j] + placed.first, bounds[j] + placed.last))
        weakest = max(range(len(retested)), key=lambda j: retested[j][2])
        if retested[weakest][2] < alpha:
            return retested
        found = found[:weakest] + found[weakest + 1:]
    return []


def _test(segment: list[float], min_size: int, alpha: float) -> list[Split]:
    """The placed split(s) of one segment: a significant single shift, else a significant
    window (a level that came and went back), each at ``alpha / 2``; none when neither holds."""
    split = scan(segment, min_size)
    if split is not None and split[2] < alpha / 2:
        at = locate(segment, split[0], min_size).at
        if median(segment[:at]) != median(segment[at:]):  # ties: a lone odd value is no shift
            return [(at, split[1], split[2])]
    window = scan_windows(segment, min_size)
    if window is None or window[3] >= alpha / 2:
        return []
    start, end, z, p = window
    return [(start, z, p), (end, z, p)]


def _shift(xs: list[float], kept: list[int], splits: list[Placed], j: int) -> Shift:
    """The ``Shift`` for ``splits[j]``: medians up to the neighbouring splits, input indexes."""
    start = splits[j - 1][0] if j else 0
    end = splits[j + 1][0] if j + 1 < len(splits) else len(xs)
    index, z, p, earliest, latest = splits[j]
    before, after = median(xs[start:index]), median(xs[index:end])
    change = after / before - 1 if before else float("nan")
    return Shift(kept[index], before, after, change, z, p, kept[earliest], kept[latest])
