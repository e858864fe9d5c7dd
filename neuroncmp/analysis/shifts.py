"""Level shifts in one metric's history: a rank scan, robust placement, binary segmentation.

One pure function, ``detect_many(series)``, over many series (each in run order) at once: each
step's scans run over every series together in numpy (``rank_scan``), so the store's queries test
every series of every metric in a few array passes; ``detect_shifts(values)`` is the same for one
series. Deterministic. Every step and formula: docs/shifts.md."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .placement import locate, median
from .rank_scan import Array, Split, ranks_many, scan_many, scan_windows_many

Placed = tuple[int, float, float, int, int]  # a split (index, Z, p) and its range (earliest, latest)

ALPHA = 0.005     # false alarms: measured 0.1 % of 80-run series without a shift (docs/shifts.md)
MIN_SIZE = 5      # runs each side: fewer consecutive odd runs are outliers, never a shift


@dataclass(frozen=True, slots=True)
class Shift:
    """A level shift: ``index`` the first point of the new level and ``earliest <= index <= latest``
    its 95 % range, as indexes into the input. Every field: docs/shifts.md."""

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
    """Level shifts in ``values`` (in run order), earliest first (``detect_many`` of one series)."""
    return detect_many([values], alpha=alpha, min_size=min_size)[0]


def detect_many(series: Sequence[Sequence[float]], *, alpha: float = ALPHA,
                min_size: int = MIN_SIZE) -> list[tuple[Shift, ...]]:
    """Level shifts in each series (values in run order), earliest first; the series are tested
    together, each step's scans over all of them at once (``rank_scan``).

    Non-finite values (NaN, inf) carry no level and are skipped; indexes still refer to the
    input. Fewer than ``2 * min_size`` finite values, or a constant series, give no shift.
    """
    if min_size < 1:
        raise ValueError(f"min_size must be at least 1, got {min_size}")
    arrays = [np.asarray(values, dtype=float) for values in series]
    kept = [np.flatnonzero(np.isfinite(values)) for values in arrays]
    xs = [values[indexes] for values, indexes in zip(arrays, kept, strict=True)]
    placed = _prune(xs, _segment(xs, alpha, min_size), alpha, min_size)
    return [tuple(_shift(x, k.tolist(), splits, j) for j in range(len(splits)))
            for x, k, splits in zip(xs, kept, placed, strict=True)]


Span = tuple[int, int, int]  # (series, start, end)


def _segment(xs: list[Array], alpha: float, min_size: int) -> list[list[Split]]:
    """Binary segmentation: every significant split, searched again on both its sides; each
    round tests every span still open, of every series, at once."""
    found: list[list[Split]] = [[] for _ in xs]
    todo: list[Span] = [(i, 0, len(x)) for i, x in enumerate(xs)]
    while todo:
        tested = _test([xs[i][start:end] for i, start, end in todo], min_size, alpha)
        opened = []
        for (i, start, end), relative in zip(todo, tested, strict=True):
            splits = [(start + at, z, p) for at, z, p in relative]
            found[i] += splits
            cuts = [start] + [at for at, _, _ in splits] + [end]
            opened += [(i, a, b) for a, b in zip(cuts, cuts[1:], strict=False)] if splits else []
        todo = opened
    return [sorted(splits) for splits in found]


def _prune(xs: list[Array], found: list[list[Split]], alpha: float, min_size: int) -> list[list[Placed]]:
    """Re-test and re-place each split on the span between its neighbours (it was found before
    they were known); drop the weakest while any fails, until every one left holds. Each round
    re-tests the splits of every series not settled yet at once."""
    settled: list[list[Placed]] = [[] for _ in xs]
    open_ = {i: splits for i, splits in enumerate(found) if splits}
    while open_:
        jobs = [(i, j, [0] + [index for index, _, _ in splits] + [len(xs[i])])
                for i, splits in open_.items() for j in range(len(splits))]
        spans = [xs[i][bounds[j]:bounds[j + 2]] for i, j, bounds in jobs]
        retested: dict[int, list[Placed]] = {}
        for (i, j, bounds), span, split in zip(jobs, spans, scan_many(ranks_many(spans), min_size, alpha),
                                          strict=True):
            if split is None:  # no split holds: its place is never used
                retested.setdefault(i, []).append((bounds[j + 1], 0.0, 1.0, bounds[j + 1], bounds[j + 1]))
                continue
            placed = locate(span, bounds[j + 1] - bounds[j], min_size)
            ok = split[2] < alpha and median(span[:placed.at]) != median(span[placed.at:])
            retested.setdefault(i, []).append((bounds[j] + placed.at, split[1], split[2] if ok else 1.0,
                                               bounds[j] + placed.first, bounds[j] + placed.last))
        for i, placed_splits in retested.items():
            weakest = max(range(len(placed_splits)), key=lambda j: placed_splits[j][2])
            if placed_splits[weakest][2] < alpha:
                settled[i] = placed_splits
                del open_[i]
            elif len(open_[i]) == 1:
                del open_[i]
            else:
                open_[i] = open_[i][:weakest] + open_[i][weakest + 1:]
    return settled


def _test(segments: list[Array], min_size: int, alpha: float) -> list[list[Split]]:
    """The placed split(s) of each segment: a significant single shift, else a significant
    window (a level that came and went back), each at ``alpha / 2``; none when neither holds."""
    found: list[list[Split]] = [[] for _ in segments]
    unsplit, ranks = [], ranks_many(segments)
    for index, (segment, split) in enumerate(zip(segments, scan_many(ranks, min_size, alpha / 2), strict=True)):
        if split is not None and split[2] < alpha / 2:
            at = locate(segment, split[0], min_size).at
            if median(segment[:at]) != median(segment[at:]):  # ties: a lone odd value is no shift
                found[index] = [(at, split[1], split[2])]
                continue
        unsplit.append(index)
    windows = scan_windows_many([ranks[i] for i in unsplit], min_size, below=alpha / 2)
    for index, window in zip(unsplit, windows, strict=True):
        if window is not None and window[3] < alpha / 2:
            start, end, z, p = window
            found[index] = [(start, z, p), (end, z, p)]
    return found


def _shift(xs: Array, kept: list[int], splits: list[Placed], j: int) -> Shift:
    """The ``Shift`` for ``splits[j]``: medians up to the neighbouring splits, input indexes."""
    start = splits[j - 1][0] if j else 0
    end = splits[j + 1][0] if j + 1 < len(splits) else len(xs)
    index, z, p, earliest, latest = splits[j]
    before, after = median(xs[start:index]), median(xs[index:end])
    change = after / before - 1 if before else float("nan")
    return Shift(kept[index], before, after, change, z, p, kept[earliest], kept[latest])
