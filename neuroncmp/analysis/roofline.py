"""The roofline of a sweep: each point's arithmetic intensity against the FLOP/s it achieved, under a roof
from the profile when it carries it, else the instance family's table (``hardware.py``), the user's
overrides winning over both; the ridge is always ``peak / bandwidth``. Sources and formulas:
docs/commands/sweep.md ("The models", roofline)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple, Protocol

from ..hardware import Hardware
from ..stats import median
from ..units import positive_number

if TYPE_CHECKING:
    from .series import Point


class Values(Protocol):
    """What the roof reads a step from: a metric's value per step by name (a sweep ``Point``, a dict)."""

    def get(self, name: str, /) -> float | None: ...


class Roof(NamedTuple):
    peak_flops: float
    ridge: float             # FLOP/B
    bandwidth: float         # B/s
    hbm_bytes: float         # device memory of one core
    sources: tuple[str, ...]  # where each number came from


class RooflinePoint(NamedTuple):
    batch_size: int
    intensity: float         # FLOP/B (mm_arithmetic_intensity)
    achieved: float          # FLOP/s
    attainable: float        # FLOP/s at this intensity
    bound: str               # "memory" or "compute"
    mfu: float | None
    mfu_bound: float | None  # the profile's mfu_max_achievable_estimated_percent

    @property
    def of_attainable(self) -> float:
        return self.achieved / self.attainable if self.attainable else 0.0


def implied_rate(points: Sequence[Values], amounts: tuple[str, ...], share_name: str) -> float | None:
    """The rate a utilization was computed with, ``sum(amounts) / (share x total_time)``, the median over
    the points; None when none has them. The peak FLOP/s of MFU (model_flops) or HFU (hardware_flops); the
    bandwidth of MBU (hbm_read_bytes + hbm_write_bytes), which equals the profile's own
    ``hbm_ddr_bandwidth`` on every real summary checked (tests/data/third_party/RELATIONS.md)."""
    found = []
    for p in points:
        moved, used = sum(p.get(name) or 0 for name in amounts), (p.get(share_name) or 0) * (p.get("total_time") or 0)
        if moved and used and positive_number(moved / used):  # used: 0 when the product underflows
            found.append(moved / used)
    return median(found) if found else None


def _agree(a: float, b: float) -> bool:
    """Two estimates of one bandwidth within 5 % (on trn1 they agree to 0.1 %; on Trn2 the ridge
    the profiler writes makes them differ by 2x)."""
    return abs(a - b) <= 0.05 * max(a, b)


def roof(points: Sequence[Values], table: Hardware, peak: float | None = None,
         bandwidth: float | None = None, hbm: float | None = None, stated_hbm: float | None = None,
         own: tuple[float, str] | None = None) -> Roof:
    """The roof, from the user's values, else the profile's, else the table's (``sources`` says).
    ``own``: the profiles' own peak and its source (``peaks.derived_peak``, the one derivation of it;
    None when they state and imply none)."""
    ridges = [ratio for p in points if positive_number(ratio := p.get("peak_flops_bandwidth_ratio"))]
    implied = own[0] if own else None
    sources = []
    if peak is None:
        peak = implied or table.peak_flops
        sources.append(own[1] if own else f"peak FLOP/s: {table.source}")
    else:
        sources.append("peak FLOP/s from the command line")
    stacks = [stack for p in points if positive_number(stack := p.get("hbm_ddr_bandwidth"))]
    ridged = implied / median(ridges) if ridges and implied else None
    measured = implied_rate(points, ("hbm_read_bytes", "hbm_write_bytes"), "mbu_estimated_percent")
    if bandwidth is not None:
        sources.append("HBM bandwidth from the command line")
    elif positive_number(ridged) and (measured is None or _agree(ridged, measured)):  # its own roof
        bandwidth = ridged
        sources.append("HBM bandwidth from the profile (implied peak / peak_flops_bandwidth_ratio)")
    elif measured is not None:  # the ridge is not peak / bandwidth (Trn2 at LNC=2 writes half of it)
        bandwidth = measured
        sources.append("HBM bandwidth implied by MBU in the profile ((hbm_read_bytes + hbm_write_bytes) "
                       "/ (total_time x mbu_estimated_percent))")
    elif stacks:
        bandwidth = median(stacks)
        sources.append("HBM bandwidth from the profile (hbm_ddr_bandwidth)")
    else:
        bandwidth = table.hbm_bandwidth
        sources.append(f"HBM bandwidth: {table.source}")
    stated = stated_hbm if positive_number(stated_hbm) else None
    hbm_bytes = hbm if hbm is not None else stated if stated is not None else table.hbm_bytes
    sources.append("HBM per core from the command line" if hbm is not None else
                   "HBM per core from the profile (device memory size / cores per device)"
                   if stated is not None else f"HBM per core: {table.source}")
    return Roof(peak, peak / bandwidth, bandwidth, hbm_bytes, tuple(sources))


def place(point: Point, top: Roof) -> RooflinePoint | None:
    """Where one point sits under the roof (None without trusted intensity, FLOPs or time, or
    when the achieved rate is not finite: a step of 5e-324 s places nothing)."""
    needed = ("mm_arithmetic_intensity", "hardware_flops", "total_time")
    intensity, hardware, total = (point.get(n) for n in needed)
    if not intensity or hardware is None or not total or not point.trusted(*needed):
        return None
    achieved = (hardware - (point.get("transpose_flops") or 0)) / total
    if not math.isfinite(achieved):
        return None
    attainable = min(top.peak_flops, intensity * top.bandwidth)
    return RooflinePoint(point.batch_size, intensity, achieved, attainable,
                         "memory" if intensity < top.ridge else "compute",
                         point.get("mfu_estimated_percent"), point.get("mfu_max_achievable_estimated_percent"))
