"""Zeros by convention: values a tool writes as 0 when their source is missing, which measure nothing.

A 0 the profiler or the Trainer writes for "not known" would otherwise be read as a measurement:
shown, scored and divided by (``achieved_flop_rate`` of "0 FLOP/s" on every NKI kernel). Each
``Convention`` says when such zeros are conventions, from the profile's own numbers (the formats
state no flag for it), and which values it covers; ``unavailable`` applies them all. The value set
(``model.value_set``) leaves what they find out of its values and says why. The conventions found
on real output: docs/commands/metrics.md ("Not available, not computed").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import NamedTuple


class Convention(NamedTuple):
    """When ``holds`` on a profile's numbers (it reads ``reads``), each of ``names`` that is 0 there
    measures nothing."""

    names: tuple[str, ...]
    why: str
    holds: Callable[[Mapping[str, float]], bool]
    reads: tuple[str, ...]


def _no_hlo_statistics(numbers: Mapping[str, float]) -> bool:
    work = numbers.get("hardware_flops", 0) - numbers.get("transpose_flops", 0)
    return numbers.get("model_flops") == 0 and work > 0


def _no_transfers_counted(numbers: Mapping[str, float]) -> bool:
    return not numbers.get("dma_transfer_count") and numbers.get("dma_active_time", 0) > 0


def _trainer_ran(split: str) -> Callable[[Mapping[str, float]], bool]:
    return lambda numbers: numbers.get(f"{split}_runtime", 0) > 0


# Found on real output (tests/data/third_party). On profiler 2.28 mfu_estimated_percent and its bound fall
# back to the instruction count (they equal mfu_inst_* there), so only a 0 of theirs is covered.
CONVENTIONS = (
    Convention(("model_flops", "mfu_hlo_estimated_percent", "mfu_hlo_max_achievable_estimated_percent",
                "mfu_estimated_percent", "mfu_max_achievable_estimated_percent"),
               "the profiler writes 0 when the NEFF has no HLO statistics, as here (model_flops 0 while "
               "hardware_flops - transpose_flops > 0)", _no_hlo_statistics,
               ("model_flops", "hardware_flops", "transpose_flops")),
    Convention(("dma_transfer_time", "dma_transfer_average_bytes", "dma_transfer_total_bytes"),
               "the profiler writes 0 when it counts no DMA transfer, as here (dma_transfer_count absent "
               "or 0 while dma_active_time > 0)", _no_transfers_counted, ("dma_transfer_count", "dma_active_time")),
    *(Convention((f"{split}_samples_per_second", f"{split}_steps_per_second"),
                 f"the Trainer rounds rates to 3 decimals: below 0.0005/s it writes 0 ({split}_runtime > 0)",
                 _trainer_ran(split), (f"{split}_runtime",)) for split in ("train", "eval")),
)


def unavailable(numbers: Mapping[str, float]) -> dict[str, str]:
    """Each of ``numbers`` that is 0 by convention, with why."""
    found: dict[str, str] = {}
    for convention in CONVENTIONS:
        if convention.holds(numbers):
            found.update((name, convention.why) for name in convention.names if numbers.get(name) == 0)
    return found
