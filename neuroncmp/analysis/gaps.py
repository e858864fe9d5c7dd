"""AWS's reading of a step's bounds (``bounds.py``): the gaps between its family levels, the speedup estimate,
the next bottleneck and the achieved rates. Formulas and their source (the neuron-nki-profile-querying
skill's ``performance-bounds.md``): docs/bounds.md ("The gaps"). A negative gap is "not computed", naming
the two levels and the peak's source: an input or a peak is off."""

from __future__ import annotations

from typing import NamedTuple

from ..units import format_value
from .bounds import ENGINES, LEVEL_NAMES, Bound, Bounds, Missing

# (name, label, family, upper level or None for total_time, lower level, what the "of" share is of)
GAPS = (("dma_idle", "DMA idle", "memory", None, "memory_bound", ""),
        ("dma_inefficiency", "DMA inefficiency", "memory", "memory_bound", "memory_bound_ideal", ""),
        ("excess_traffic", "excess traffic", "memory", "memory_bound_ideal", "memory_bound_ideal_no_reloads",
         "traffic"),
        ("tensor_idle", "tensor engine idle", "compute", None, "compute_bound", ""),
        ("tensor_underuse", "tensor engine underuse", "compute", "compute_bound", "compute_bound_ideal_flops", ""),
        ("transposes", "transposes", "compute", "compute_bound_ideal_flops", "compute_bound_ideal_useful_flops",
         "FLOPs"),
        ("serialization", "serialization", "pipeline", None, "perfect_pipeline", ""))
PIPELINE = frozenset({key for key, _ in ENGINES} | {"dma"})   # AWS's engine_times, with the sync engine
RESOURCE = {"compute": "tensor", "useful_flops": "tensor", "memory": "dma", "transfer": "dma", "no_reload": "dma"}
FAMILY = {"dma": ("memory_bound", "memory_bound_ideal", "memory_bound_ideal_no_reloads"),
          "tensor": ("compute_bound", "compute_bound_ideal_flops", "compute_bound_ideal_useful_flops")}
# a bound's short name in a narrow cell (else its name: "tensor")
SHORT = {"dma": "DMA", "gpsimd": "GpSimd", "useful_flops": "useful FLOPs", "no_reload": "no-reload"}


def short_name(name: str) -> str:
    return SHORT.get(name, name)


class Gap(NamedTuple):
    """One of AWS's named gaps: the time between two consecutive bounds of a family."""

    name: str            # "dma_idle"
    label: str           # "DMA idle"
    family: str          # "memory", "compute" or "pipeline"
    seconds: float
    share: float | None  # of total_time
    formula: str         # "total_time - memory_bound"
    part: float | None = None   # excess traffic: of the ideal transfer; transposes: of the hardware FLOPs
    part_of: str = ""           # "traffic", "FLOPs"


# Above this bn_speedup is "not reachable": the step would be mostly time no engine or DMA works, which no
# family's ideal removes (docs/bounds.md, "The gaps": what it assumes, and the real profiles that set it).
REACHABLE = 10.0
ASSUMES = ("speedup if ideal (AWS's bn_speedup): total_time / max(the bottleneck family's ideal, the other "
           "engines' and DMA's active time), if that family reached its ideal and nothing else in the step were "
           f"lost (no waits, no idle time); an upper bound, not a saving; not reachable above {REACHABLE:g}x")


class Speedup(NamedTuple):
    """AWS's ``bn_speedup`` at one level: ``total_time / max(level, the other engines' largest)``."""

    level: str           # the AWS level reached ("memory_bound_ideal_no_reloads")
    factor: float
    then: Bound          # what bounds the step then: the level or the other engine

    @property
    def reachable(self) -> bool:
        """Whether the bound it reaches is within ``REACHABLE`` of the step (see ``REACHABLE``)."""
        return self.factor <= REACHABLE

    @property
    def cell(self) -> str:
        """``2.61x``, or ``not reachable``."""
        return f"{self.factor:.2f}x" if self.reachable else "not reachable"

    def why_not(self, step: float) -> str:
        """Why an estimate is not reachable: what would bound the step, as a share of it."""
        return (f"not reachable: at {self.level} the step would be bound by {short_name(self.then.name)} at "
                f"{format_value(self.then.seconds, 's')}, {self.then.seconds / step:.2%} of its "
                f"{format_value(step, 's')}; the rest is time no engine or DMA works, which no ideal removes")


