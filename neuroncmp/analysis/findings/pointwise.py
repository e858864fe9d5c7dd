"""Rules judged at every batch size of the sweep (docs/findings.md); the finding reports the points it
fires at, its evidence and impact at the recommended batch (or, if it does not fire there, the largest).
A point whose needed value carries an input anomaly is not judged."""

from __future__ import annotations

from collections.abc import Callable

from ... import units
from .. import fits
from ..series import MissingValue, Point, at_every
from ..table import throttled_share
from .base import PERFORMANCE, Context, Evidence, Finding, Impact, NotRun, Outcome, Passed

OUTSIDE_SHARE = 0.20     # XProf: input time of 20 % or more of the step is "highly input-bound"
MFU_GAP = 0.5            # Neuron Explorer: MFU far below the roofline bound points at data movement
TRANSPOSE_SHARE = 0.10   # Neuron Explorer: transpose FLOPs above 10 % of hardware FLOPs
THROTTLED_SHARE = 0.05   # throttled for 5 % of the step or more
SMALL_DMA = 4096         # Neuron Explorer: at least 4 KiB per DMA transfer


class PointRule:
    """Base of the per-point rules: ``needs`` lists the metrics, ``fires`` decides at one point."""

    id = ""
    needs: tuple[str, ...] = ()

    def apply(self, context: Context) -> Outcome:
        usable = [p for p in context.points if p.trusted(*self.needs) and self.ready(p, context)]
        if not usable:
            return NotRun(self.id, f"needs {', '.join(self.needs)} (missing or suspect at every batch size)")
        firing = [p for p in usable if self.fires(p, context)]
        if not firing:
            return Passed(self.id, self.cleared(usable, context))
        focus = context.focus if context.focus in firing else firing[-1]
        finding = self.finding(focus, tuple(p.label for p in firing), context)
        aside = [p for p in context.points if p not in usable and self._fires_anyway(p, context)]
        return finding._replace(set_aside=tuple((p.label, self._suspect(p)) for p in aside))

    def _fires_anyway(self, point: Point, context: Context) -> bool:
        """Whether a point left out because a value the rule reads is suspect would fire on its
        values as read (a point left out for a missing value has nothing to say)."""
        if not self._suspect(point) or any(name not in point.values for name in self.needs):
            return False
        try:
            return bool(self.fires(point, context))
        except (TypeError, MissingValue):  # a value ``fires`` reads beyond ``needs`` is missing
            return False

    def _suspect(self, point: Point) -> str:
        """Why the values the rule reads at the point are not trusted (``""``: they are)."""
        read = set(self.reads(point))
        return "; ".join(why for name, why in sorted(point.suspects.items()) if name in read)

    def reads(self, point: Point) -> tuple[str, ...]:
        """The metrics the rule reads at a point (``needs``, and any it finds there)."""
        return self.needs

    def ready(self, point: Point, context: Context) -> bool:
        return True

    def fires(self, point: Point, context: Context) -> bool:
        raise NotImplementedError

    def cleared(self, usable: list[Point], context: Context) -> str:
        raise NotImplementedError

    def finding(self, point: Point, where: tuple[str, ...], context: Context) -> Finding:
        raise NotImplementedError


def _ev(point: Point, metric: str, unit: str, note: str = "") -> Evidence:
    """Evidence of a value the rule has checked is there (one of its ``needs``)."""
    return Evidence(metric, point.label, point.number(metric), unit, note)


def _ev_if(point: Point, metric: str, unit: str, note: str = "") -> tuple[Evidence, ...]:
    """Evidence of a value the point may lack: none when it does (never a value of None)."""
    value = point.get(metric)
    return () if value is None else (Evidence(metric, point.label, value, unit, note),)


def _span(usable: list[Point], metric: str, scale: float = 100, unit: str = "%", spec: str = ".3g") -> str:
    values = [p.number(metric) * scale for p in usable]
    low, high = f"{min(values):{spec}}{unit}", f"{max(values):{spec}}{unit}"
    return low if low == high else f"{low} to {high}"


