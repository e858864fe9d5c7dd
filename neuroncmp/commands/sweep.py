"""``sweep`` as one library call: ``sweep_report(profiles, SweepOptions(...))`` analyses a batch-size
sweep with the user's hardware numbers (per NeuronCore, base units; None keeps the profile's or the
instance family's)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from ..analysis.side_bounds import overrides
from ..analysis.sweep import Sweep, sweep
from ..comparison.sides import ProfileInput, flatten
from ..ingest.failures import failures_of
from .ranks import refuse_ranks


@dataclass(frozen=True, slots=True)
class SweepOptions:
    """The options of a sweep, checked when made (``UsageError`` naming the argument: finite, above
    0, within ``analysis.side_bounds.LIMITS``). ``price_per_hour`` (USD) adds the cost per million samples."""

    price_per_hour: float | None = None
    hbm_per_core: float | None = None    # bytes
    peak_flops: float | None = None      # FLOP/s
    hbm_bandwidth: float | None = None   # bytes/s
    dma_bandwidth: float | None = None   # bytes/s

    def __post_init__(self) -> None:
        checked = overrides(self.price_per_hour, self.hbm_per_core, self.peak_flops, self.hbm_bandwidth,
                            self.dma_bandwidth)
        fixed = object.__setattr__
        fixed(self, "price_per_hour", checked.price_per_hour)
        fixed(self, "hbm_per_core", checked.hbm_bytes)
        fixed(self, "peak_flops", checked.peak_flops)
        fixed(self, "hbm_bandwidth", checked.hbm_bandwidth)
        fixed(self, "dma_bandwidth", checked.dma_bandwidth)


def sweep_report(profiles: Iterable[ProfileInput], options: SweepOptions) -> Sweep:
    """The sweep ``profiles`` form (one side per batch size): its table, models, recommendation and
    ranked findings, with the batch sizes their run folders' capture could not profile."""
    flat = flatten(profiles)
    refuse_ranks(flat, "a sweep compares batch sizes (give one rank per batch size)")
    failed = failures_of(flat)
    made = sweep(*flat, price_per_hour=options.price_per_hour, hbm_per_core=options.hbm_per_core,
                 peak_flops=options.peak_flops, hbm_bandwidth=options.hbm_bandwidth, failed=failed.entries,
                 dma_bandwidth=options.dma_bandwidth)
    return replace(made, notes=made.notes + failed.notes) if failed.notes else made
