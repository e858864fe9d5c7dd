"""Models fitted to a sweep's points, each with its assumptions stated beside its numbers: step time, knee,
device memory, arithmetic intensity, spill onset (docs/commands/sweep.md, "The models") and the time
outside the profiled graph (docs/findings.md, ``outside-graph``)."""

from __future__ import annotations

import math
from typing import NamedTuple

from ..per_sample import flops_per_sample
from ..stats import LinearFit, linear_fit
from .series import Point

MAX_BATCH = 2 ** 53  # the largest whole batch a float holds exactly: forecasts stop there
SPILL_SHARE = 0.25  # Neuron Explorer: spill reload above a quarter of HBM reads is worth a look


class StepFit(NamedTuple):
    fixed: float            # s per step, whatever the batch
    per_sample: float       # s per sample
    r2: float | None
    residuals: tuple[float, ...]   # measured - fitted, per point (s)
    batches: tuple[int, ...]

    @property
    def asymptote(self) -> float | None:
        """Device samples/s as the batch grows without bound: ``1 / per_sample``."""
        return 1 / self.per_sample if self.per_sample > 0 else None

    def no_asymptote(self) -> str:
        """Why there is no asymptote (the fitted per-sample cost is not positive), else ''."""
        if self.per_sample > 0:
            return ""
        return (f"the step-time fit's per-sample cost is {self.per_sample * 1e3:.4g} ms, not positive "
                "(step time does not grow with the batch), so it gives no throughput ceiling")

    def step_time(self, batch: float) -> float:
        return self.fixed + self.per_sample * batch

    def throughput(self, batch: float) -> float:
        """``batch / step_time(batch)``; infinite where the fitted line reaches 0 s (no division by zero)."""
        step = self.step_time(batch)
        return batch / step if step else math.inf


def _xy(points: tuple[Point, ...], metric: str) -> tuple[list[float], list[float]]:
    # trusted values only: one an input anomaly makes suspect (a step of 5e-324 s) fits nothing
    pairs = [(float(p.batch_size), p.number(metric)) for p in points if p.trusted(metric)]
    return [x for x, _ in pairs], [float(y) for _, y in pairs]


def _fit(points: tuple[Point, ...], metric: str) -> tuple[LinearFit, list[float]] | None:
    xs, ys = _xy(points, metric)
    fit = linear_fit(xs, ys) if len(xs) >= 3 else None
    return (fit, xs) if fit is not None else None


def step_fit(points: tuple[Point, ...]) -> StepFit | None:
    """The step-time model over at least three batch sizes with ``total_time``."""
    found = _fit(points, "total_time")
    if found is None:
        return None
    fit, xs = found
    return StepFit(fit.intercept, fit.slope, fit.r2, fit.residuals, tuple(int(x) for x in xs))


class Knee(NamedTuple):
    batch_size: int
    gap: float              # normalised throughput above the diagonal at the knee (0-1)


def knee(points: tuple[Point, ...]) -> Knee | None:
    """Kneedle on measured device throughput (at least three batch sizes, throughput rising)."""
    xs, ys = _xy(points, "device_throughput")
    if len(xs) < 3 or max(ys) <= min(ys) or ys[-1] <= ys[0]:
        return None
    x0, x1, y0, y1 = xs[0], xs[-1], min(ys), max(ys)
    gaps = [((y - y0) / (y1 - y0)) - ((x - x0) / (x1 - x0)) for x, y in zip(xs, ys, strict=True)]
    best = max(range(len(xs)), key=lambda i: gaps[i])
    return Knee(int(xs[best]), gaps[best]) if gaps[best] > 0 else None


def no_knee(points: tuple[Point, ...]) -> str:
    """Why ``knee`` found none, in the numbers' own terms."""
    xs, ys = _xy(points, "device_throughput")
    if len(xs) < 3:
        return f"needs device throughput at three or more batch sizes (it has {len(xs)})"
    if max(ys) <= min(ys) or ys[-1] <= ys[0]:
        return (f"device throughput does not rise from b{int(xs[0])} to b{int(xs[-1])} "
                f"({ys[0]:.4g} to {ys[-1]:.4g} samples/s)")
    return "no batch lies above the diagonal: device throughput rises at least linearly between the ends"