class OutsideGraph(PointRule):
    """Most of the training step is spent outside the profiled graph (host, data loading, others)."""

    id = "outside-graph"
    needs = ("total_time", "train_steps_per_second", "device_share_of_step")

    def fires(self, point: Point, context: Context) -> bool:
        return 1 - point.number("device_share_of_step") >= OUTSIDE_SHARE

    def cleared(self, usable: list[Point], context: Context) -> str:
        return f"the profiled graph is {_span(usable, 'device_share_of_step')} of the Trainer's step"

    def finding(self, point: Point, where: tuple[str, ...], context: Context) -> Finding:
        share = point.get("device_share_of_step") or 0.0
        step = 1 / point.number("train_steps_per_second")
        outside = step - point.number("total_time")
        title = (f"{1 - share:.0%} of each training step at {point.label} is outside the profiled device "
                 f"graph ({outside * 1e3:.1f} ms of {step * 1e3:.1f} ms, the Trainer's average)")
        evidence = [_ev(point, "total_time", "s"), _ev(point, "train_steps_per_second", "step/s"),
                    _ev(point, "device_share_of_step", "fraction", f"below {1 - OUTSIDE_SHARE:.0%}")]
        split = fits.outside_fit(context.points)
        if split is not None and split.per_step >= 0 and split.per_run >= 0:
            device = point.get("total_time") or 0.0
            title += (f"; split across the sweep: {split.per_step * 1e3:.1f} ms of it recurs every step "
                      f"({split.per_step / (device + split.per_step):.0%} of a steady step) and "
                      f"{split.per_run:.1f} s a run does not (compilation, evaluation, checkpoints, or "
                      "per-sample work such as data loading)")
            fit = (f"train_runtime - steps x total_time = {split.per_run:.1f} s + {split.per_step * 1e3:.1f} ms "
                   f"x steps over {', '.join(f'b{b}' for b in split.batches)}, R² "
                   + ("n/a" if split.r2 is None else f"{split.r2:.3f}"))
            evidence += [Evidence("outside_graph_per_step", "fit", split.per_step, "s", fit),
                         Evidence("outside_graph_per_run", "fit", split.per_run, "s", "the same fit's intercept")]
        return Finding(
            self.id, PERFORMANCE, title, where, tuple(evidence),
            Impact(1 - share, "end-to-end step time", outside, "s",
                   "1 - total_time x train_steps_per_second; end-to-end throughput could rise by up to "
                   f"1 / {share:.3f} - 1 = {1 / share - 1:+.0%} if that time went away"),
            "profile the host side: data loading (DataLoader num_workers, pin_memory, prefetch), host "
            "syncs each step (.item(), logging), graph recompilation, the optimizer and other graphs; "
            "the device profile covers one graph only. The per-run part: keep compilation out of the "
            "timed run (a warm neuronx-cc cache, neuron_parallel_compile) and count evaluation and "
            "checkpoints apart")


class MemoryBound(PointRule):
    """Arithmetic intensity below the ridge: data movement, not compute, sets the pace."""

    id = "memory-bound"
    needs = ("mm_arithmetic_intensity",)

    def fires(self, point: Point, context: Context) -> bool:
        return point.number("mm_arithmetic_intensity") < context.roof.ridge

    def cleared(self, usable: list[Point], context: Context) -> str:
        return (f"intensity {_span(usable, 'mm_arithmetic_intensity', 1, ' FLOP/B')} reaches the ridge "
                f"{context.roof.ridge:.1f} FLOP/B (compute-bound) {_at_all(usable, context)}")

    def finding(self, point: Point, where: tuple[str, ...], context: Context) -> Finding:
        ridge, intensity = context.roof.ridge, point.get("mm_arithmetic_intensity") or 0.0
        bound = point.get("mfu_max_achievable_estimated_percent")
        share, formula = (1 - bound, "1 - mfu_max_achievable_estimated_percent: the MFU the roofline "
                          "allows at this intensity; at the ridge it would allow 100 %") if bound else (
            1 - intensity / ridge, "1 - mm_arithmetic_intensity / ridge")
        evidence = (_ev(point, "mm_arithmetic_intensity", "FLOP/B", f"ridge {ridge:.1f} FLOP/B"),
                    *_ev_if(point, "dma_active_time_percent", "fraction"),
                    *_ev_if(point, "tensor_engine_active_time_percent", "fraction"))
        limit = _limit_text(context.intensity)
        at = f" at {point.label}" if len(context.points) > 1 else ""  # one point: named once, after "memory-bound"
        return Finding(
            self.id, PERFORMANCE,
            f"memory-bound {at_every(where, len(context.points))}: arithmetic intensity {intensity:.1f} FLOP/B{at} "
            f"is {intensity / ridge:.0%} of the ridge ({ridge:.1f} FLOP/B){limit}",
            where, evidence,
            Impact(share, "device step time", share * (point.get("total_time") or 0), "s", formula),
            "raise arithmetic intensity (fewer HBM bytes per FLOP): remove spills (below), fuse "
            "elementwise work into the matmuls' neighbours, keep weights and activations in bf16; "
            "a larger batch raises intensity only up to the limit above")


