"""What bounds each side's step under its own peaks, and the user's hardware numbers that override them.

The one rule ``diff``, ``show`` and ``sweep`` share (``bounds.py`` for the bounds, ``peaks.py`` for the
peaks), apart from the sweep's models so that one profile's view loads none of them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from .. import arguments
from ..comparison.result import Side, suspects
from .bounds import Bounds, bounds_of
from .peaks import Peaks, peaks_of
from .roofline import Values
from .series import medians


class Overrides(NamedTuple):
    """The user's hardware numbers (per NeuronCore, base units); None keeps the profile's or table's."""

    peak_flops: float | None = None
    hbm_bandwidth: float | None = None
    hbm_bytes: float | None = None
    price_per_hour: float | None = None
    dma_bandwidth: float | None = None


def overrides(price_per_hour: Any = None, hbm_per_core: Any = None, peak_flops: Any = None,
              hbm_bandwidth: Any = None, dma_bandwidth: Any = None) -> Overrides:
    """The checked overrides (``arguments.override``: finite, within ``arguments.OVERRIDES``); raises
    ``UsageError`` naming the argument. The API calls it before loading, ``sweep`` again."""
    given = {"price_per_hour": price_per_hour, "hbm_per_core": hbm_per_core, "peak_flops": peak_flops,
             "hbm_bandwidth": hbm_bandwidth, "dma_bandwidth": dma_bandwidth}
    checked = {name: None if value is None else arguments.override(name, value) for name, value in given.items()}
    return Overrides(checked["peak_flops"], checked["hbm_bandwidth"], checked["hbm_per_core"],
                     checked["price_per_hour"], checked["dma_bandwidth"])


def bounds_for(sides: Iterable[Side], given: Overrides | None = None) -> tuple[Bounds, ...]:
    """What bounds each side's step (a diff's sides), each under its own peaks (``peaks.py``)."""
    return tuple(side_bounds(medians([side]), (side,), suspects(side), given or Overrides()) for side in sides)


def side_bounds(values: Values, sides: tuple[Side, ...], doubts: Mapping[str, str], given: Overrides) -> Bounds:
    """One step's bounds under the peaks its profiles state or imply (the user's overrides first)."""
    peaks = peaks_of(values, lambda key: first_info(sides, key), given.peak_flops, given.dma_bandwidth,
                     given.hbm_bandwidth)
    return bounds_of(values, peaks, doubts)


def first_info(sides: tuple[Side, ...], key: str) -> Any:
    return next((p.info(key) for side in sides for p in side.profiles if p.info(key)), None)


def basis_doubts(sides: Iterable[Side], found: Iterable[Bounds]) -> tuple[str, ...]:
    """A warning when the sides' bounds count different physical cores (a view JSON of an LNC=2 NEFF whose
    kernel ran on one core against the same kernel's summary-json, whose HFU implies two): each ideal time
    then differs by that factor whatever the kernels did."""
    counted = [(side, b.peaks) for side, b in zip(sides, found, strict=True) if b.peaks is not None]
    if len({(p.flops_cores, p.dma_cores) for _, p in counted}) < 2:
        return ()
    each = "; ".join(f"{side.label} per {p.basis} ({side.profiles[0].source.format}: {_why(p)})"
                     for side, p in counted)
    return (f"the bounds count different cores: {each}; their ideal times differ by that factor whatever the "
            "kernels did (--peak-tflops, --dma-gbps and --hbm-gbps put every side on the same peaks)",)


def _why(peaks: Peaks) -> str:
    """Why a side's peaks count the cores they do, in short: the source of its tensor peak's cores."""
    said = peaks.sources[1]
    return said.split(": ")[-1] if "ran on" in said else peaks.sources[0].split(" (")[0]
