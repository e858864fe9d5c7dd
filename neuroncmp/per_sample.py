"""The per-sample basis, defined once: an extensive value (one that grows with the work of a step:
time, bytes, FLOPs; the catalog marks them ``extensive``) divided by the step's batch size.

Every consumer reads these: the comparison's sample basis, the sweep table's per-sample columns,
the fits and the scaling rules, and batch-size inference (FLOPs per sample).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

from .stats import median
from .units import is_number

V = TypeVar("V")


def per_sample(value: V, batch: int | None) -> V | float:
    """``value / batch`` for a number and a known, non-zero batch; anything else as it is (a missing
    value stays missing, a text stays a text: the caller shows it on the step basis)."""
    if is_number(value) and batch:
        return value / batch
    return value


def per_sample_all(values: Iterable[V], batch: int | None) -> list[V | float]:
    """``per_sample`` of each of ``values`` (the captures of one side)."""
    return [per_sample(value, batch) for value in values]


def flops_per_sample(pairs: Iterable[tuple[float, int]]) -> float | None:
    """FLOPs per sample across a set of (FLOPs, batch size) pairs: the median of ``flops / batch``.

    The median, not the mean: one profile whose count is off (a recompiled graph, a profiler that
    counted a warm-up step, a fixed part that is not per sample) moves the mean but not the median,
    and batch-size inference rounds to a whole number, so it needs the typical ratio, not a blend.
    None when no pair has a positive batch."""
    ratios = [flops / batch for flops, batch in pairs if batch > 0]
    return median(ratios) if ratios else None
