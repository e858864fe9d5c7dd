"""Charts of a sweep as matplotlib figures (the ``plot`` extra; matplotlib is imported only here).

- ``throughput_figure``: device and end-to-end throughput vs batch size, the step-time fit's curve,
  MFU on a second axis;
- ``roofline_figure``: the roof ``min(peak, intensity x bandwidth)`` on log axes and every point;
- ``memory_figure``: device memory by usage type per batch size (stacked), the forecast line and
  the HBM a core has.
Figures are built with matplotlib's object API (no pyplot state), so nothing global changes.
"""

from __future__ import annotations

import io
import math
from typing import Any

from ..analysis.sweep import Sweep
from ..errors import MissingDependencyError

GIB = 2**30
TOP_TYPES = 6  # memory types shown by name; the rest are "other"


def _figure(width: float = 7.0, height: float = 4.2) -> Any:
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise MissingDependencyError("charts need matplotlib: pip install 'neuroncmp[plot]'") from None
    return Figure(figsize=(width, height), dpi=100, layout="constrained")


def throughput_figure(sweep: Sweep) -> Any:
    figure = _figure()
    axes = figure.add_subplot()
    batches = [row.batch_size for row in sweep.table]
    axes.plot(batches, [row.get("device_throughput") for row in sweep.table], "o-", label="device (profile)")
    e2e = [(row.batch_size, row.get("e2e_throughput")) for row in sweep.table if row.get("e2e_throughput")]
    if e2e:
        axes.plot(*zip(*e2e, strict=True), "s-", label="end to end (Trainer)")
    if sweep.step_fit is not None:
        grid = [batches[0] + (batches[-1] - batches[0]) * i / 60 for i in range(61)]
        axes.plot(grid, [sweep.step_fit.throughput(b) for b in grid], "--", color="grey",
                  label=f"fit: b / ({sweep.step_fit.fixed * 1e3:.1f} ms + {sweep.step_fit.per_sample * 1e3:.2f} ms x b)")
    if sweep.knee is not None:
        axes.axvline(sweep.knee.batch_size, color="grey", linestyle=":", label=f"knee b{sweep.knee.batch_size}")
    axes.set(xlabel="batch size", ylabel="samples/s", title="Throughput and MFU vs batch size")
    mfu = [(row.batch_size, (row.get("mfu") or 0) * 100) for row in sweep.table if row.get("mfu") is not None]
    lines = axes.get_legend_handles_labels()
    if mfu:
        twin = axes.twinx()
        twin.plot(*zip(*mfu, strict=True), "^:", color="tab:red", label="MFU (right axis)")
        twin.set_ylabel("MFU [%]", color="tab:red")
        # One legend for both axes: a twin's lines are not in the first axes' legend otherwise.
        lines = tuple(a + b for a, b in zip(lines, twin.get_legend_handles_labels(), strict=True))
    axes.legend(*lines, loc="lower right", fontsize=8)
    return figure


def roofline_figure(sweep: Sweep) -> Any:
    figure = _figure()
    axes = figure.add_subplot()
    roof = sweep.roof
    drawn = [r for r in sweep.roofline if _positive(r.intensity) and _positive(r.achieved)]
    has_roof = _positive(roof.ridge) and _positive(roof.peak_flops)
    grid = _log_grid([r.intensity for r in drawn] + ([roof.ridge] if has_roof else []) or [1.0])
    axes.set_xscale("log")
    axes.set_yscale("log")
    if has_roof:
        axes.plot(grid, [min(roof.peak_flops, i * roof.bandwidth) / 1e12 for i in grid], color="black",
                  label=f"roof: peak {roof.peak_flops / 1e12:.1f} TFLOP/s, ridge {roof.ridge:.0f} FLOP/B")
        axes.axvline(roof.ridge, color="grey", linestyle=":")
    left_out = [f"b{r.batch_size}" for r in sweep.roofline if r not in drawn]
    if left_out:  # log axes have no place for zero, negative or infinite values: say so
        axes.text(0.99, 0.01, f"not drawn (value not positive and finite): {', '.join(left_out)}",
                  transform=axes.transAxes, ha="right", va="bottom", fontsize=7)
    for point in drawn:
        axes.scatter(point.intensity, point.achieved / 1e12, zorder=3)
        axes.annotate(f"b{point.batch_size}", (point.intensity, point.achieved / 1e12), fontsize=8,
                      xytext=(4, -10), textcoords="offset points")
    axes.set(xlabel="arithmetic intensity [FLOP/B]", ylabel="achieved [TFLOP/s]", title="Roofline")
    if has_roof:
        axes.legend(loc="upper left", fontsize=8)
    return figure


