"""Placing a split precisely once the rank scan has found one, with robust levels and noise."""

from __future__ import annotations

from collections.abc import Sequence
from math import exp

from ..stats import median

CAP = 3.0          # residuals beyond CAP noise sigmas count as CAP sigmas when placing a split
DIFF_MAD = 0.9539  # median |x_i - x_(i-1)| / sigma for Gaussian noise: 0.6745 * sqrt(2)


def locate(segment: Sequence[float], t: int, min_size: int, rounds: int = 3) -> int:
    """Place a split: the posterior median of ``s`` with likelihood ``exp(-C(s) / (2 sigma^2))``,
    ``C(s) = sum_{i<s} rho(x_i - a) + sum_{i>=s} rho(x_i - b)``, ``rho(r) = min(r^2, (CAP
    sigma)^2)``; ``a`` and ``b`` the levels either side of the current split (``level``),
    ``sigma`` the noise scale (``noise_scale``); repeated while the split moves.

    Capping makes the likelihood that of Gaussian noise with rare arbitrary outliers; the
    posterior median rather than the maximum minimizes the expected distance to the true split.
    """
    sigma = noise_scale(segment)
    cap = CAP * sigma
    for _ in range(rounds):
        costs = _costs(segment, level(segment[:t], cap), level(segment[t:], cap), cap, min_size)
        moved = _posterior_median(costs, sigma) if sigma > 0 else min(costs, key=costs.__getitem__)
        if moved == t:
            break
        t = moved
    return t


def _costs(segment: Sequence[float], a: float, b: float, cap: float, min_size: int) -> dict[int, float]:
    """``C(s) - sum_i rho(x_i - a)`` for every allowed split ``s`` (a running sum, O(k))."""
    votes = [_rho(x - b, cap) - _rho(x - a, cap) for x in segment]
    cost = sum(votes[min_size:])
    costs = {min_size: cost}
    for s in range(min_size + 1, len(segment) - min_size + 1):
        cost -= votes[s - 1]
        costs[s] = cost
    return costs


def _posterior_median(costs: dict[int, float], sigma: float) -> int:
    low = min(costs.values())
    weights = {s: exp(-(c - low) / (2 * sigma * sigma)) for s, c in costs.items()}
    half, running = sum(weights.values()) / 2, 0.0
    for s in sorted(weights):
        running += weights[s]
        if running >= half:
            return s
    return max(weights)


def _rho(r: float, cap: float) -> float:
    """Capped squared residual; with no noise at all (``cap`` 0), 1 for any residual."""
    return min(r * r, cap * cap) if cap > 0 else float(r != 0)


def level(values: Sequence[float], cap: float) -> float:
    """A segment's level: the mean of its values within ``cap`` of their median (the median's
    robustness, nearly the mean's precision)."""
    middle = median(list(values))
    near = [x for x in values if abs(x - middle) <= cap]
    return sum(near) / len(near) if near else middle


def noise_scale(values: Sequence[float]) -> float:
    """Robust noise sigma: ``median |x_i - x_(i-1)| / 0.9539``. A level shift spoils one
    difference and an outlier two, which the median ignores."""
    if len(values) < 2:
        return 0.0
    return median([abs(y - x) for x, y in zip(values, values[1:], strict=False)]) / DIFF_MAD


