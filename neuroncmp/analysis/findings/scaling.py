"""Rules about the sweep as a whole: what the batch size buys, what it does not shrink, and where
memory bounds it."""

from __future__ import annotations

import math

from ...units import percent
from .. import fits
from ..capture_bound import CONTRADICTED, MAY_FIT
from ..table import TableRow
from .base import BATCH, PERFORMANCE, Context, Evidence, Finding, Impact, NotRun, Outcome, Passed

AMORTISED = 0.9      # per-sample collective time at the largest batch under 90 % of the smallest's
HEADROOM = 1.25      # a batch at least 25 % larger than the largest measured fits


class Collectives:
    """Collective time that does not shrink per sample as the batch grows."""

    id = "collectives"

    def apply(self, context: Context) -> Outcome:
        usable = [p for p in context.points if p.trusted("cc_op_time", "total_time")]
        if len(usable) < 2:
            return NotRun(self.id, "needs cc_op_time and total_time, unflagged, at two or more batch sizes "
                          f"(found at {len(usable)})")
        first, last = usable[0], usable[-1]
        # trusted points carry cc_op_time, so neither is None; 0.0 only satisfies the type
        before, after = first.per_sample("cc_op_time") or 0.0, last.per_sample("cc_op_time") or 0.0
        if not before and not after:
            return Passed(self.id, f"no collective time at {first.label} or {last.label} (cc_op_time 0)")
        if before and after < AMORTISED * before:
            return Passed(self.id, f"collective time per sample falls from {before * 1e3:.3f} ms at "
                          f"{first.label} to {after * 1e3:.3f} ms at {last.label}: amortised by the batch")
        share = (last.get("cc_op_time") or 0) / (last.get("total_time") or 1)
        return Finding(
            self.id, PERFORMANCE,
            f"collective time per sample does not shrink with the batch ({before * 1e3:.3f} ms at "
            f"{first.label}, {after * 1e3:.3f} ms at {last.label})",
            tuple(p.label for p in usable),
            (Evidence("cc_op_time / batch", first.label, before, "s"),
             Evidence("cc_op_time / batch", last.label, after, "s",
                      f"fires at {percent(AMORTISED)} or more of the smallest's")),
            Impact(min(share, 1.0), "device step time", last.get("cc_op_time") or 0, "s",
                   "cc_op_time / total_time at the largest batch: the step time collectives take"),
            "collectives grow with the batch: fix them, not the batch size: bucket gradients, overlap "
            "all-reduce with backward compute, check the collectives' algorithm and message sizes")


HALF_LINEAR = 0.5  # a step up that buys less than half of what linear scaling would is a diminishing return


def _share_of_linear(row: TableRow, context: Context) -> float:
    """The throughput gain of a step up over the gain linear scaling would give (b / prev - 1)."""
    index = next(i for i, r in enumerate(context.table) if r is row)
    previous = context.table[index - 1]
    linear = row.batch_size / previous.batch_size - 1
    gain = row.get("marginal")
    return gain / linear if gain is not None and linear > 0 else 1.0


