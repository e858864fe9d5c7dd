"""What bounds a step: each candidate lower bound on its time, the largest of them (the bottleneck), the
gap ``total_time / bottleneck``, and AWS's bound families (``LEVELS``), each bound with the inputs it
used or why it could not be computed. Formulas and sources: docs/bounds.md ("What bounds a step", "The
bounds (AWS's names)"); ``peaks.py`` gives the hardware numbers, ``gaps.py`` reads the gaps."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import pairwise
from typing import NamedTuple

from .peaks import Peaks
from .roofline import Values

ENGINES = (("tensor", "tensor engine"), ("vector", "vector engine"), ("scalar", "scalar engine"),
           ("sync", "sync engine"), ("gpsimd", "GpSimd engine"))
# AWS's names for its family levels (``performance-bounds.md``), in order, and ours
LEVELS = (("memory_bound", "dma"), ("memory_bound_ideal", "transfer"), ("memory_bound_ideal_no_reloads", "no_reload"),
          ("compute_bound", "tensor"), ("compute_bound_ideal_flops", "compute"),
          ("compute_bound_ideal_useful_flops", "useful_flops"))
LEVEL_NAMES = tuple(aws for aws, _ in LEVELS)
# DMA bytes: the packets a view JSON's rows list (AWS's filter, summed at load), else the summary's count
DMA_BYTES = ("dma_data_bytes", "dma_transfer_total_bytes")


class Bound(NamedTuple):
    """One candidate lower bound on the step time."""

    name: str          # "compute", "memory", "tensor", ..., "dma"
    label: str         # "ideal compute", "tensor engine", "DMA"
    seconds: float
    formula: str       # "hardware_flops / peak FLOP/s"
    inputs: tuple[tuple[str, float], ...]   # the values it used, base units
    source: str = ""   # where an assumed number (peak, bandwidth) came from


class Missing(NamedTuple):
    """A bound that could not be computed, and why."""

    name: str
    label: str
    reason: str


class Bounds(NamedTuple):
    """A step's candidate bounds (largest first), those missing, and its bottleneck; AWS's family levels
    (``LEVELS``, each a bound or why not) and the peaks they were measured against."""

    step: float | None                  # total_time
    bounds: tuple[Bound, ...]
    missing: tuple[Missing, ...]
    levels: tuple[Bound | Missing, ...] = ()
    peaks: Peaks | None = None

    @property
    def bottleneck(self) -> Bound | None:
        return self.bounds[0] if self.bounds else None

    @property
    def gap(self) -> float | None:
        """``total_time / bottleneck``: how many times its bound the step takes."""
        top = self.bottleneck
        return self.step / top.seconds if top is not None and self.step and top.seconds > 0 else None

    def level(self, aws_name: str) -> Bound | Missing:
        """One of AWS's family levels by its name (``memory_bound``, ...)."""
        if aws_name not in LEVEL_NAMES or len(self.levels) != len(LEVEL_NAMES):
            return Missing(aws_name, aws_name, "not computed (no family levels for this step)")
        return self.levels[LEVEL_NAMES.index(aws_name)]

    def text(self) -> str:
        """``DMA, step is 1.17x its bound`` (or why there is none)."""
        top = self.bottleneck
        if top is None:
            return "unknown (no bound computable)"
        return f"{top.label}, step is {self.gap:.2f}x its bound" if self.gap is not None else top.label


class Shift(NamedTuple):
    """The bottleneck changed between two steps: ``b32 moves the bottleneck from DMA to the tensor engine``."""

    label: str      # the step that moved it ("b32")
    before: str     # the bottleneck's label before ("DMA")
    after: str      # and after ("tensor engine")
    against: str    # the step it is compared with ("baseline", "b16")
    before_name: str = ""   # the bounds' names ("dma", "tensor"; JSON fields)
    after_name: str = ""

    @property
    def sentence(self) -> str:
        return f"{self.label} moves the bottleneck from {_the(self.before)} to {_the(self.after)}"


def _the(label: str) -> str:
    return f"the {label}" if label.endswith("engine") else label


def _positive(value: float | None) -> bool:
    return value is not None and value > 0


def _engine_bound(values: Values, key: str, label: str, prefix: str) -> Bound | Missing:
    """An engine's (or the DMA's) active time: the profile's own, else its share x total_time."""
    time_name, share_name = f"{prefix}_active_time", f"{prefix}_active_time_percent"
    time, share, step = values.get(time_name), values.get(share_name), values.get("total_time")
    if time is not None:
        return Bound(key, label, time, time_name, ((time_name, time),))
    if share is not None and step is not None:
        return Bound(key, label, share * step, f"{share_name} x total_time",
                     ((share_name, share), ("total_time", step)))
    return Missing(key, label, f"no {time_name} (nor its percent with total_time)")


