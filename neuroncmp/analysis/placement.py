"""Placing a split precisely once the rank scan has found one, with robust levels and noise (numpy)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

CAP = 3.0          # residuals beyond CAP noise sigmas count as CAP sigmas when placing a split
DIFF_MAD = 0.9539  # median |x_i - x_(i-1)| / sigma for Gaussian noise: 0.6745 * sqrt(2)
CONFIDENCE = 0.95  # the share of a split's posterior its range of candidate first runs holds

Array = Any  # a numpy array of floats


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
    """Place a split near ``t``: the posterior median of the split under capped squared residuals,
    re-placed up to ``rounds`` times while it moves, and the central ``confidence`` of the last
    posterior (docs/shifts.md, "Where exactly?" and "Which run?")."""
    xs = np.asarray(segment, dtype=float)
    sigma = noise_scale(xs)
    cap = CAP * sigma
    for _ in range(rounds):
        costs = _costs(xs, level(xs[:t], cap), level(xs[t:], cap), cap, min_size)
        weights = posterior(costs, sigma)
        moved = min_size + quantile(weights, 0.5)
        if moved == t:
            break
        t = moved
    first, last = interval(weights, confidence)
    return Placement(t, min_size + first, min_size + last)


def _costs(segment: Array, a: float, b: float, cap: float, min_size: int) -> Array:
    """``C(s) - sum_i rho(x_i - a)`` for every allowed split ``s = min_size .. k - min_size``
    (item ``s - min_size``; a running sum, O(k))."""
    votes = _rho(segment - b, cap) - _rho(segment - a, cap)
    first = np.cumsum(votes[min_size:])[-1]
    return np.subtract.accumulate(np.concatenate([[first], votes[min_size:len(segment) - min_size]]))


def posterior(costs: Array, sigma: float) -> Array:
    """The split's posterior under a flat prior over the allowed splits, unnormalized (docs/shifts.md,
    "Where exactly?"; with no noise every split of the least cost weighs 1 and any other 0)."""
    low = costs.min()
    if sigma <= 0:
        return (costs == low).astype(float)
    return np.exp(-(costs - low) / (2 * sigma * sigma))


def quantile(weights: Array, share: float) -> int:
    """The first item at which the running sum of ``weights`` reaches ``share`` of their total."""
    running = np.cumsum(weights)
    return _first(running >= running[-1] * share)


def interval(weights: Array, confidence: float) -> tuple[int, int]:
    """The central ``confidence`` interval of a posterior over items, inclusive ends (docs/shifts.md,
    "Which run?"): it holds at least ``confidence``, and the median."""
    running = np.cumsum(weights)
    tail = running[-1] * (1 - confidence) / 2
    return _first(running > tail), len(weights) - 1 - _first(np.cumsum(weights[::-1]) > tail)


def _first(reached: Array) -> int:
    """The first item where ``reached`` holds (the last item when none does)."""
    return int(np.argmax(reached)) if reached.any() else len(reached) - 1


def _rho(r: Array, cap: float) -> Array:
    """Capped squared residual; with no noise at all (``cap`` 0), 1 for any residual."""
    return np.minimum(r * r, cap * cap) if cap > 0 else (r != 0).astype(float)


def level(values: Array, cap: float) -> float:
    """A segment's level: the mean of its values within ``cap`` of their median (the median's
    robustness, nearly the mean's precision)."""
    middle = median(values)
    near = values[np.abs(values - middle) <= cap]
    return float(np.cumsum(near)[-1] / len(near)) if len(near) else middle


def noise_scale(values: Array) -> float:
    """Robust noise sigma from successive differences (docs/shifts.md, "Where exactly?")."""
    if len(values) < 2:
        return 0.0
    return median(np.abs(np.diff(values))) / DIFF_MAD


def median(values: Array) -> float:
    """The median of a non-empty array of numbers: its middle item, or the mean of its two middle
    items (``numpy.median``'s answer, without its checks of axes and NaN, which outweigh the
    work on the many short segments the detector places)."""
    half = len(values) // 2
    if len(values) % 2:
        return float(np.partition(values, half)[half])
    middle = np.partition(values, (half - 1, half))
    return float((middle[half - 1] + middle[half]) / 2)