class DiminishingReturns:
    """Past the knee, a step up buys less than half the throughput linear scaling would."""

    id = "diminishing-returns"

    def apply(self, context: Context) -> Outcome:
        knee, fit = context.knee, context.step_fit
        missing = _missing(context)
        if missing or knee is None or fit is None or fit.asymptote is None:
            return NotRun(self.id, missing)
        after = [row for row in context.table if row.batch_size > knee.batch_size and row.get("marginal") is not None]
        weak = [row for row in after if _share_of_linear(row, context) < HALF_LINEAR]
        if not weak:
            return Passed(self.id, f"past the knee at b{knee.batch_size}, every step up still buys at least half "
                          "the throughput linear scaling would")
        steps = "; ".join(_step(row.batch_size, row.get("marginal"), row.get("marginal_memory")) for row in after)
        gains = [row.get("marginal") or 0.0 for row in after]
        less = ("each larger batch buys less" if all(a > b for a, b in zip(gains, gains[1:])) else
                "a step up buys less than half of what linear scaling would at "
                + ", ".join(f"b{row.batch_size}" for row in weak))
        best = max(row.get("device_throughput") or 0 for row in context.table)
        left = fit.asymptote / best - 1
        return Finding(
            self.id, BATCH,
            f"past the knee at b{knee.batch_size}, {less}: {steps}; the step-time fit "
            f"caps device throughput at {fit.asymptote:.0f} samples/s",
            tuple(row.label for row in after),
            (Evidence("knee", f"b{knee.batch_size}", knee.batch_size, "batch",
                      "Kneedle on device throughput vs batch size"),
             Evidence("device_throughput asymptote", "fit", fit.asymptote, "sample/s", "1 / per-sample cost")),
            Impact(max(left, 0.0), "device throughput", fit.asymptote - best, "sample/s",
                   "asymptote / best measured device throughput - 1: all any larger batch can add"),
            "pick the batch by end-to-end throughput and memory, not device throughput alone; past the "
            "knee the fixed per-step cost is already amortised")


def _missing(context: Context) -> str:
    """Why diminishing-returns cannot run (the real cause, first one found), else ''."""
    if context.step_fit is None:
        have = sum(1 for p in context.points if p.get("total_time") is not None)
        return f"needs the step-time fit: total_time at three or more batch sizes (it has {have})"
    if context.step_fit.asymptote is None:
        return context.step_fit.no_asymptote()
    if context.knee is None:
        return f"needs the knee: {fits.no_knee(context.points)}"
    return ""


def _step(batch: int, gain: float | None, memory: float | None) -> str:
    """``b32 +27.9% samples/s for +1.69 GiB``."""
    return f"b{batch} {gain or 0:+.1%} samples/s" + (f" for +{memory / 2**30:.2f} GiB" if memory else "")


class MemoryHeadroom:
    """Device memory left for a larger batch, by the memory forecast, below any batch size that ran
    out of memory at capture."""

    id = "memory-headroom"

    def apply(self, context: Context) -> Outcome:
        memory, fit, bound = context.memory, context.step_fit, context.oom_bound
        if memory is None:
            return NotRun(self.id, fits.no_memory_forecast(context.points))
        largest = max(p.batch_size for p in context.points)
        if memory.largest_unprofiled is None or memory.largest_unprofiled < largest:
            fits_at = f"b{memory.largest_unprofiled}" if memory.largest_unprofiled else "not even b1"
            return NotRun(self.id, f"the memory forecast fits {fits_at} without profiler buffers, less than b{largest} "
                          "measured: the linear model does not describe this sweep's memory")
        if bound is not None and bound.verdict == CONTRADICTED:
            return NotRun(self.id, f"the memory forecast fits {bound.label} {bound.basis}, yet it ran "
                          f"{bound.failure.phrase()}: the forecast does not hold there, so no batch above "
                          f"b{largest} is recommended from it")
        # the largest batch the candidate may be: the forecast's, and below a batch that ran out of memory
        room = min(memory.largest_unprofiled, bound.batch_size - 1) if bound else memory.largest_unprofiled
        below = f" below {bound.label}, which ran {bound.failure.phrase()}" if bound else ""
        if room < HEADROOM * largest:
            return Passed(self.id, f"the forecast fits at most b{room} without profiler buffers{below}: little "
                          f"room above b{largest}")
        candidate = round_batch(room, largest)
        best = max(row.get("device_throughput") or 0 for row in context.table)
        gain = fit.throughput(candidate) / best - 1 if fit and best else None
        forecast = memory.at(candidate, profiled=False)
        measured = context.point_of(largest).get(fits.MEMORY)
        used = measured if measured is not None else memory.at(largest)
        uses = "uses" if measured is not None else "would use (forecast)"
        profiling = f"b{memory.largest_profiled}" if memory.largest_profiled else "not even b1"
        return Finding(
            self.id, BATCH,
            f"memory has room for a larger batch: b{largest} {uses} {used / 2**30:.2f} GiB of "
            f"{memory.hbm / 2**30:.0f} GiB; the forecast fits up to b{memory.largest_unprofiled} in training "
            f"({profiling} while profiling)" + (f"; {bound.label} ran {bound.failure.phrase()}" if bound else "")
            + f"; try b{candidate}" + (f" (fit: {fit.throughput(candidate):.0f} device samples/s, {gain:+.1%})"
                                       if fit and gain is not None else ""),
            (f"b{largest}",),
            (Evidence(fits.MEMORY, f"b{largest}", used, "B", "measured" if measured is not None else "forecast"),
             Evidence("largest batch that fits", "forecast", memory.largest_unprofiled, "batch",
                      f"{memory.hbm / 2**30:.0f} GiB HBM per core "
                      f"({memory.hbm_source.removeprefix('HBM per core: ')}), "
                      f"less the profiler's {memory.profiler_buffers / 2**30:.2f} GiB of buffers"),
             *((Evidence("smallest batch out of memory", bound.label, bound.batch_size, "batch",
                         f"{bound.failure.phrase()}: the candidate stays below it"),) if bound else ()),
             Evidence("device memory at the candidate", f"b{candidate}", forecast, "B", "forecast, unprofiled")),
            Impact(max(gain, 0.0), "device throughput", fit.throughput(candidate) - best, "sample/s",
                   f"step-time fit at b{candidate} / best measured - 1") if fit and gain is not None else None,
            f"try b{candidate}; scale the learning rate (and warm-up) with it and check the loss; the "
            "forecast assumes memory keeps growing linearly with the batch")