class Next(NamedTuple):
    """The next bottleneck: the largest active time of another resource, and its share of the bottleneck's."""

    bound: Bound
    share: float


class Rate(NamedTuple):
    """An achieved rate while the engine is active, and its share of the peak."""

    name: str            # "dma_bandwidth", "tensor_flops"
    label: str
    value: float         # base units (B/s, FLOP/s)
    unit: str            # "B/s", "FLOP/s"
    formula: str
    of_peak: float | None


def _total(found: Bounds) -> Bound | Missing:
    if found.step is None or found.step <= 0:
        return Missing("total_time", "step", "no total_time in the profile")
    return Bound("total_time", "step", found.step, "total_time", (("total_time", found.step),))


def gaps(found: Bounds) -> tuple[Gap | Missing, ...]:
    """Each of AWS's gaps (``GAPS``, the pipeline's last), or why it is not computed."""
    return tuple(_gap(found, *spec) for spec in GAPS)


def _gap(found: Bounds, name: str, label: str, family: str, upper: str | None, lower: str,
         part_of: str) -> Gap | Missing:
    top = _total(found) if upper is None else found.level(upper)
    bottom = perfect_pipeline(found) if lower == "perfect_pipeline" else found.level(lower)
    for level in (top, bottom):
        if isinstance(level, Missing):
            return Missing(name, label, f"not computed ({level.label}: {level.reason})")
    assert isinstance(top, Bound) and isinstance(bottom, Bound)
    seconds = top.seconds - bottom.seconds
    if seconds < 0:  # a lower level above the upper: no time is lost to a negative overhead
        return Missing(name, label, f"not computed ({lower} {format_value(bottom.seconds, 's')} is above "
                                    f"{upper or 'total_time'} {format_value(top.seconds, 's')}: "
                                    f"{_off(bottom)} or an input is off)")
    share = seconds / found.step if found.step else None
    part = seconds / top.seconds if part_of and top.seconds > 0 else None
    return Gap(name, label, family, seconds, share, f"{upper or 'total_time'} - {lower}", part, part_of)


def _off(level: Bound) -> str:
    """What may be off when an ideal level exceeds a measured one: the number it divides by, by its source."""
    return f"the number it divides by ({level.source})" if level.source else "a peak"


def perfect_pipeline(found: Bounds) -> Bound | Missing:
    """The busiest engine's or DMA's active time (AWS's ``perfect_pipeline``)."""
    active = [b for b in found.bounds if b.name in PIPELINE]
    if not active:
        return Missing("perfect_pipeline", "perfect pipeline", "no engine or DMA active time in the profile")
    return active[0]   # bounds are largest first


def next_bottleneck(found: Bounds) -> Next | None:
    """The largest active time of a resource other than the bottleneck's (None without one)."""
    top = found.bottleneck
    if top is None or top.seconds <= 0:
        return None
    mine = RESOURCE.get(top.name, top.name)
    other = next((b for b in found.bounds if b.name in PIPELINE and b.name != mine), None)
    return Next(other, other.seconds / top.seconds) if other is not None else None


def speedups(found: Bounds) -> dict[str, Speedup | Missing]:
    """AWS's ``bn_speedup`` at each family level."""
    out: dict[str, Speedup | Missing] = {}
    for resource, levels in FAMILY.items():
        others = [b for b in found.bounds if b.name in PIPELINE and b.name != resource]
        for level in levels:
            out[level] = _speedup(found, level, others)
    return out