def _flops_bound(values: Values, peaks: Peaks, key: str, label: str, names: tuple[str, ...],
                 useful: bool = False) -> Bound | Missing:
    """FLOPs at the peak: the first of ``names`` the profile counts (``useful``: less its transposes)."""
    name = next((n for n in names if _positive(values.get(n))), None)
    if name is None:
        return Missing(key, label, f"no {' or '.join(names)} in the profile")
    flops = values.get(name) or 0.0
    if not useful:
        return Bound(key, label, flops / peaks.peak_flops, f"{name} / peak FLOP/s",
                     ((name, flops), ("peak FLOP/s", peaks.peak_flops)), peaks.sources[1])
    transposes = values.get("transpose_flops")
    if transposes is None:
        return Missing(key, label, "no transpose_flops in the profile")
    return Bound(key, label, (flops - transposes) / peaks.peak_flops, f"({name} - transpose_flops) / peak FLOP/s",
                 ((name, flops), ("transpose_flops", transposes), ("peak FLOP/s", peaks.peak_flops)),
                 peaks.sources[1])


def _memory_bound(values: Values, peaks: Peaks) -> Bound | Missing:
    read, write = values.get("hbm_read_bytes"), values.get("hbm_write_bytes")
    if read is None or write is None or read + write <= 0:
        return Missing("memory", "ideal memory", "no hbm_read_bytes and hbm_write_bytes in the profile")
    return Bound("memory", "ideal memory", (read + write) / peaks.hbm_bandwidth,
                 "(hbm_read_bytes + hbm_write_bytes) / HBM bandwidth",
                 (("hbm_read_bytes", read), ("hbm_write_bytes", write), ("HBM bandwidth B/s", peaks.hbm_bandwidth)),
                 peaks.sources[3])


def _dma_bytes_bound(values: Values, peaks: Peaks, key: str, label: str, names: tuple[str, ...]) -> Bound | Missing:
    """Bytes at the DMA bandwidth: the first of ``names`` the profile has."""
    name = next((n for n in names if _positive(values.get(n))), None)
    if name is None:
        return Missing(key, label, f"no {' or '.join(names)} in the profile")
    if peaks.dma_bandwidth is None:
        return Missing(key, label, peaks.sources[2])
    moved = values.get(name) or 0.0
    return Bound(key, label, moved / peaks.dma_bandwidth, f"{name} / DMA bandwidth",
                 ((name, moved), ("DMA bandwidth B/s", peaks.dma_bandwidth)), peaks.sources[2])


class _Trusted:
    """The step's values without those an input anomaly makes suspect (they bound nothing)."""

    def __init__(self, values: Values, doubts: Mapping[str, str]) -> None:
        self.values, self.doubts = values, doubts

    def get(self, name: str, /) -> float | None:
        return None if name in self.doubts else self.values.get(name)


def _said(missing: Missing, doubts: Mapping[str, str]) -> Missing:
    """A missing bound whose inputs are there but suspect says so."""
    named = [f"{name}: {why}" for name, why in doubts.items() if name in missing.reason]
    return missing._replace(reason=f"{missing.reason}; not used, an input anomaly ({'; '.join(named)})") \
        if named else missing


def bounds_of(values: Values, peaks: Peaks, doubts: Mapping[str, str] | None = None) -> Bounds:
    """The candidate bounds of one step (docs/bounds.md), largest first, and AWS's family
    levels; a value in ``doubts`` (metric -> its input anomaly) is not used."""
    doubts = doubts or {}
    values = _Trusted(values, doubts)
    engines = {key: _engine_bound(values, key, label, f"{key}_engine") for key, label in ENGINES}
    dma = _engine_bound(values, "dma", "DMA", "dma")
    ideal = _flops_bound(values, peaks, "compute", "ideal compute", ("hardware_flops",))
    compute = ideal if isinstance(ideal, Bound) else \
        _flops_bound(values, peaks, "compute", "ideal compute", ("hardware_flops", "model_flops"))
    transfer = _dma_bytes_bound(values, peaks, "transfer", "ideal transfer", DMA_BYTES)
    found = [compute, _memory_bound(values, peaks), transfer, *engines.values(), dma]
    no_reload = _dma_bytes_bound(values, peaks, "no_reload", "no-reload transfer",
                                 ("inputs_outputs_weights_size_bytes",))
    levels = (dma, transfer, no_reload, engines["tensor"], ideal,
              _flops_bound(values, peaks, "useful_flops", "ideal useful compute", ("hardware_flops",), useful=True))
    bounds = sorted((b for b in found if isinstance(b, Bound)), key=lambda b: -b.seconds)
    return Bounds(values.get("total_time"), tuple(bounds),
                  tuple(_said(b, doubts) for b in found if isinstance(b, Missing)),
                  tuple(_said(b, doubts) if isinstance(b, Missing) else b for b in levels), peaks)


def shift(label: str, before: Bounds, after: Bounds, against: str) -> Shift | None:
    """The shift from ``before`` (``against``) to ``after`` (``label``), None when the bottleneck is the same
    or either is unknown."""
    old, new = before.bottleneck, after.bottleneck
    if old is None or new is None or old.name == new.name:
        return None
    return Shift(label, old.label, new.label, against, old.name, new.name)


def shifts_along(labelled: tuple[tuple[str, Bounds], ...]) -> tuple[Shift, ...]:
    """Each shift between neighbours of an ordered series (a sweep's batch sizes)."""
    return tuple(found for (before_label, before), (label, after) in pairwise(labelled)
                 if (found := shift(label, before, after, before_label)) is not None)