def _limit_text(model: fits.IntensityModel | None) -> str:
    if model is None:
        return ""
    if model.limit <= model.ridge:
        return (f"; the fitted limit as the batch grows is {model.limit:.1f} FLOP/B, so no batch size "
                "makes the step compute-bound")
    if model.crossing is None:  # the limit is above the ridge, but the fit's fixed bytes are negative
        return f"; the fitted limit {model.limit:.1f} FLOP/B is above the ridge, but the fit gives no crossing batch"
    return f"; the fit reaches the ridge at batch ~{model.crossing:.0f}"


def _at_all(usable: list[Point], context: Context) -> str:
    """``at every batch size``, ``at b32`` (one point), or the ones judged when some lack (or carry
    doubtful) inputs."""
    said = at_every([p.label for p in usable], len(context.points))
    return said if len(usable) == len(context.points) else \
        f"{said} (the other batch sizes lack the inputs or have them flagged)"


class MfuGap(PointRule):
    """MFU far below the roofline bound the profile itself reports."""

    id = "mfu-gap"
    needs = ("mfu_estimated_percent", "mfu_max_achievable_estimated_percent", "total_time")

    def fires(self, point: Point, context: Context) -> bool:
        return point.number("mfu_estimated_percent") < MFU_GAP * point.number("mfu_max_achievable_estimated_percent")

    def cleared(self, usable: list[Point], context: Context) -> str:
        return f"MFU reaches at least {MFU_GAP:.0%} of the roofline bound {_at_all(usable, context)}"

    def finding(self, point: Point, where: tuple[str, ...], context: Context) -> Finding:
        mfu, bound = point.number("mfu_estimated_percent"), point.number("mfu_max_achievable_estimated_percent")
        reached = mfu / bound
        total = point.get("total_time") or 0.0
        return Finding(
            self.id, PERFORMANCE,
            f"MFU {mfu * 100:.2f} % at {point.label} is {reached:.0%} of the roofline bound "
            f"{bound * 100:.2f} % the profile reports for its intensity",
            where, (_ev(point, "mfu_estimated_percent", "fraction"),
                    _ev(point, "mfu_max_achievable_estimated_percent", "fraction", f"fires below {MFU_GAP:.0%} of it")),
            Impact(1 - reached, "device step time", (1 - reached) * total, "s",
                   f"1 - mfu / mfu_max_achievable: at the bound the step would take {reached * total * 1e3:.1f} ms"),
            "the step is slower than its own intensity allows: look at the timeline for DMA queues "
            "waiting on each other, engines idle between dependent instructions, and gaps "
            "(total_active_time_percent); small or strided DMA transfers and spills cost bandwidth")