def _speedup(found: Bounds, level: str, others: list[Bound]) -> Speedup | Missing:
    reached = found.level(level)
    if isinstance(reached, Missing) or not found.step:
        why = reached.reason if isinstance(reached, Missing) else "no total_time in the profile"
        return Missing(level, level, f"not computed ({why})")
    then = max([reached, *others], key=lambda b: b.seconds)
    if then.seconds <= 0:
        return Missing(level, level, "not computed (no time left to bound the step)")
    return Speedup(level, found.step / then.seconds, then)


def speedup(found: Bounds) -> Speedup | Missing:
    """The bottleneck family's speedup at its deepest computable level (docs/bounds.md, "The gaps")."""
    top = found.bottleneck
    if top is None:
        return Missing("speedup", "speedup", "not computed (no bound)")
    resource = RESOURCE.get(top.name, top.name)
    if resource not in FAMILY:
        return Missing("speedup", "speedup", f"not computed (the bottleneck is the {top.label}: AWS's families "
                                             "cover the DMA and the tensor engine; see the pipeline gap)")
    found_each = speedups(found)
    deepest = [found_each[level] for level in reversed(FAMILY[resource])]
    return next((s for s in deepest if isinstance(s, Speedup)), deepest[0])


def achieved(found: Bounds) -> tuple[Rate | Missing, ...]:
    """The DMA bandwidth and tensor-engine FLOP/s achieved while active (docs/bounds.md, "The gaps")."""
    return (_rate(found, "dma_bandwidth", "DMA bandwidth while active", "memory_bound_ideal", "memory_bound",
                  "B/s", found.peaks.dma_bandwidth if found.peaks else None),
            _rate(found, "tensor_flops", "tensor FLOP/s while active", "compute_bound_ideal_flops", "compute_bound",
                  "FLOP/s", found.peaks.peak_flops if found.peaks else None))


def _rate(found: Bounds, name: str, label: str, work_level: str, time_level: str, unit: str,
          peak: float | None) -> Rate | Missing:
    work, time = found.level(work_level), found.level(time_level)
    for level in (work, time):
        if isinstance(level, Missing):
            return Missing(name, label, f"not computed ({level.reason})")
    assert isinstance(work, Bound) and isinstance(time, Bound)
    amount_name, amount = work.inputs[0]
    if time.seconds <= 0:
        return Missing(name, label, f"not computed ({time.formula} is 0)")
    value = amount / time.seconds
    return Rate(name, label, value, unit, f"{amount_name} / {time.formula}", value / peak if peak else None)


class Change(NamedTuple):
    """One bound or gap from one step to another (AWS's "V0 -> V1" column: ``-6,151 us (3.5x)``)."""

    name: str
    before: float        # seconds
    after: float

    @property
    def delta(self) -> float:
        return self.after - self.before

    @property
    def ratio(self) -> float | None:
        """``before / after``: how many times smaller the later one is (None when it is not above 0)."""
        return self.before / self.after if self.after > 0 else None


def timeline(found: Bounds) -> dict[str, float]:
    """Every time AWS's tables list, by name: ``total_time``, each level, ``perfect_pipeline``, each gap."""
    out = {"total_time": found.step} if found.step is not None else {}
    out.update({name: b.seconds for name, b in zip(LEVEL_NAMES, found.levels, strict=False) if isinstance(b, Bound)})
    pipeline = perfect_pipeline(found)
    if isinstance(pipeline, Bound):
        out["perfect_pipeline"] = pipeline.seconds
    out.update({g.name: g.seconds for g in gaps(found) if isinstance(g, Gap)})
    return out


def changes(before: Bounds, after: Bounds) -> tuple[Change, ...]:
    """Each time both steps have, from ``before`` to ``after``."""
    old, new = timeline(before), timeline(after)
    return tuple(Change(name, old[name], new[name]) for name in new if name in old)
