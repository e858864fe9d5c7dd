"""Small statistics used across the pipeline: median, spread, an exact permutation test, least squares.

No scipy: the test is a two-sided permutation test on the difference of means, exact for the
small capture counts profiles come in (all splits enumerated up to 20,000), sampled beyond that
with a fixed seed so results are reproducible.
"""

from __future__ import annotations

from itertools import combinations
from math import comb
from typing import NamedTuple

from .records import record

EXACT_LIMIT = 20_000
SAMPLES = 20_000


def median(values: list[float]) -> float:
    """The median (pyperf's six lines; ``statistics`` costs 10 ms to import)."""
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2


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



@record
class LinearFit(NamedTuple):
    """``y = intercept + slope * x`` by ordinary least squares, with R^2 and residuals (y - fit)."""

    intercept: float
    slope: float
    r2: float | None          # None when y does not vary (nothing to explain)
    residuals: tuple[float, ...]

    def at(self, x: float) -> float:
        return self.intercept + self.slope * x


def linear_fit(xs: list[float], ys: list[float]) -> LinearFit | None:
    """Least squares through the points; None with fewer than two distinct x values."""
    n = len(xs)
    if n < 2 or len(set(xs)) < 2:
        return None
    mean_x, mean_y = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mean_x) ** 2 for x in xs)
    slope = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / sxx
    intercept = mean_y - slope * mean_x
    residuals = tuple(y - (intercept + slope * x) for x, y in zip(xs, ys, strict=True))
    total = sum((y - mean_y) ** 2 for y in ys)
    r2 = 1 - sum(r * r for r in residuals) / total if total > 0 else None
    return LinearFit(intercept, slope, r2, residuals)
