"""Batch sizes a profile does not state: from Trainer throughput, else from FLOPs per sample.

An inferred batch size is always marked ``batch_size_source="inferred"`` (or ``"trainer"``),
never passed off as fact.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from ..model import Profile
from ..per_sample import flops_per_sample
from ..units import positive_number

P = TypeVar("P", bound=Profile)
TOLERANCE = 0.02  # an estimate must be within 2 % of a whole number to be taken


def infer_batch_sizes(profiles: Sequence[P]) -> list[P]:
    """``profiles``, those whose batch size is unknown with the one inferred (``Profile.replace``)."""
    out = [_from_trainer(profile) if profile.batch_size is None else profile for profile in profiles]
    per_sample = flops_per_sample((flops, p.batch_size) for p in out
                                  if p.batch_size and p.params.get("batch_size_source") not in ("inferred",)
                                  and positive_number(flops := p.value("model_flops")))
    if per_sample is None:
        return out
    how = f"model_flops / {per_sample / 1e9:.2f} GFLOP per sample (median across the set)"
    return [_take(profile, flops / per_sample, "inferred", how)
            if profile.batch_size is None and positive_number(flops := profile.value("model_flops")) else profile
            for profile in out]


def _from_trainer(profile: P) -> P:
    samples, steps = profile.value("train_samples_per_second"), profile.value("train_steps_per_second")
    if positive_number(samples) and positive_number(steps):
        return _take(profile, samples / steps, "trainer", "train_samples_per_second / train_steps_per_second")
    return profile


def _take(profile: P, estimate: float, source: str, how: str) -> P:
    if not 0.5 <= estimate < 1e9:  # beyond any real batch (and round() of an infinity raises)
        return profile
    whole = round(estimate)
    if whole >= 1 and abs(estimate - whole) <= TOLERANCE * whole:
        return profile.replace(params={**profile.params, "batch_size": whole, "batch_size_source": source,
                                       "batch_size_estimate": round(estimate, 3), "batch_size_how": how})
    return profile
