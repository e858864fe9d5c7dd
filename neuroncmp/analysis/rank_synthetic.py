"""Generated ranks of one synchronous step, with planted stragglers of known size and cause.

No public multi-rank Neuron capture was found, so ranks are made from one real single-core profile
(``base``) by this model of a data-parallel step whose collectives come at its end:

- rank ``r`` starts at ``s_r`` (host dispatch skew, ``N(0, skew)`` of the step), works for ``O_r``
  outside collectives (the base's step minus its collectives, times ``1 + N(0, noise)``), reaches the
  collectives at ``a_r = s_r + O_r``; a synchronous collective ends together on every rank once the
  last one arrives, plus that rank's transfer ``X_r`` (the base's collective time times
  ``1 + N(0, cc_noise)``, and each of its ``cc_op_count`` operations, with chance ``tail``, slower by
  ``U(1.1, 1.2)`` of its share: collective times are noisier than compute, with a tail). So
  ``K_r = max_j a_j - a_r + X_r`` (its collective time, waiting included) and the step is
  ``T_r = O_r + K_r``.
- Every engine's and DMA's active time varies by ``1 + N(0, noise)``; counts and bytes stay (one
  graph); MFU, HFU and MBU scale with ``T_0 / T_r``; what the profiler derives is derived
  (``synthetic.consistent``), so each rank loads with no anomaly.

The defaults: ``noise`` 0.5 % (the issue's figure; real per-rank step spreads found are smaller:
0.44 % full range over 32 ranks, 0.7 % over 9), ``cc_noise`` 3 % (capture-to-capture spread of the
bundled sweep's all-reduce), ``tail`` 2 % of operations (twice nccom-test's 1 % beyond p99), ``skew``
0.5 %.

A plant adds ``size`` times the base step to one rank: ``cause`` an engine or ``DMA`` (that part's
active time and ``O_r`` grow: the rank arrives late and the others wait), ``idle`` (``O_r`` alone
grows: a stall with nothing busy), or ``collectives`` (the rank starts that much earlier, so it waits
that much longer in its collectives: its step and collective time grow).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .ranks import COLLECTIVES, IDLE, PARTS
from .synthetic import Relations, consistent, relations

CAUSES = (*PARTS.values(), IDLE, COLLECTIVES)
SCALED_BY_STEP = ("mfu_estimated_percent", "hfu_estimated_percent", "mbu_estimated_percent",
                  "mfu_max_achievable_estimated_percent")
CC_TIMES = ("cc_op_time", "cc_op_active_time")
TAIL = (1.1, 1.2)  # a slow operation: nccom-test's p90 / p50 of one all-gather is 1.07-1.18, p99 / p50 1.13-1.2


@dataclass(frozen=True, slots=True)
class Plant:
    """A straggler: ``rank``, ``cause`` (one of ``CAUSES``), ``size`` a fraction of the base step."""

    rank: int
    cause: str
    size: float

    def __post_init__(self) -> None:
        if self.cause not in CAUSES:
            raise ValueError(f"cause {self.cause!r}: expected one of {', '.join(CAUSES)}")


@dataclass(frozen=True, slots=True)
class Noise:
    noise: float = 0.005
    cc_noise: float = 0.03
    tail: float = 0.02
    skew: float = 0.005


def rank_set(rng: random.Random, base: Mapping[str, float], n: int, plants: Sequence[Plant] = (),
             noise: Noise = Noise()) -> tuple[dict[str, float], ...]:
    """``n`` ranks' numeric metrics around ``base`` (which needs ``total_time`` and ``cc_op_time``)."""
    step, cc = base["total_time"], base.get("cc_op_active_time", base["cc_op_time"])
    ops = max(int(base.get("cc_op_count", 1)), 1)
    planted = {plant.rank: plant for plant in plants}
    starts, outside, transfer, parts = [], [], [], []
    for rank in range(n):
        plant = planted.get(rank)
        extra = plant.size * step if plant else 0.0
        starts.append(rng.gauss(0.0, noise.skew * step) - (extra if plant and plant.cause == COLLECTIVES else 0.0))
        outside.append((step - cc) * (1 + rng.gauss(0.0, noise.noise))
                       + (extra if plant and plant.cause != COLLECTIVES else 0.0))
        transfer.append(_transfer(rng, cc, ops, noise))
        parts.append({name: base[name] * (1 + rng.gauss(0.0, noise.noise))
                      + (extra if plant and PARTS[name] == plant.cause else 0.0)
                      for name in PARTS if name in base})
    end = max(s + o for s, o in zip(starts, outside, strict=True))
    related = relations(base)
    return tuple(_rank(base, related, step, end - starts[r] - outside[r] + transfer[r], outside[r], parts[r])
                 for r in range(n))


def _transfer(rng: random.Random, cc: float, ops: int, noise: Noise) -> float:
    """One rank's collective transfer time: the base's, times ``1 + N(0, cc_noise)`` for the rank, each
    of its ``ops`` operations (an equal share) also slowed by ``U(TAIL)`` with chance ``tail``."""
    share = cc / ops
    slowed = sum(share * (rng.uniform(*TAIL) - 1) for _ in range(ops) if rng.random() < noise.tail)
    return cc * (1 + rng.gauss(0.0, noise.cc_noise)) + slowed


def _rank(base: Mapping[str, float], related: Relations, step: float, collectives: float, outside: float,
          parts: Mapping[str, float]) -> dict[str, float]:
    total = outside + collectives
    values = {**base, **parts, "total_time": total}
    for name in CC_TIMES:
        if name in base:
            values[name] = collectives
    for name in SCALED_BY_STEP:
        if name in base:
            values[name] = base[name] * step / total
    return consistent(values, related)
