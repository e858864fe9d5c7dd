"""Rule about what bounds the step as the batch grows: the bottleneck that shifts (``analysis/bounds.py``)."""

from __future__ import annotations

from ..bounds import Bounds, shifts_along
from .base import BATCH, Context, Evidence, Finding, NotRun, Outcome, Passed

LATENCY = 0.6  # the DMA bounds the step yet the HBM bytes need under 60 % of its active time: not bandwidth

# What shortens a step each bottleneck bounds (where to look once it is the largest).
ACTIONS = {
    "dma": "DMA: fewer, larger transfers (the DMA is in flight most of the step), fewer spills and reloads",
    "memory": "HBM traffic: fewer bytes moved per sample (fusion, keeping tensors in SBUF, less spill)",
    "transfer": "DMA bytes: fewer reloads of the same tensors, larger transfers",
    "compute": "the tensor engine's FLOPs: fewer transposes, a lower-precision matmul, less recomputation",
    "tensor": "the tensor engine: matmul tiling and transposes",
    "vector": "the vector engine: elementwise and normalisation work (fusion, fewer passes)",
    "scalar": "the scalar engine: activations (fusion, cheaper functions)",
    "gpsimd": "the GpSimd engine: work that could move to the vector or scalar engine",
    "sync": "the sync engine",
}


def _mark(bounds: Bounds) -> str:
    """``DMA 97.03 ms (step 1.18x)``."""
    top = bounds.bottleneck
    if top is None:
        return "none"
    return f"{top.label} {top.seconds * 1e3:.2f} ms" + (f" (step {bounds.gap:.2f}x)" if bounds.gap else "")


class BottleneckShift:
    """The bound of the step changes between batch sizes: what to optimise changes with it."""

    id = "bottleneck-shift"

    def apply(self, context: Context) -> Outcome:
        known = tuple((p.label, b) for p, b in zip(context.points, context.bounds, strict=False)
                      if b.bottleneck is not None)
        if len(known) < 2:
            return NotRun(self.id, "needs a bottleneck at two or more batch sizes: total_time with an engine's or "
                          f"the DMA's active time, FLOPs or HBM bytes (found at {len(known)})")
        shifts = shifts_along(known)
        first, last = known[0], known[-1]
        if not shifts:
            return Passed(self.id, f"{first[1].bottleneck.label if first[1].bottleneck else ''} bounds every "
                          f"batch size ({first[0]}: {_mark(first[1])}; {last[0]}: {_mark(last[1])})"
                          + _latency(last[1]))
        by_label = dict(known)
        evidence = tuple(Evidence(f"bottleneck ({s.against} -> {s.label})", s.label,
                                  f"{_mark(by_label[s.against])} -> {_mark(by_label[s.label])}", "",
                                  "the largest of the ideal compute and memory times and each engine's and "
                                  "the DMA's active time") for s in shifts)
        final = last[1].bottleneck
        action = ACTIONS.get(final.name, final.label) if final else ""
        return Finding(self.id, BATCH, "; ".join(s.sentence for s in shifts), tuple(s.label for s in shifts),
                       evidence, None,
                       f"at {last[0]} the step is bound by {final.label if final else 'nothing known'}: "
                       f"optimise {action}; what bounds the smaller batches no longer does")


def _latency(bounds: Bounds) -> str:
    """When the DMA bounds the step but the HBM bytes need far less time: transfers wait, not bandwidth."""
    found = {b.name: b for b in bounds.bounds}
    dma, memory = found.get("dma"), found.get("memory")
    top = bounds.bottleneck
    if top is None or top.name != "dma" or memory is None or dma is None or memory.seconds >= LATENCY * dma.seconds:
        return ""
    return (f"; the HBM bytes need {memory.seconds / dma.seconds:.0%} of the DMA's active time at the bandwidth: "
            "the DMA is in flight, not saturating HBM (small transfers, or latency)")


RULES = (BottleneckShift(),)