class Spill(PointRule):
    """Spill reload above a quarter of HBM reads (Neuron Explorer's threshold)."""

    id = "spill"
    parent = "memory-bound"
    needs = ("spill_reload_bytes", "hbm_read_bytes", "total_time", "spill_reload_share")  # the last
    # is derived, absent when hbm_read_bytes is 0

    def fires(self, point: Point, context: Context) -> bool:
        return point.number("spill_reload_share") > fits.SPILL_SHARE

    def cleared(self, usable: list[Point], context: Context) -> str:
        return (f"spill reload is {_span(usable, 'spill_reload_share')} of HBM reads "
                f"(threshold {units.percent(fits.SPILL_SHARE)})")

    def finding(self, point: Point, where: tuple[str, ...], context: Context) -> Finding:
        moved = (point.get("spill_reload_bytes") or 0) + (point.get("spill_save_bytes") or 0)
        seconds = moved / context.roof.bandwidth
        total = point.get("total_time") or 1.0
        onset = context.spill
        rising = _spill_trend(onset) if onset else ""
        first = (" at every batch size measured" if onset.everywhere else f" first at b{onset.above_share}") \
            if onset and onset.above_share and len(context.points) > 1 else ""  # one point: nothing to add
        return Finding(
            self.id, PERFORMANCE,
            f"spill reload is {point.number('spill_reload_share') * 100:.1f} % of HBM reads at {point.label} "
            f"(above {units.percent(fits.SPILL_SHARE)}{first}){rising}",
            where, (_ev(point, "spill_reload_share", "fraction", f"threshold {units.percent(fits.SPILL_SHARE)}"),
                    _ev(point, "spill_reload_bytes", "B"), *_ev_if(point, "spill_save_bytes", "B")),
            Impact(min(seconds / total, 1.0), "device step time", seconds, "s",
                   f"(spill_save_bytes + spill_reload_bytes) / HBM bandwidth {context.roof.bandwidth / 1e9:.0f} GB/s: "
                   "the time spill traffic takes at full bandwidth (an upper bound on what removing it saves)"),
            "lower SBUF pressure so the compiler spills less: smaller micro-batches per graph, fewer "
            "live tensors (recompute cheap activations), neuronx-cc's optimisation level; compare "
            "spill_save_bytes per sample across the sweep to find the batch where it starts")


def _spill_trend(onset: fits.SpillOnset) -> str:
    """``; per sample it is lowest at b48 and grows after``, only as the values show it (the
    title says nothing of spill that falls or stays: the models line does)."""
    kind, lowest = onset.trend()
    at = " and ".join(f"b{b}" for b in lowest)
    return {"rising": f"; per sample it is lowest at {at} and grows after",
            "higher": f"; per sample it is lowest at {at} and higher after (not steadily)"}.get(kind, "")


class Transposes(PointRule):
    """Transposes above a tenth of the tensor engine's FLOPs (Neuron Explorer's threshold)."""

    id = "transposes"
    needs = ("transpose_flops", "hardware_flops", "total_time", "transpose_share")  # derived, as above

    def fires(self, point: Point, context: Context) -> bool:
        return point.number("transpose_share") > TRANSPOSE_SHARE

    def cleared(self, usable: list[Point], context: Context) -> str:
        return (f"transposes are {_span(usable, 'transpose_share')} of hardware FLOPs "
                f"(threshold {units.percent(TRANSPOSE_SHARE)})")

    def finding(self, point: Point, where: tuple[str, ...], context: Context) -> Finding:
        seconds = (point.get("transpose_flops") or 0) / context.roof.peak_flops
        total = point.get("total_time") or 1.0
        return Finding(
            self.id, PERFORMANCE,
            f"transposes are {point.number('transpose_share') * 100:.1f} % of the tensor engine's FLOPs at "
            f"{point.label} ({(point.get('transpose_flops') or 0) / 1e9:.1f} GFLOP a step)",
            where, (_ev(point, "transpose_share", "fraction", f"threshold {units.percent(TRANSPOSE_SHARE)}"),
                    _ev(point, "transpose_flops", "FLOP")),
            Impact(seconds / total, "device step time", seconds, "s",
                   f"transpose_flops / peak {units.format_value(context.roof.peak_flops, 'FLOP/s')}: "
                   "tensor-engine time spent transposing at peak", at_least=True),
            "check the layouts feeding matmuls: a weight or activation in the other orientation costs a "
            "transpose every step; pre-transpose weights or change the layout in the model")


