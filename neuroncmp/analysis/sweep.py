"""``sweep()``: a batch-size sweep read as a whole: which batch size to pick, and what limits it.

Pure: no printing. Builds the batch-size axis (``series``), the table (``table``), the models
(``fits``: step-time fit, knee, memory forecast, intensity, spill onset), the roofline
(``roofline``), a recommendation, and runs every finding rule (``findings``). Whatever cannot be
computed says why in ``notes``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from .. import hardware
from ..comparison.result import Side
from ..comparison.sides import ProfileInput, flatten, group
from ..errors import InputError
from ..ingest.failures import Failed
from ..units import is_number
from . import fits
from .bounds import Bounds, Shift, shifts_along
from .capture_bound import OomBound, oom_bound
from .findings import run_rules
from .findings.base import Context, Finding, NotRun, Passed
from .peaks import derived_peak
from .roofline import Roof, RooflinePoint, Values, place, roof
from .series import Axis, Point, axis
from .side_bounds import Overrides, first_info, overrides, side_bounds
from .table import TableRow, rows

CLOSE = 0.02  # a smaller batch within 2 % of the best throughput is recommended instead


class Recommendation(NamedTuple):
    batch_size: int
    label: str
    by: str                  # "end-to-end throughput (Trainer)" or "device throughput"
    value: float             # samples/s
    runner_up: str | None    # the next best, with its throughput
    caveat: str


@dataclass(frozen=True, slots=True)
class Sweep:
    """A batch-size sweep read as a whole (``sweep()``): its axis and table, the models, the
    recommendation and the findings."""

    axis: Axis
    table: tuple[TableRow, ...]
    step_fit: fits.StepFit | None
    knee: fits.Knee | None
    roof: Roof
    roofline: tuple[RooflinePoint, ...]
    intensity: fits.IntensityModel | None
    memory: fits.MemoryForecast | None
    spill: fits.SpillOnset | None
    recommendation: Recommendation | None
    findings: tuple[Finding, ...]      # ranked: performance by impact, then batch size, then data quality
    passed: tuple[Passed, ...]
    not_run: tuple[NotRun, ...]
    price_per_hour: float | None
    instance_type: str | None
    notes: tuple[str, ...]
    bounds: tuple[Bounds, ...] = ()    # per point: what bounds its step (``analysis/bounds.py``)
    shifts: tuple[Shift, ...] = ()     # where the bottleneck changes from one batch size to the next
    failed: tuple[Failed, ...] = ()    # batch sizes the capture could not profile (the run folder's manifest)
    oom_bound: OomBound | None = None  # the smallest of them that ran out of memory, weighed by the forecast

    @property
    def points(self) -> tuple[Point, ...]:
        return self.axis.points

    def __repr__(self) -> str:
        batches = ", ".join(str(p.batch_size) for p in self.points)
        return (f"<Sweep batch sizes {batches}: {len(self.findings)} findings, "
                f"recommends {self.recommendation.label if self.recommendation else 'nothing'}>")


def sweep(*profiles: ProfileInput, price_per_hour: float | None = None, hbm_per_core: float | None = None,
          peak_flops: float | None = None, hbm_bandwidth: float | None = None,
          failed: Sequence[Failed] = (), dma_bandwidth: float | None = None) -> Sweep:
    """Analyse a batch-size sweep (see the module docstring). Overrides are per NeuronCore, base units;
    ``failed``: the batch sizes its capture could not profile (``ingest.failures``)."""
    given = overrides(price_per_hour, hbm_per_core, peak_flops, hbm_bandwidth, dma_bandwidth)
    flat = flatten(profiles)
    if not flat:
        raise InputError("a sweep needs at least one profile")
    sides = tuple(group(flat))
    found = axis(list(sides))
    if not found.points:
        raise InputError("no profile states or implies a batch size: a sweep needs them "
                         "(name the files b8.json ..., or give them in a manifest)")
    return _analyse(found, sides, given, tuple(failed))


def findings_for(sides: Iterable[Side], failed: Sequence[Failed] = ()) -> tuple[tuple[Finding, ...], tuple[str, ...]]:
    """The findings of a diff's sides (the baseline first), ranked, and whom they are about: ``()`` for
    the sweep the sides form, else the variants' labels (docs/findings.md, "Findings in a diff"); none
    when no side has a batch size."""
    sides = tuple(sides)
    found = axis(list(sides))
    alone: tuple[str, ...] = ()
    if len(found.points) < 2 and len(sides) > 1:
        variants = axis(list(sides[1:]))
        if variants.points:
            sides, found = sides[1:], variants
            alone = tuple(label for point in variants.points for label in point.labels)
    if not found.points:
        return (), ()
    return _analyse(found, sides, Overrides(), tuple(failed)).findings, alone


def _roof(values: Sequence[Values], sides: tuple[Side, ...], given: Overrides) -> Roof:
    """The roof of these steps: the user's numbers, else the profiles', else the instance table's."""
    facts = _facts(sides)
    own = derived_peak(values, lambda key: first_info(sides, key))  # the bounds' own derivation
    return roof(values, facts, given.peak_flops, given.hbm_bandwidth, given.hbm_bytes, _stated_hbm(sides), own.own)