class MemoryForecast(NamedTuple):
    fixed: float                 # bytes, whatever the batch (profiled)
    per_sample: float            # bytes per sample
    r2: float | None
    hbm: float                   # bytes one core has
    hbm_source: str
    profiler_buffers: float      # bytes the profiler reserved (0 when the table has none)
    largest_profiled: int | None     # largest batch fitting as profiled
    largest_unprofiled: int | None   # ... without the profiler's buffers
    batches: tuple[int, ...]

    def at(self, batch: float, profiled: bool = True) -> float:
        return self.fixed - (0 if profiled else self.profiler_buffers) + self.per_sample * batch


MEMORY = "device_memory_total"  # from any memory source: a memory table, the view JSON's
# nc_mem_usage, neuron-monitor's per-core memory, a runtime memory log


def memory_forecast(points: tuple[Point, ...], hbm: float, hbm_source: str,
                    reserve: tuple[float, str] | None = None) -> MemoryForecast | None:
    """``reserve``: what profiling takes on this family (bytes, source), used for the "without
    the profiler" forecast when the memory table of a profiled capture does not list it."""
    found = _fit(points, MEMORY)
    if found is None or found[0].slope <= 0:
        return None
    fit, xs = found
    profiler = max((p.get("memory.profiler_buffers") or 0.0 for p in points), default=0.0)
    if not profiler and reserve is not None:
        profiler, hbm_source = reserve[0], f"{hbm_source}; profiler: {reserve[1]}"

    def largest(fixed: float) -> int | None:
        room = (hbm - fixed) / fit.slope  # inf when a tiny slope divides: capped, never floor(inf)
        return math.floor(min(room, MAX_BATCH)) if room >= 1 else None

    return MemoryForecast(fit.intercept, fit.slope, fit.r2, hbm, hbm_source, profiler,
                          largest(fit.intercept), largest(fit.intercept - profiler),
                          tuple(int(x) for x in xs))


def no_memory_forecast(points: tuple[Point, ...]) -> str:
    """Why ``memory_forecast`` gave none, naming the batch sizes that have device memory."""
    xs, ys = _xy(points, MEMORY)
    where = ", ".join(f"b{int(x)}" for x in xs)
    if len(xs) < 3:
        found = f"found at {where} only" if xs else "found at none"
        monitor = [p for p in points if p.get("device_used_memory_total") is not None]
        whole = (f"; neuron-monitor's device_used_memory_total (whole device, not per core) at "
                 f"{len(monitor)} is not used") if monitor else ""
        return (f"needs device memory ({MEMORY}: a memory table, per-core neuron-monitor memory or a "
                f"runtime memory log) at three or more batch sizes ({found}{whole})")
    fit = linear_fit(xs, ys)
    slope = fit.slope if fit is not None else 0.0
    return (f"device memory does not grow with the batch over {where} (fitted {slope / 2**20:.4g} MiB "
            "per sample): no batch-size forecast")


class IntensityModel(NamedTuple):
    flops_per_sample: float      # (hardware - transpose) FLOPs per sample: the profile's numerator
    bytes_fixed: float           # HBM bytes per step whatever the batch
    bytes_per_sample: float
    limit: float                 # FLOP/B as the batch grows without bound
    ridge: float
    crossing: float | None       # batch where intensity reaches the ridge, None if never

    def at(self, batch: float) -> float:
        return self.flops_per_sample * batch / (self.bytes_fixed + self.bytes_per_sample * batch)


def intensity_model(points: tuple[Point, ...], ridge: float | None) -> IntensityModel | None:
    usable = [p for p in points if p.get("hardware_flops") is not None and p.get("hbm_traffic_bytes")]
    if ridge is None or len(usable) < 3:
        return None
    per_sample = flops_per_sample(((p.get("hardware_flops") or 0) - (p.get("transpose_flops") or 0), p.batch_size)
                                  for p in usable)
    fit = linear_fit([float(p.batch_size) for p in usable], [float(p.get("hbm_traffic_bytes") or 0) for p in usable])
    if fit is None or fit.slope <= 0 or per_sample is None:
        return None
    limit = per_sample / fit.slope
    denominator = per_sample - ridge * fit.slope
    crossing = ridge * fit.intercept / denominator if limit > ridge and denominator > 0 else None
    crossing = crossing if crossing is not None and crossing > 0 else None  # a negative batch is no crossing
    return IntensityModel(per_sample, fit.intercept, fit.slope, limit, ridge, crossing)