class Throttling(PointRule):
    """Power throttling caps utilization for part of the step."""

    id = "throttling"
    needs = ("total_time",)

    def ready(self, point: Point, context: Context) -> bool:
        limits = _limits(point)
        return throttled_share(point) is not None and bool(limits) and all(
            name not in point.suspects for name in limits)

    def fires(self, point: Point, context: Context) -> bool:
        return (throttled_share(point) or 0) >= THROTTLED_SHARE

    def reads(self, point: Point) -> tuple[str, ...]:
        return self.needs + tuple(_limits(point))

    def cleared(self, usable: list[Point], context: Context) -> str:
        shares = [throttled_share(p) or 0 for p in usable]
        return (f"throttled for {min(shares):.1%} to {max(shares):.1%} of the step "
                f"(threshold {units.percent(THROTTLED_SHARE)})")

    def finding(self, point: Point, where: tuple[str, ...], context: Context) -> Finding:
        limits = _limits(point)
        name = min(limits, key=lambda n: limits[n])
        lost = 1 - limits[name]
        total = point.get("total_time") or 0.0
        return Finding(
            self.id, PERFORMANCE,
            f"throttled for {throttled_share(point):.1%} of the step at {point.label}; the step's average "
            f"utilization cap is {limits[name] * 100:.2f} %",
            where, (Evidence("throttled share", point.label, throttled_share(point) or 0, "fraction",
                             f"threshold {units.percent(THROTTLED_SHARE)}"),
                    _ev(point, name, "fraction")),
            Impact(max(lost, 0.0), "device step time", max(lost, 0.0) * total, "s",
                   f"1 - {name}: the share of the step's capacity the cap takes"),
            f"{_trend(context, throttled_share, 'throttling')}check the instance's power and thermal state with "
            "neuron-monitor, and compare with a run on another instance before tuning the model")


def _trend(context: Context, measure: Callable[[Point], float | None], what: str) -> str:
    """``throttling grows with the batch (0.9% at b2, 18.0% at b64); `` when it does, else nothing."""
    values = [(p, value) for p in context.points if (value := measure(p)) is not None]
    if len(values) < 2 or values[-1][1] <= values[0][1]:
        return ""
    (first, low), (last, high) = values[0], values[-1]
    steady = all(a[1] <= b[1] for a, b in zip(values, values[1:]))
    verb = "grows with the batch" if steady else "is higher at the largest batch than at the smallest, not steadily"
    return f"{what} {verb} ({low:.1%} at {first.label}, {high:.1%} at {last.label}); "


def _limits(point: Point) -> dict[str, float]:
    return {name: value for name, value in point.values.items()
            if name.startswith("throttle_avg_util_limit_nc") and name.endswith("_percent")}


class SmallDma(PointRule):
    """DMA transfers smaller than 4 KiB on average (Neuron Explorer's guidance)."""

    id = "small-dma"
    needs = ("dma_transfer_average_bytes",)

    def fires(self, point: Point, context: Context) -> bool:
        return point.number("dma_transfer_average_bytes") < SMALL_DMA

    def cleared(self, usable: list[Point], context: Context) -> str:
        sizes = _span(usable, "dma_transfer_average_bytes", 1 / 1024, "", ".0f")
        return f"average DMA transfer {sizes} KiB (at least 4 KiB)"

    def finding(self, point: Point, where: tuple[str, ...], context: Context) -> Finding:
        size = point.get("dma_transfer_average_bytes") or 0
        return Finding(
            self.id, PERFORMANCE, f"DMA transfers average {size:.0f} B at {point.label}, under 4 KiB",
            where, (_ev(point, "dma_transfer_average_bytes", "B", "at least 4 KiB"),),
            None, "small transfers spend DMA time on descriptors: make tensors contiguous and tiles larger")


RULES = (OutsideGraph(), MemoryBound(), MfuGap(), Spill(), Transposes(), Throttling(), SmallDma())
