"""Placing a split precisely once the rank scan has found one, with robust levels and noise."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import exp

from ..stats import median

CAP = 3.0          # residuals beyond CAP noise sigmas count as CAP sigmas when placing a split
DIFF_MAD = 0.9539  # median |x_i - x_(i-1)| / sigma for Gaussian noise: 0.6745 * sqrt(2)
CONFIDENCE = 0.95  # the share of a split's posterior its range of candidate first runs holds


@dataclass(frozen=True, slots=True)
class Placement:
    """A placed split: ``at`` the posterior median (points before the split), ``first`` and
    ``last`` the ends of the central ``confidence`` interval of the same posterior
    (``first <= at <= last``): the splits the data cannot tell apart at that confidence."""

    at: int
    first: int
    last: int


def locate(segment: Sequence[float], t: int, min_size: int, rounds: int = 3,
           confidence: float = CONFIDENCE) -> Placement:
    """Place a split: the posterior median of ``s`` with likelihood ``exp(-C(s) / (2 sigma^2))``,
    ``C(s) = sum_{i<s} rho(x_i - a) + sum_{i>=s} rho(x_i - b)``, ``rho(r) = min(r^2, (CAP
    sigma)^2)``; ``a`` and ``b`` the levels either side of the current split (``level``),
    ``sigma`` the noise scale (``noise_scale``); repeated while the split moves. The interval
    is the central ``confidence`` of the last posterior (``interval``).

    Capping makes the likelihood that of Gaussian noise with rare arbitrary outliers; the
    posterior median rather than the maximum minimizes the expected distance to the true split.
    """
    sigma = noise_scale(segment)
    cap = CAP * sigma
    for _ in range(rounds):
        costs = _costs(segment, level(segment[:t], cap), level(segment[t:], cap), cap, min_size)
        weights = posterior(costs, sigma)
        moved = min_size + quantile(weights, 0.5)
        if moved == t:
            break
        t = moved
    first, last = interval(weights, confidence)
    return Placement(t, min_size + first, min_size + last)


def _costs(segment: Sequence[float], a: float, b: float, cap: float, min_size: int) -> list[float]:
    """``C(s) - sum_i rho(x_i - a)`` for every allowed split ``s = min_size .. k - min_size``
    (item ``s - min_size``; a running sum, O(k))."""
    votes = [_rho(x - b, cap) - _rho(x - a, cap) for x in segment]
    cost = sum(votes[min_size:])
    costs = [cost]
    for s in range(min_size + 1, len(segment) - min_size + 1):
        cost -= votes[s - 1]
        costs.append(cost)
    return costs


def posterior(costs: Sequence[float], sigma: float) -> list[float]:
    """The split's posterior under a flat prior over the allowed splits, unnormalized:
    ``exp(-(C(s) - min C) / (2 sigma^2))``. With no noise (``sigma`` 0) every split of the least
    cost weighs 1 and any other 0."""
    low = min(costs)
    if sigma <= 0:
        return [float(c == low) for c in costs]
    return [exp(-(c - low) / (2 * sigma * sigma)) for c in costs]


def quantile(weights: Sequence[float], share: float) -> int:
    """The first item at which the running sum of ``weights`` reaches ``share`` of their total."""
    target, running = sum(weights) * share, 0.0
    for item, weight in enumerate(weights):
        running += weight
        if running >= target:
            return item
    return len(weights) - 1


def interval(weights: Sequence[float], confidence: float) -> tuple[int, int]:
    """The central ``confidence`` interval of a posterior over items (inclusive ends): the
    first item where the running sum from the left exceeds ``(1 - confidence) / 2`` of the total
    and the last where the running sum from the right does. At most that share lies beyond each
    end, so the interval holds at least ``confidence``; it holds the median."""
    tail = sum(weights) * (1 - confidence) / 2
    return _beyond(weights, tail), len(weights) - 1 - _beyond(weights[::-1], tail)


def _beyond(weights: Sequence[float], tail: float) -> int:
    running = 0.0
    for item, weight in enumerate(weights):
        running += weight
        if running > tail:
            return item
    return len(weights) - 1


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


