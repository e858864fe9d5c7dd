"""Rank scans for a level shift in one segment, and their p-values corrected for the scan.

``scan`` looks at every single split, ``scan_windows`` at every window (a level that came and
went back). Both work on centred mid-ranks, so their null distribution does not depend on the
noise: its shape, its level, outliers. The p-values are Siegmund's approximations for the
maximum of a standardized Gaussian bridge (one parameter) or field (two), with his correction for
discrete time, capped by Bonferroni. Formulas: docs/shifts.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import erf, exp, pi, sqrt
from operator import sub

WIDEST = 250  # longest window scan_windows looks at (runs): bounds its cost at O(k * WIDEST)

Split = tuple[int, float, float]  # (points before the split, Z, p)


def scan(segment: Sequence[float], min_size: int) -> Split | None:
    """The rank scan of one segment: (t, Z_t, p) at the largest ``|Z_t|``, ``t`` points before
    the split; None if the segment is shorter than ``2 * min_size`` or constant."""
    k = len(segment)
    if k < 2 * min_size:
        return None
    centred = centred_ranks(segment)
    total = sum(c * c for c in centred)
    if total <= 0.0:
        return None
    best_t, best_z, running = 0, 0.0, sum(centred[:min_size - 1])
    for t in range(min_size, k - min_size + 1):
        running += centred[t - 1]
        z = running * sqrt(k * (k - 1) / (t * (k - t) * total))
        if abs(z) > abs(best_z):
            best_t, best_z = t, z
    if best_t == 0:
        return None
    return best_t, best_z, p_value(abs(best_z), k, min_size)


def scan_windows(segment: Sequence[float], min_size: int,
                 widest: int = WIDEST) -> tuple[int, int, float, float] | None:
    """The window scan: (i, j, Z, p) for the window ``[i, j)`` whose ranks differ most from the
    rest, ``Z = (S_j - S_i) / sqrt(L (k-L) / (k (k-1)) * sum c_i^2)``, ``L = j - i`` from
    ``min_size`` to ``widest``, at least ``min_size`` points outside on each side.

    This is circular binary segmentation's statistic: it finds a level that came back (a
    regression fixed later), which a single split can miss.
    """
    k = len(segment)
    if k < 3 * min_size:
        return None
    centred = centred_ranks(segment)
    total = sum(c * c for c in centred)
    if total <= 0.0:
        return None
    prefix = [0.0]
    for c in centred:
        prefix.append(prefix[-1] + c)
    inner = prefix[min_size:k - min_size + 1]  # S_i for i = m .. k-m
    best = (0, 0, 0.0)
    for width in range(min_size, min(widest, k - 2 * min_size) + 1):
        sums = list(map(sub, inner[width:], inner))
        high, low = max(sums), min(sums)
        top = high if high >= -low else low
        z = top * sqrt(k * (k - 1) / (width * (k - width) * total))
        if abs(z) > abs(best[2]):
            start = min_size + sums.index(top)
            best = (start, start + width, z)
    if best[1] == 0:
        return None
    return best[0], best[1], best[2], window_p_value(abs(best[2]), k, min_size, widest)


def centred_ranks(segment: Sequence[float]) -> list[float]:
    """Mid-ranks (tied values share the mean of their ranks) minus their mean ``(k + 1) / 2``."""
    k = len(segment)
    order = sorted(range(k), key=segment.__getitem__)
    centred = [0.0] * k
    i = 0
    while i < k:
        j = i
        while j + 1 < k and segment[order[j + 1]] == segment[order[i]]:
            j += 1
        rank = (i + j) / 2 + 1 - (k + 1) / 2
        for m in range(i, j + 1):
            centred[order[m]] = rank
        i = j + 1
    return centred


def p_value(b: float, k: int, min_size: int) -> float:
    """P(max_t |Z_t| >= b) in a segment of ``k`` points without a shift, ``t = m .. k-m``.

    ``min(1, Bonferroni, Siegmund)``. Bonferroni: ``(k - 2m + 1) * 2 (1 - Phi(b))``. Siegmund:
    the chance of starting above ``b`` plus that of crossing it at each later split,
    ``2 (1 - Phi(b)) + b phi(b) sum_{t=m}^{k-m-1} k / (t (k-t)) * nu(b sqrt(k / (t (k-t))))``:
    the two-sided tail of the maximum of a standardized Brownian bridge watched at ``k``
    evenly spaced times. One split (``k = 2m``) gives the exact normal tail.
    """
    tail = 2.0 * _upper_tail(b)
    b = max(b, 1.0)  # b phi(b) peaks at 1: the crossing term is no smaller below it
    density = b * exp(-b * b / 2) / sqrt(2 * pi)
    steps = range(min_size, k - min_size)
    crossings = density * sum(k / (t * (k - t)) * nu(b * sqrt(k / (t * (k - t)))) for t in steps)
    return min(1.0, (len(steps) + 1) * tail, tail + crossings)


def window_p_value(b: float, k: int, min_size: int, widest: int = 10**9) -> float:
    """P(max over windows of |Z| >= b) in a segment of ``k`` points without a shift.

    ``min(1, Bonferroni, Siegmund)`` over the windows ``scan_windows`` looks at, ``n_L = k - 2m
    - L + 1`` of each length ``L``. Bonferroni: ``sum_L n_L * 2 (1 - Phi(b))``. Siegmund:
    ``2 (1 - Phi(b)) + b^3 phi(b) sum_L n_L k^2 / (2 L^2 (k-L)^2) * nu(b sqrt(k / (L (k-L))))^2``,
    the two-sided tail of a two-parameter Gaussian field (each end of the window moves like the
    single split).
    """
    widths = range(min_size, min(widest, k - 2 * min_size) + 1)
    counts = [k - 2 * min_size - width + 1 for width in widths]
    tail = 2.0 * _upper_tail(b)
    b = max(b, sqrt(3))  # b^3 phi(b) peaks at sqrt(3): as in p_value
    density = b ** 3 * exp(-b * b / 2) / sqrt(2 * pi)
    field = density * sum(n * k * k / (2 * L * L * (k - L) ** 2) * nu(b * sqrt(k / (L * (k - L)))) ** 2
                          for n, L in zip(counts, widths, strict=True))
    return min(1.0, sum(counts) * tail, tail + field)


def nu(x: float) -> float:
    """Siegmund's correction for watching a continuous process at discrete times:
    ``nu(x) = (2/x) (Phi(x/2) - 1/2) / ((x/2) Phi(x/2) + phi(x/2))`` (about ``exp(-0.583 x)``)."""
    if x <= 0.0:
        return 1.0
    half = x / 2
    cdf = 0.5 * (1 + erf(half / sqrt(2)))
    pdf = exp(-half * half / 2) / sqrt(2 * pi)
    return (2 / x) * (cdf - 0.5) / (half * cdf + pdf)


def _upper_tail(b: float) -> float:
    return 0.5 * (1 - erf(b / sqrt(2)))