class OutsideFit(NamedTuple):
    per_run: float               # s per training run that does not scale with the step count
    per_step: float              # s per step outside the profiled graph
    r2: float | None
    batches: tuple[int, ...]
    steps: tuple[float, ...]     # train_runtime x train_steps_per_second, per batch


OUTSIDE_NEEDS = ("total_time", "train_runtime", "train_steps_per_second")


def outside_fit(points: tuple[Point, ...]) -> OutsideFit | None:
    """The Trainer's time outside the profiled graph, split into per-step and per-run parts."""
    runs = [(p, *_steps_and_gap(p)) for p in points if p.trusted(*OUTSIDE_NEEDS)]
    runs = [(p, n, gap) for p, n, gap in runs if math.isfinite(n) and math.isfinite(gap)]  # finite
    # inputs can still multiply to an infinity
    usable, steps, gaps = [r[0] for r in runs], [r[1] for r in runs], [r[2] for r in runs]
    fit = linear_fit(steps, gaps) if len(set(round(n) for n in steps)) >= 3 else None
    if fit is None:
        return None
    return OutsideFit(fit.intercept, fit.slope, fit.r2, tuple(p.batch_size for p in usable), tuple(steps))


def _steps_and_gap(point: Point) -> tuple[float, float]:
    """Training steps in the run, and the run's time outside the profiled graph (the point is
    ``trusted(*OUTSIDE_NEEDS)``)."""
    runtime = point.number("train_runtime")
    steps = runtime * point.number("train_steps_per_second")
    return steps, runtime - steps * point.number("total_time")


class SpillOnset(NamedTuple):
    above_share: int | None      # smallest batch with spill reload > 25 % of HBM reads
    everywhere: bool             # above 25 % at every batch size measured (the onset is below the axis)
    rising_from: int | None      # batch from which spill per sample stops falling (None unless it then grows)
    shares: tuple[tuple[int, float], ...]
    per_sample: tuple[tuple[int, float], ...] = ()   # spill_reload_bytes / batch, per batch

    def trend(self) -> tuple[str, tuple[int, ...]]:
        """What spill per sample does along the batch, as (kind, batches), said only as the values
        show it: ``none`` (0 B everywhere), ``flat`` (one value everywhere), ``rising`` (lowest at
        the batches given, growing at every step after), ``higher`` (lowest there, higher after but
        not growing steadily), ``falling`` (falling at every step), ``lowest`` (lowest at the end,
        not steadily)."""
        values = [v for _, v in self.per_sample]
        if not values:
            return "", ()
        if max(values) == min(values):
            return ("none" if values[0] == 0 else "flat"), ()
        low = min(values)
        lowest = tuple(b for b, v in self.per_sample if v == low)
        if self.rising_from is None:
            steady = all(a > b for a, b in zip(values, values[1:]))
            return ("falling" if steady else "lowest"), lowest
        after = values[[b for b, _ in self.per_sample].index(lowest[-1]):]
        steady = all(a < b for a, b in zip(after, after[1:]))
        return ("rising" if steady else "higher"), lowest


def spill_onset(points: tuple[Point, ...]) -> SpillOnset | None:
    shares = tuple((p.batch_size, share) for p in points
                   if (share := p.get("spill_reload_share")) is not None)
    if not shares:
        return None
    above = next((batch for batch, share in shares if share > SPILL_SHARE), None)
    per_sample = tuple((p.batch_size, spill) for p in points
                       if (spill := p.per_sample("spill_reload_bytes")) is not None)
    everywhere = all(share > SPILL_SHARE for _, share in shares)
    return SpillOnset(above, everywhere, _rising_from(per_sample), shares, per_sample)


def _rising_from(per_sample: tuple[tuple[int, float], ...]) -> int | None:
    """The last batch at the lowest spill per sample, when some larger batch spills more per
    sample (ties and a series that only falls or stays give None: nothing grows)."""
    values = [v for _, v in per_sample]
    if not values:
        return None
    low = min(values)
    last = max(i for i, v in enumerate(values) if v == low)
    return per_sample[last][0] if any(v > low for v in values[last + 1:]) else None