def _log_grid(values: list[float]) -> list[float]:
    """101 points evenly spaced on a log axis from a quarter of the least value to four times the
    largest, kept inside a float's normal range: a subnormal intensity divided by 4 is 0, and
    1e308 x 4 is infinite (the grid was ``low * (high / low) ** t``: a division by zero)."""
    low = max(math.log10(min(values)) - math.log10(4), -307.0)
    high = min(math.log10(max(values)) + math.log10(4), 308.0)
    return [10 ** (low + (high - low) * i / 100) for i in range(101)]


def _positive(value: float) -> bool:
    return 0 < value < float("inf")


def memory_figure(sweep: Sweep) -> Any:
    figure = _figure()
    axes = figure.add_subplot()
    points = [p for p in sweep.points if p.get("device_memory_total")]
    totals: dict[str, float] = {}
    for point in points:
        for name, value in point.values.items():
            if name.startswith("memory."):
                totals[name] = totals.get(name, 0.0) + value
    named = sorted(totals, key=lambda n: -totals[n])[:TOP_TYPES]
    labels = [str(p.batch_size) for p in points]
    bottom = [0.0] * len(points)
    for name in named + ["other"]:
        heights = [(_other(p, named) if name == "other" else (p.get(name) or 0)) / GIB for p in points]
        axes.bar(labels, heights, bottom=bottom, label=name.removeprefix("memory."))
        bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
    if sweep.memory is not None:
        axes.axhline(sweep.memory.hbm / GIB, color="red", linestyle="--", label="HBM per core")
    axes.set(xlabel="batch size", ylabel="GiB", title="Device memory by usage type")
    axes.legend(fontsize=7, ncols=2)
    return figure


def _other(point: Any, named: list[str]) -> float:
    return sum(v for n, v in point.values.items() if n.startswith("memory.") and n not in named)


def comparison_figure(comparison: Any, metrics: list[str] | None = None) -> Any:
    """Each variant's change on ``metrics`` (default: the headline's), as horizontal bars coloured by
    verdict: percentage points for percentages, relative % otherwise (per sample where compared so)."""
    from ..catalog import HEADLINE

    names = metrics or list(dict.fromkeys(h.metric for h in HEADLINE))
    rows = [row for name in names for row in comparison.rows if row.name == name]
    figure = _figure(7.0, 0.45 * max(len(rows), 2) * max(len(comparison.variants), 1) + 1.2)
    axes = figure.add_subplot()
    colours = {"better": "tab:green", "worse": "tab:red"}
    labels, values, colour = [], [], []
    for row in rows:
        for cell in row.cells:
            delta = cell.shown(row.basis(comparison.basis))
            size = delta.points if delta.points is not None else (delta.relative or 0) * 100
            labels.append(f"{row.name} {'(pp)' if delta.points is not None else '(%)'} {cell.variant}")
            values.append(size)
            colour.append(colours.get(delta.verdict, "tab:grey"))
    axes.barh(labels, values, color=colour)
    axes.axvline(0, color="black", linewidth=0.8)
    axes.invert_yaxis()
    axes.set(xlabel="change vs baseline (pp for percentages, % otherwise)",
             title=f"{comparison.baseline.label} vs {', '.join(s.label for s in comparison.variants)}")
    return figure


FIGURES = {"throughput": throughput_figure, "roofline": roofline_figure, "memory": memory_figure}


def png(figure: Any) -> bytes:
    """The figure as PNG bytes (Agg, no display needed)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(figure)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()


def available() -> bool:
    """Whether the plot extra is installed (without importing matplotlib)."""
    from importlib.util import find_spec

    return find_spec("matplotlib") is not None
