"""Small statistics used across the pipeline: median, spread, an exact permutation test, least squares.

No scipy: the test is a two-sided permutation test on the difference of means, exact for the
small capture counts profiles come in (all splits enumerated up to 20,000), sampled beyond that
with a fixed seed so results are reproducible.
"""

from __future__ import annotations

import math
from itertools import combinations
from math import comb
from typing import NamedTuple

EXACT_LIMIT = 20_000
SAMPLES = 20_000
MAD_SIGMA = 1.4826  # the median absolute deviation times this is a normal distribution's standard deviation


def median(values: list[float]) -> float:
    """The median (not ``statistics``: it is slow to import for a command line)."""
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2


def robust_sigma(values: list[float]) -> float:
    """``1.4826 * median(|x - median|)``: a standard deviation outliers do not move."""
    middle = median(values)
    return MAD_SIGMA * median([abs(v - middle) for v in values])


def spread(values: list[float]) -> tuple[float, float]:
    return min(values), max(values)


def permutation_p_value(a: list[float], b: list[float], min_size: int = 2) -> float | None:
    """Two-sided p-value that ``a`` and ``b`` share a distribution; None with fewer than
    ``min_size`` values on a side (1: one new value against many, as a history baseline allows)."""
    if len(a) < min_size or len(b) < min_size or len(a) + len(b) < 3:
        return None
    pooled, n = a + b, len(a)
    observed = abs(_mean(a) - _mean(b))
    total = sum(pooled)
    if comb(len(pooled), n) <= EXACT_LIMIT:
        splits = [list(c) for c in combinations(range(len(pooled)), n)]
    else:
        import random

        rng = random.Random(0)
        splits = [rng.sample(range(len(pooled)), n) for _ in range(SAMPLES)]
    extreme = 0
    for split in splits:
        first = sum(pooled[i] for i in split)
        diff = abs(first / n - (total - first) / (len(pooled) - n))
        extreme += diff >= observed - 1e-12 * max(abs(observed), 1.0)
    return extreme / len(splits)


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


class LinearFit(NamedTuple):
    """``y = intercept + slope * x`` by ordinary least squares, with R^2 and residuals (y - fit)."""

    intercept: float
    slope: float
    r2: float | None          # None when y does not vary (nothing to explain)
    residuals: tuple[float, ...]

    def at(self, x: float) -> float:
        return self.intercept + self.slope * x


def linear_fit(xs: list[float], ys: list[float]) -> LinearFit | None:
    """Least squares through the points; None with fewer than two distinct x values, or when
    a value is not finite or the fitted line is beyond a float.

    Computed on values scaled into [-1, 1] (by the largest magnitude of each axis), so no square
    or product overflows whatever finite values come in (``1e308`` squared raised OverflowError),
    then scaled back."""
    n = len(xs)
    if n < 2 or len(set(xs)) < 2 or not all(map(math.isfinite, [*xs, *ys])):
        return None
    sx, sy = max(map(abs, xs)), max(map(abs, ys)) or 1.0
    u, v = [x / sx for x in xs], [y / sy for y in ys]
    mean_u, mean_v = sum(u) / n, sum(v) / n
    suu = sum((a - mean_u) * (a - mean_u) for a in u)
    if suu == 0:  # distinct x values that differ below a float's resolution once scaled
        return None
    slope_s = sum((a - mean_u) * (b - mean_v) for a, b in zip(u, v, strict=True)) / suu
    intercept_s = mean_v - slope_s * mean_u
    slope, intercept = slope_s * (sy / sx), intercept_s * sy
    residuals = tuple((b - (intercept_s + slope_s * a)) * sy for a, b in zip(u, v, strict=True))
    if not all(map(math.isfinite, (slope, intercept, *residuals))):
        return None
    total = sum((b - mean_v) * (b - mean_v) for b in v)
    r2 = 1 - sum((b - (intercept_s + slope_s * a)) ** 2 for a, b in zip(u, v, strict=True)) / total \
        if total > 0 else None
    return LinearFit(intercept, slope, r2, residuals)