def round_batch(room: int, largest: int) -> int:
    """The roundest batch size above ``largest`` and at most ``room``: the largest multiple of the
    largest power of two that leaves one there (``room`` 143 over 32: 128; 63 over 32: 48; 127 over 64: 96)."""
    step = 1 << int(math.log2(room))
    while step > 1 and (room // step) * step <= largest:
        step //= 2
    return (room // step) * step


class CaptureBound:
    """A batch size that ran out of device memory at capture, and what the memory forecast says of it."""

    id = "capture-bound"

    def apply(self, context: Context) -> Outcome | None:
        bound = context.oom_bound
        if bound is None:  # no capture record of one: nothing to say
            return None
        below = [p.batch_size for p in context.points if p.batch_size < bound.batch_size]
        ran = f"b{max(below)} is the largest batch that ran" if below else "no smaller batch was captured"
        evidence = [Evidence("capture status", bound.label, bound.failure.status, "",
                             bound.failure.detail() or bound.failure.phrase())]
        if bound.profiled is not None and bound.unprofiled is not None:
            evidence += [Evidence("device memory forecast", bound.label, bound.profiled, "B", "as profiled"),
                         Evidence("device memory forecast", bound.label, bound.unprofiled, "B",
                                  f"without the profiler's buffers; {(bound.hbm or 0) / 2**30:.0f} GiB per core")]
        if bound.verdict == MAY_FIT:
            action = (f"to use {bound.label}, run it without the profiler (no NEURON_RT_INSPECT_* variables) and "
                      f"watch for the runtime's out-of-memory error; {ran}")
        elif bound.failure.at_compile:
            action = (f"keep the batch below {bound.label} ({ran}), or lower the graph's memory: tensor or "
                      "pipeline parallelism (neuronx-distributed), activation checkpointing")
        else:  # worded as the compiler's: the bound, then what ran (one sentence for either failure)
            action = f"keep the batch below {bound.label} ({ran})"
        return Finding(self.id, BATCH, bound.sentence(), (bound.label,), tuple(evidence), None, action)


RULES = (Collectives(), DiminishingReturns(), MemoryHeadroom(), CaptureBound())
