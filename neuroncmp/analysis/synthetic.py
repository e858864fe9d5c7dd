"""Synthetic metric histories with known truth, to measure the shift detector against.

The model is what a fleet's nightly profiles look like: a level, Gaussian noise, at most one level
shift, isolated outliers and "noisy node" runs (docs/shifts.md, "Measured": the parameters). Only
``random.Random(seed)`` is used, so a seed gives the same series on every machine.

A generated profile passes the loader's own checks (``ingest.anomalies``, ``ingest.validate``) with
no anomaly: ``consistent`` derives what the profiler derives (each active-time share from its time,
the cycle count from the step time at the base's clock, the dynamic DMA class from its two parts),
keeps an active time within the time it is a share of, and a fraction within 0-100 % (one near 100 %
varies by its distance from 100 %, as a utilization cap does).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..catalog import lookup
from ..ingest.anomalies import DMA_CLASSES, DYNAMIC_DMA, close, share_time
from ..units import FRACTION

if TYPE_CHECKING:
    from .shifts import Shift


@dataclass(frozen=True, slots=True)
class Truth:
    """A generated series and what is true about it.

    ``change_index`` is the first run of the new level (None: no shift); ``change`` the relative
    size of the shift (after / before - 1); ``outliers`` and ``noisy_runs`` the indexes disturbed
    on purpose (neither is a change).
    """

    values: tuple[float, ...]
    change_index: int | None
    change: float
    outliers: tuple[int, ...]
    noisy_runs: tuple[int, ...]


def noisy_runs(rng: random.Random, n: int, rate: float) -> tuple[int, ...]:
    """Indexes of whole runs on a noisy node (shared by every time metric of a history)."""
    return tuple(i for i in range(n) if rng.random() < rate)


def series(rng: random.Random, n: int = 80, *, level: float = 1.0, noise: float = 0.01,
           shift_sigma: float = 0.0, margin: int = 20, outlier_rate: float = 0.015,
           outlier_sigma: tuple[float, float] = (6.0, 10.0), slow_runs: tuple[int, ...] = (),
           slowdown: tuple[float, float] = (0.03, 0.15)) -> Truth:
    """One series of ``n`` runs: noise, an optional shift (sign random), outliers, slow runs.

    ``slow_runs`` are the noisy-node runs (from ``noisy_runs``): their value is multiplied by
    1 + U(``slowdown``), as a slow node makes every time metric of the run slower together.
    """
    sigma = noise * level
    index = rng.randint(margin, n - margin) if shift_sigma and n >= 2 * margin else None
    step = rng.choice((-1.0, 1.0)) * shift_sigma * sigma if index is not None else 0.0
    values, outliers = [], []
    for i in range(n):
        value = level + (step if index is not None and i >= index else 0.0) + rng.gauss(0.0, sigma)
        if rng.random() < outlier_rate:
            value += rng.choice((-1.0, 1.0)) * rng.uniform(*outlier_sigma) * sigma
            outliers.append(i)
        if i in slow_runs:
            value *= 1.0 + rng.uniform(*slowdown)
        values.append(value)
    return Truth(tuple(values), index, step / level, tuple(outliers), tuple(slow_runs))


def found(truth: Truth, indexes: list[int] | tuple[int, ...], within: int) -> bool:
    """Whether a detector that reported changes at ``indexes`` found the true shift within
    ``within`` runs (and, for a series with no shift, whether it stayed silent)."""
    if truth.change_index is None:
        return not indexes
    return any(abs(i - truth.change_index) <= within for i in indexes)


def nearest(truth: Truth, shifts: Sequence[Shift]) -> tuple[Shift, ...]:
    """The reported shift nearest the true one (none when there is no true shift or no report)."""
    if truth.change_index is None or not shifts:
        return ()
    at = truth.change_index
    return (min(shifts, key=lambda s: abs(s.index - at)),)


def held(truth: Truth, shifts: Sequence[Shift]) -> bool:
    """Whether a reported shift's range of candidate first runs (``earliest`` to ``latest``)
    holds the true first run of the new level."""
    at = truth.change_index
    return at is not None and any(s.earliest <= at <= s.latest for s in shifts)


@dataclass(frozen=True, slots=True)
class History:
    """Generated runs of one profile: ``runs[i]`` maps each metric to its value in run ``i``;
    ``shifts`` holds the truth (metric -> (first run of the new level, relative change));
    ``implied`` the metrics derived from a shifted one, which move with it (a share whose time or
    step time shifts, the cycle count with the step time)."""

    runs: tuple[dict[str, float], ...]
    shifts: dict[str, tuple[int, float]]
    noisy_runs: tuple[int, ...]
    implied: tuple[str, ...] = ()


def history(rng: random.Random, base: dict[str, float], n: int, *, varying: set[str],
            slow: set[str], shifts: dict[str, tuple[int, float]], noise: float = 0.01,
            spread: tuple[float, float] = (0.5, 2.0), outlier_rate: float = 0.015,
            noisy_node_rate: float = 0.01) -> History:
    """``n`` runs around ``base``: each metric in ``varying`` gets its own noise level (``noise``
    times U(``spread``)) and outliers, those in ``slow`` are slowed together on noisy-node runs,
    and each metric in ``shifts`` steps by its relative change from its run on. Other metrics stay
    at their base value, as counts and bytes of one compiled graph do. Each run is then made
    ``consistent``: a metric derived from others (``Relations.derived``) follows them, so a shift
    planted on one raises ``ValueError``."""
    related = relations(base)
    planted = sorted(set(shifts) & related.derived)
    if planted:
        raise ValueError(f"shifts on derived metrics {planted}: shift what they are derived from")
    node = noisy_runs(rng, n, noisy_node_rate)
    columns: dict[str, tuple[float, ...]] = {}
    for name in sorted(varying):
        level = base[name]
        near_full = name in related.fractions and level > 0.5  # varies by its distance from 100 %
        truth = series(rng, n, level=1 - level if near_full else level, noise=noise * rng.uniform(*spread),
                       shift_sigma=0.0, outlier_rate=outlier_rate, slow_runs=node if name in slow else ())
        values = tuple(1 - v for v in truth.values) if near_full else truth.values
        index, change = shifts.get(name, (n, 0.0))
        columns[name] = tuple(v * (1 + change) if i >= index else v for i, v in enumerate(values))
    runs = tuple(consistent({name: columns[name][i] if name in columns else value for name, value in base.items()},
                            related) for i in range(n))
    return History(runs, dict(shifts), node, tuple(sorted(related.moved_by(set(shifts)))))


@dataclass(frozen=True, slots=True)
class Relations:
    """What the loader checks between one profile's values, read off a consistent ``base``:
    ``shares`` (each ``X_active_time_percent``, its time and the time it is a share of: the step's,
    or for a DMA class the one the base's share matches), ``cycles_per_second`` (the base's
    ``neuroncore_cycle_count / total_time``, its clock), ``dynamic`` (the dynamic DMA class is the
    sum of its two parts) and ``fractions`` (0-100 %)."""

    shares: tuple[tuple[str, str, str], ...]
    cycles_per_second: float | None
    dynamic: bool
    fractions: frozenset[str]

    @property
    def derived(self) -> set[str]:
        """The metrics computed from others, never varied on their own."""
        cycles = {"neuroncore_cycle_count"} if self.cycles_per_second else set()
        return {share for share, _, _ in self.shares} | cycles | ({DYNAMIC_DMA[0]} if self.dynamic else set())


    def moved_by(self, shifted: set[str]) -> set[str]:
        """The derived metrics whose inputs include one of ``shifted``."""
        moved = {share for share, time, of in self.shares if {time, of} & shifted}
        if self.cycles_per_second and "total_time" in shifted:
            moved.add("neuroncore_cycle_count")
        if self.dynamic and set(DYNAMIC_DMA[1:]) & shifted:
            moved.add(DYNAMIC_DMA[0])
        return moved


def relations(base: Mapping[str, float]) -> Relations:
    """The relations ``base`` (a profile's numeric values by canonical name) has inputs for."""
    total = base.get("total_time")
    shares = []
    for name in sorted(base):
        time = share_time(name)
        if time is None or time not in base or not total:
            continue
        of_dma = name in DMA_CLASSES and base.get("dma_active_time") and not close(base[time] / total, base[name]) \
            and close(base[time] / base["dma_active_time"], base[name])
        shares.append((name, time, "dma_active_time" if of_dma else "total_time"))
    shares.sort(key=lambda share: share[2] != "total_time")  # dma_active_time capped first, then its classes
    cycles = base.get("neuroncore_cycle_count")
    return Relations(tuple(shares), cycles / total if cycles and total else None,
                     all(name in base for name in DYNAMIC_DMA),
                     frozenset(name for name in base if lookup(name).unit == FRACTION))


def consistent(values: dict[str, float], related: Relations) -> dict[str, float]:
    """``values`` (one run) made to pass the loader's checks: fractions within 0-100 %, each active
    time within the time it is a share of and its share derived from them, the cycle count from
    the step time, the dynamic DMA class from its parts. Changes ``values`` and returns it."""
    for name in related.fractions:
        values[name] = min(max(values[name], 0.0), 1.0)
    for share, time, of in related.shares:
        values[time] = min(values[time], values[of])
        values[share] = values[time] / values[of] if values[of] else 0.0
    if related.cycles_per_second:
        values["neuroncore_cycle_count"] = values["total_time"] * related.cycles_per_second
    if related.dynamic:
        values[DYNAMIC_DMA[0]] = values[DYNAMIC_DMA[1]] + values[DYNAMIC_DMA[2]]
    return values
