"""Rank scans for a level shift in many segments at once, and their p-values corrected for the scan.

``scan_many`` looks at every single split of each segment, ``scan_windows_many`` at every window (a
level that came and went back); segments of one length are stacked and scanned together in numpy, so
the work is array passes over all series, not a loop per series. ``scan`` is the same for one
segment. Both work on centred mid-ranks, so their null distribution does not depend
on the noise: its shape, its level, outliers. The p-values are Siegmund's approximations for the
maximum of a standardized Gaussian bridge (one parameter) or field (two), with his correction for
discrete time, capped by Bonferroni. Formulas: docs/shifts.md.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from math import erf, pi, sqrt
from typing import Any, TypeVar

import numpy as np

WIDEST = 250  # longest window scan_windows_many looks at (runs): bounds its cost at O(k * WIDEST)

Split = tuple[int, float, float]  # (points before the split, Z, p)
Window = tuple[int, int, float, float]  # (i, j, Z, p): the window [i, j)
Array = Any  # a numpy array (numpy's own types are not worth their import-time cost in the hints)
T = TypeVar("T")

_erf_each = np.frompyfunc(erf, 1, 1)  # math's erf on each item: numpy has none


def _erf(x: Array) -> Array:
    return np.asarray(_erf_each(x), dtype=float)


def scan(segment: Sequence[float], min_size: int) -> Split | None:
    """The rank scan of one segment (``scan_many`` of its ranks)."""
    return scan_many(ranks_many([segment]), min_size)[0]


def ranks_many(segments: Sequence[Sequence[float]]) -> list[Array]:
    """Each segment's centred mid-ranks (``centred_ranks``), what both scans take: a segment scanned
    both ways is ranked once."""
    found = _by_length(segments, 1, lambda stacked: list(centred_ranks(stacked)))
    return [np.empty(0) if ranks is None else ranks for ranks in found]


def scan_many(ranks: Sequence[Array], min_size: int, below: float = 1.0) -> list[Split | None]:
    """The rank scan of each segment, given its centred ranks (``ranks_many``): (t, Z_t, p) at the
    largest ``|Z_t|`` (docs/shifts.md, "Is there a shift?"); None for a segment shorter than ``2 *
    min_size`` or constant, and, with ``below``, for one whose p-value cannot be below it (``p_floor``:
    its p-value is not computed)."""
    return _by_length(ranks, 2 * min_size, lambda centred: _scan(centred, min_size, below))


def scan_windows_many(ranks: Sequence[Array], min_size: int,
                      widest: int = WIDEST, below: float = 1.0) -> list[Window | None]:
    """The window scan of each segment, given its centred ranks (``ranks_many``): (i, j, Z, p) for
    the window ``[i, j)`` whose ranks differ most from the rest (docs/shifts.md, "A level that came
    back?"). With ``below``, a segment whose window cannot have a p-value below it may give None (the
    scan skips the windows too weak to)."""
    return _by_length(ranks, 3 * min_size, lambda centred: _windows(centred, min_size, widest, below))


def _by_length(segments: Sequence[Sequence[float]], shortest: int,
               scan_stack: Callable[[Array], list[T | None]]) -> list[T | None]:
    """``scan_stack`` over the segments stacked by length (rows of one length at a time); None for
    a segment shorter than ``shortest``."""
    found: list[T | None] = [None] * len(segments)
    lengths: dict[int, list[int]] = {}
    for index, segment in enumerate(segments):
        lengths.setdefault(len(segment), []).append(index)
    for k, indexes in lengths.items():
        if k < shortest:
            continue
        stacked = np.array([np.asarray(segments[i], dtype=float) for i in indexes]).reshape(len(indexes), k)
        for index, result in zip(indexes, scan_stack(stacked), strict=True):
            found[index] = result
    return found


def _scan(centred: Array, min_size: int, below: float) -> list[Split | None]:
    rows, k = centred.shape
    total = np.cumsum(centred * centred, axis=1)[:, -1]
    steps = np.arange(min_size, k - min_size + 1)
    sums = np.cumsum(centred, axis=1)[:, steps - 1]
    with np.errstate(divide="ignore", invalid="ignore"):  # a constant row (total 0) is None below
        z = sums * np.sqrt(k * (k - 1) / (steps * (k - steps) * total[:, None]))
    best = np.argmax(np.abs(z), axis=1)  # the first of equal |Z|, as a scan left to right keeps
    best_z = z[np.arange(rows), best]
    found = (total > 0) & (best_z != 0)
    if below < 1:
        found[found] = p_floor(np.abs(best_z[found]), k, min_size) < below
    p = np.ones(rows)
    p[found] = p_value(np.abs(best_z[found]), k, min_size)
    return [(int(steps[t]), float(zv), float(pv)) if ok else None
            for t, zv, pv, ok in zip(best.tolist(), best_z.tolist(), p.tolist(), found.tolist(), strict=True)]


def _windows(centred: Array, min_size: int, widest: int, below: float) -> list[Window | None]:
    """The window scan of the rows, one window length at a time: each length's largest and smallest
    window sum per row, kept where its ``|Z|`` beats the best so far (the first of equal ones, as a
    scan over growing lengths and then positions keeps). The lengths go in groups of similar ones
    (``_groups``), each scanned only in the rows where a bound on its ``|Z|`` (``_bound``) reaches
    both the best so far and the weakest ``|Z|`` whose p-value can be below ``below``; where the
    best window starts is looked up once, for the best length (``_starts``)."""
    rows, k = centred.shape
    total = np.cumsum(centred * centred, axis=1)[:, -1]
    prefix = np.concatenate([np.zeros((rows, 1)), np.cumsum(centred, axis=1)], axis=1)
    inner = prefix[:, min_size:k - min_size + 1]  # S_i for i = m .. k-m
    best_z, best_top, width_of = np.zeros(rows), np.zeros(rows), np.zeros(rows, dtype=int)
    at_least = _weakest(below, k, min_size, widest) if below < 1 else 0.0
    groups = _groups(range(min_size, min(widest, k - 2 * min_size) + 1))
    reach = _reach(inner, max((len(group) for group in groups), default=1))
    with np.errstate(divide="ignore", invalid="ignore"):  # a constant row (total 0) is None below
        scale = np.sqrt(k * (k - 1) / total)  # |Z| = |window sum| * scale / sqrt(L (k - L))
        for group in groups:
            bound = _bound(inner, reach, group[0], group[-1]) * scale * (1 + 1e-9) / sqrt(
                min(group[0] * (k - group[0]), group[-1] * (k - group[-1])))
            live = np.flatnonzero(bound >= np.maximum(np.abs(best_z), at_least))
            if len(live):
                z, top = _group_z(inner[live], total[live], k, group)
                first = np.argmax(np.abs(z), axis=1)  # the first length of the group's largest |Z|
                pick = np.arange(len(live)), first
                better = np.abs(z[pick]) > np.abs(best_z[live])
                best_z[live[better]], best_top[live[better]] = z[pick][better], top[pick][better]
                width_of[live[better]] = np.asarray(group)[first[better]]
    found = (total > 0) & (width_of > 0) & (np.abs(best_z) >= at_least)
    p = np.ones(rows)
    p[found] = window_p_value(np.abs(best_z[found]), k, min_size, widest)
    start = _starts(inner, found, width_of, best_top) + min_size
    return [(s, s + w, zv, pv) if ok else None
            for s, w, zv, pv, ok in zip(start.tolist(), width_of.tolist(), best_z.tolist(), p.tolist(),
                                        found.tolist(), strict=True)]


def _group_z(sums_of: Array, total_of: Array, k: int, group: range) -> tuple[Array, Array]:
    """Each row's ``Z`` at each length of the group (a column per length), and the window sum it
    is of: the largest window sum, or the smallest where its magnitude is larger."""
    n = sums_of.shape[1]
    high, low = np.empty((len(sums_of), len(group))), np.empty((len(sums_of), len(group)))
    for column, width in enumerate(group):
        sums = sums_of[:, width:] - sums_of[:, :n - width]
        high[:, column], low[:, column] = sums.max(axis=1), sums.min(axis=1)
    top = np.where(high >= -low, high, low)
    widths = np.asarray(group)
    return top * np.sqrt(k * (k - 1) / (widths * (k - widths) * total_of[:, None])), top


def _starts(inner: Array, found: Array, width_of: Array, top: Array) -> Array:
    """Where each found row's best window starts (in ``inner``): the first window of its length
    whose sum is ``top``; 0 for the other rows."""
    start = np.zeros(len(inner), dtype=int)
    for row in np.flatnonzero(found).tolist():
        width = int(width_of[row])
        sums = inner[row, width:] - inner[row, :inner.shape[1] - width]
        start[row] = int(np.argmax(sums == top[row]))
    return start


@lru_cache(maxsize=4096)
def _weakest(below: float, k: int, min_size: int, widest: int) -> float:
    """A ``|Z|`` below which every window's p-value is at least ``below`` (``window_p_value`` falls as
    ``|Z|`` grows), found by halving to within 0.01."""
    low, high = 0.0, 64.0
    while high - low > 0.01:
        middle = (low + high) / 2
        low, high = (middle, high) if window_p_value(middle, k, min_size, widest) >= below else (low, middle)
    return low


def _groups(widths: range) -> list[range]:
    """The window lengths in groups whose longest is less than twice its shortest (at least 4
    lengths each): the bound of a group is at most about ``sqrt(2)`` above its best; a group's
    lengths cost a few array passes each once it is scanned, less than the bounds of more groups."""
    groups, first = [], widths.start
    while first < widths.stop:
        last = min(widths.stop, max(first + 4, first * 2))
        groups.append(range(first, last))
        first = last
    return groups


def _reach(inner: Array, longest: int) -> dict[int, tuple[Array, Array]]:
    """For each power of two ``p`` up to ``longest``: the largest and smallest of ``inner[i:i+p]``
    (cut at the row's end) for every ``i``."""
    found = {1: (inner, inner)}
    p = 1
    while 2 * p <= longest:
        made = []
        for table, pick in zip(found[p], (np.maximum, np.minimum), strict=True):
            wider = np.empty_like(table)
            pick(table[:, :-p], table[:, p:], out=wider[:, :-p])
            wider[:, -p:] = table[:, -p:]
            made.append(wider)
        p *= 2
        found[p] = made[0], made[1]
    return found


def _bound(inner: Array, reach: dict[int, tuple[Array, Array]], shortest: int, longest: int) -> Array:
    """Each row's largest ``|S_j - S_i|`` over the windows ``[i, j)`` of ``shortest`` to ``longest``
    (and perhaps some shorter ones: an upper bound of the group's window sums): the ends are two
    spans of a power of two, the second ending at the longest (at the row's end for the starts
    past the first ``fits``, whose longest window would not fit)."""
    n = inner.shape[1]
    count, fits = n - shortest, max(0, n - longest)
    p = 1 << (longest - shortest + 1).bit_length() - 1
    high, low = np.empty((len(inner), count)), np.empty((len(inner), count))  # S_j - S_i at the ends
    for table, pick, out in zip(reach[p], (np.maximum, np.minimum), (high, low), strict=True):
        pick(table[:, shortest:shortest + fits], table[:, longest - p + 1:longest - p + 1 + fits], out=out[:, :fits])
        pick(table[:, shortest + fits:], table[:, n - p:n - p + 1], out=out[:, fits:])
        out -= inner[:, :count]
    return np.maximum(high.max(axis=1), -low.min(axis=1))


def centred_ranks(stacked: Array) -> Array:
    """Each row's mid-ranks (tied values share the mean of their ranks) minus their mean ``(k + 1) / 2``."""
    rows, k = stacked.shape
    order = np.argsort(stacked, axis=1)  # tied values get one rank: their order does not matter
    ordered = np.take_along_axis(stacked, order, axis=1)
    starts = np.ones((rows, k), dtype=bool)
    starts[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    ends = np.ones((rows, k), dtype=bool)
    ends[:, :-1] = starts[:, 1:]
    place = np.arange(k)
    first = np.maximum.accumulate(np.where(starts, place, 0), axis=1)  # of each value's run of ties
    last = np.minimum.accumulate(np.where(ends, place, k - 1)[:, ::-1], axis=1)[:, ::-1]
    centred = np.empty((rows, k))
    np.put_along_axis(centred, order, (first + last) / 2 + 1 - (k + 1) / 2, axis=1)
    return centred


def p_value(b: Any, k: int, min_size: int) -> Any:
    """P(max_t |Z_t| >= b) in a segment of ``k`` points without a shift (``b`` a number or an array
    of them): ``min(1, Bonferroni, Siegmund)``, docs/shifts.md ("How surprising is the largest b?").
    One split (``k = 2m``) gives the exact normal tail."""
    b = np.asarray(b, dtype=float)
    tail = 2.0 * _upper_tail(b)
    b = np.maximum(b, 1.0)  # b phi(b) peaks at 1: the crossing term is no smaller below it
    density = b * np.exp(-b * b / 2) / sqrt(2 * pi)
    steps = np.arange(min_size, k - min_size)
    weights = k / (steps * (k - steps))
    crossings = density * (weights * nu(b[..., None] * np.sqrt(weights))).sum(axis=-1)
    found = np.minimum(np.minimum(1.0, (len(steps) + 1) * tail), tail + crossings)
    return float(found) if found.ndim == 0 else found


def p_floor(b: Array, k: int, min_size: int) -> Array:
    """A lower bound of ``p_value(b, k, min_size)`` (``b`` an array) at the cost of a few numbers a
    segment: each term of Siegmund's sum at most as large as its largest (``nu`` falls as its
    argument grows, which is largest at the first split); below a level only where ``p_value``
    may be (the scan skips the rest: ``scan_many``'s ``below``)."""
    b = np.asarray(b, dtype=float)
    steps = np.arange(min_size, k - min_size)
    if not len(steps):
        return p_value(b, k, min_size)
    tail = 2.0 * _upper_tail(b)
    b = np.maximum(b, 1.0)
    weights = k / (steps * (k - steps))
    least = b * np.exp(-b * b / 2) / sqrt(2 * pi) * weights.sum() * nu(b * sqrt(weights.max()))
    return np.minimum(np.minimum(1.0, (len(steps) + 1) * tail), tail + least) * (1 - 1e-9)


def window_p_value(b: Any, k: int, min_size: int, widest: int = 10**9) -> Any:
    """P(max over the windows ``scan_windows_many`` looks at of |Z| >= b) in a segment of ``k``
    points without a shift (``b`` a number or an array of them): ``min(1, Bonferroni, Siegmund)``,
    docs/shifts.md ("A level that came back?")."""
    b = np.asarray(b, dtype=float)
    widths = np.arange(min_size, min(widest, k - 2 * min_size) + 1)
    counts = k - 2 * min_size - widths + 1
    tail = 2.0 * _upper_tail(b)
    b = np.maximum(b, sqrt(3))  # b^3 phi(b) peaks at sqrt(3): as in p_value
    density = b ** 3 * np.exp(-b * b / 2) / sqrt(2 * pi)
    terms = counts * k * k / (2.0 * widths * widths * (k - widths) ** 2.0)
    field = density * (terms * nu(b[..., None] * np.sqrt(k / (widths * (k - widths)))) ** 2).sum(axis=-1)
    found = np.minimum(np.minimum(1.0, counts.sum() * tail), tail + field)
    return float(found) if found.ndim == 0 else found


def nu(x: Any) -> Any:
    """Siegmund's correction for watching a continuous process at discrete times (elementwise,
    docs/shifts.md); 1 for ``x <= 0``."""
    x = np.asarray(x, dtype=float)
    positive = np.where(x > 0, x, 2.0)  # (any positive number: its result is replaced by 1)
    half = positive / 2
    cdf = 0.5 * (1 + _erf(half / sqrt(2)))
    pdf = np.exp(-half * half / 2) / sqrt(2 * pi)
    found = np.where(x > 0, (2 / positive) * (cdf - 0.5) / (half * cdf + pdf), 1.0)
    return float(found) if found.ndim == 0 else found


def _upper_tail(b: Array) -> Array:
    return 0.5 * (1 - _erf(b / sqrt(2)))