def _facts(sides: tuple[Side, ...]) -> hardware.Hardware:
    return hardware.for_instance(first_info(sides, "instance_type") or first_info(sides, "neuron_device_type"),
                                 first_info(sides, "lnc_config"))


def _stated_hbm(sides: tuple[Side, ...]) -> float | None:
    """One logical core's device memory as the profile states it (docs/commands/sweep.md, device memory)."""
    size, cores = first_info(sides, "neuron_device_memory_size"), first_info(sides, "neuroncore_per_device_count")
    numbers = all(is_number(v) for v in (size, cores))
    return size / cores if numbers and cores and size > 0 else None


def _profiled(sides: tuple[Side, ...]) -> bool:
    """Whether the device memory was read from a profiler's capture (its table is taken with the
    profiler's buffers allocated); neuron-monitor watches a process that may not be profiled."""
    return any(p.memory and p.source.format != "neuron-monitor" for side in sides for p in side.profiles)


def _analyse(found: Axis, sides: tuple[Side, ...], given: Overrides, failed: tuple[Failed, ...] = ()) -> Sweep:
    points, price = found.points, given.price_per_hour
    instance = first_info(sides, "instance_type")
    facts = _facts(sides)
    top = _roof(points, sides, given)
    bounds = tuple(side_bounds(p, p.sides, p.suspects, given) for p in points)
    table = rows(points, price, bounds)
    reserve = (facts.profiler_reserve, facts.reserve_source) if _profiled(sides) else None
    fit, memory = fits.step_fit(points), fits.memory_forecast(points, top.hbm_bytes, top.sources[-1], reserve)
    bound = oom_bound(failed, memory)
    chosen = recommend(points, bound)
    focus = next((p for p in points if chosen and p.batch_size == chosen.batch_size), points[-1])
    placed = tuple(r for r in (place(p, top) for p in points) if r is not None)
    context = Context(points, sides, focus, fit, fits.knee(points), memory,
                      fits.intensity_model(points, top.ridge), fits.spill_onset(points), top,
                      placed, table, bounds, bound)
    findings, passed, not_run = run_rules(context)
    notes = found.notes + tuple(_notes(context, price))
    return Sweep(found, table, fit, context.knee, top, placed, context.intensity, memory, context.spill,
                 chosen, findings, passed, not_run, price, str(instance) if instance else None, notes,
                 bounds, shifts_along(tuple((p.label, b) for p, b in zip(points, bounds, strict=True))),
                 failed, bound)


def recommend(points: tuple[Point, ...], bound: OomBound | None = None) -> Recommendation | None:
    """The recommendation (docs/commands/sweep.md, "The models"); a batch at or above ``bound`` (it ran
    out of memory at capture, yet a profile of it is here) only with a caveat saying so."""
    metric, by = "train_samples_per_second", "end-to-end throughput (Trainer)"
    measured = [(p, value) for p in points if (value := p.get(metric))]
    if len(measured) < 2:
        metric, by = "device_throughput", "device throughput"
        measured = [(p, value) for p in points if (value := p.get(metric))]
    if not measured:
        return None
    best = max(value for _, value in measured)
    chosen, rate = min(((p, value) for p, value in measured if value >= (1 - CLOSE) * best),
                       key=lambda pair: pair[0].batch_size)
    others = sorted(((p, value) for p, value in measured if p is not chosen), key=lambda pair: -pair[1])
    runner = f"{others[0][0].label} ({others[0][1]:.1f} samples/s)" if others else None
    caveat = ("a larger batch may need a different learning rate (and warm-up) to converge as well: check "
              "the loss before you keep it (Shallue et al. 2019)")
    if bound is not None and chosen.batch_size >= bound.batch_size:
        caveat = (f"{bound.label} ran out of device memory at capture, and this batch is not smaller: it may "
                  f"not fit every time; {caveat}")
    return Recommendation(chosen.batch_size, chosen.label, by, rate, runner, caveat)


def _notes(context: Context, price: float | None) -> list[str]:
    out = []
    if context.step_fit is None:
        have = sum(1 for p in context.points if p.get("total_time") is not None)
        out.append(f"step-time fit: needs total_time at three or more batch sizes (it has {have})")
    if context.knee is None:
        out.append(f"knee: {fits.no_knee(context.points)}")
    if context.memory is None:
        out.append(f"memory forecast: {fits.no_memory_forecast(context.points)}")
    if price is None:
        out.append("cost per million samples: give --price-per-hour (no price is assumed)")
    if any(p.inferred for p in context.points):
        inferred = ", ".join(p.label for p in context.points if p.inferred)
        out.append(f"batch size inferred, not stated, for {inferred}")
    return out

