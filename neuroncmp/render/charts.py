"""Charts of a sweep as matplotlib figures (the ``plot`` extra; matplotlib is imported only here), what
each shows: ``docs/commands/sweep.md``. Figures are built with matplotlib's object API (no pyplot state),
so nothing global changes; points are labelled where the label hides nothing (``chart_labels``).
"""

from __future__ import annotations

import io
import math
from typing import TYPE_CHECKING, Any

from ..choices import BETTER, SAMPLE, WORSE
from ..errors import optional
from ..hardware import GIB
from ..units import format_value
from . import chart_labels

if TYPE_CHECKING:  # types only: ``history --format png`` draws with ``new_figure`` and loads no analysis
    from ..analysis.series import Point
    from ..analysis.sweep import Sweep

TOP_TYPES = 6  # memory types shown by name; the rest are "other"


def new_figure(width: float = 7.0, height: float = 4.2, dpi: int = 100, needs: str = "charts need") -> Any:
    """An empty figure drawn by Agg (no display, no pyplot state); ``needs``: who asks for matplotlib."""
    needed = f"{needs} matplotlib: pip install 'neuroncmp[plot]'"
    figure = optional("matplotlib.figure", needed).Figure(figsize=(width, height), dpi=dpi, layout="constrained")
    # a renderer to measure labels with (Agg: no display needed)
    optional("matplotlib.backends.backend_agg", needed).FigureCanvasAgg(figure)
    return figure


def throughput_figure(sweep: Sweep) -> Any:
    """Throughput (samples/s) above, MFU (%) below on its own axes: on one axes with a twin scale
    the MFU line lay exactly on the device-throughput line (both grow as 1/step time) and hid it."""
    mfu = [(row.batch_size, (row.get("mfu") or 0) * 100) for row in sweep.table if row.get("mfu") is not None]
    figure = new_figure(7.0, 6.0 if mfu else 4.2)
    if mfu:
        axes, lower = figure.subplots(2, 1, sharex=True, height_ratios=(2, 1))
    else:
        axes, lower = figure.add_subplot(), None
    left_out = _throughput_lines(axes, sweep)
    axes.set(ylabel="throughput [samples/s]", title="Throughput and MFU vs batch size")
    axes.legend(loc="best", fontsize=8)
    if lower is None:
        axes.set_xlabel("batch size [samples per step]")
        _not_drawn(axes, left_out)
        return figure
    lower.plot(*zip(*_gaps(mfu, "MFU", left_out), strict=True), "^-", color="tab:red", label="MFU")
    if sweep.knee is not None:
        lower.axvline(sweep.knee.batch_size, color="grey", linestyle=":")
    lower.set(xlabel="batch size [samples per step]", ylabel="MFU [%]")
    lower.set_ylim(bottom=0)  # from 0: a share, not a trend to magnify
    _not_drawn(axes, left_out)
    return figure


def _throughput_lines(axes: Any, sweep: Sweep) -> list[str]:
    """The throughput lines; what could not be drawn (``_gaps``)."""
    left_out: list[str] = []
    batches = [row.batch_size for row in sweep.table]
    device = [(row.batch_size, row.get("device_throughput")) for row in sweep.table]
    axes.plot(*zip(*_gaps(device, "device", left_out), strict=True), "o-", label="device (profile)")
    e2e = [(row.batch_size, row.get("e2e_throughput")) for row in sweep.table if row.get("e2e_throughput")]
    if e2e:
        axes.plot(*zip(*_gaps(e2e, "end to end", left_out), strict=True), "s-", label="end to end (Trainer)")
    if sweep.step_fit is not None:
        grid = [batches[0] + (batches[-1] - batches[0]) * i / 60 for i in range(61)]
        fitted = _gaps([(b, sweep.step_fit.throughput(b)) for b in grid], "fit", [])
        axes.plot(*zip(*fitted, strict=True), "--", color="grey",
                  label=f"fit: b / ({sweep.step_fit.fixed * 1e3:.1f} ms "
                        f"+ {sweep.step_fit.per_sample * 1e3:.2f} ms x b)")
    if sweep.knee is not None:
        axes.axvline(sweep.knee.batch_size, color="grey", linestyle=":", label=f"knee b{sweep.knee.batch_size}")
    return left_out


# What an axis can show: matplotlib's margins and log ticks overflow to infinity once an axis nears a
# float's limit (a Trainer throughput of 1.7e308 ended in a singular matrix, a FLOP count of 1e280 in
# an OverflowError, while the figure was laid out). A plotted value beyond 1e100 (a log axis: outside
# 1e-100 .. 1e100) is no measurement: it is left a gap and listed as not drawn.
PLOT_LIMIT = 1e100
LOG_RANGE = (1 / PLOT_LIMIT, PLOT_LIMIT)


def _plottable(value: Any) -> bool:
    return isinstance(value, (int, float)) and -PLOT_LIMIT <= value <= PLOT_LIMIT  # NaN is neither


def _gaps(points: list[tuple[Any, Any]], what: str, left_out: list[str]) -> list[tuple[Any, Any]]:
    """``points`` with each value beyond what an axis shows as None (a gap in the line), noted in
    ``left_out`` as ``b64 device``."""
    out = []
    for x, y in points:
        shown = _plottable(x) and (y is None or _plottable(y))
        if not shown:
            left_out.append(f"b{x} {what}")
        out.append((x if _plottable(x) else None, y if shown else None))
    return out


def _not_drawn(axes: Any, left_out: list[str]) -> None:
    if left_out:
        axes.text(0.99, 0.01, f"not drawn (beyond {PLOT_LIMIT:g}): {', '.join(left_out)}",
                  transform=axes.transAxes, ha="right", va="bottom", fontsize=7)


def roofline_figure(sweep: Sweep) -> Any:
    figure = new_figure()
    axes = figure.add_subplot()
    roof = sweep.roof
    drawn = [r for r in sweep.roofline if _on_log_axis(r.intensity) and _on_log_axis(r.achieved / 1e12)]
    has_roof = _on_log_axis(roof.ridge) and _on_log_axis(roof.peak_flops / 1e12)
    grid = _log_grid([r.intensity for r in drawn] + ([roof.ridge] if has_roof else []) or [1.0])
    axes.set_xscale("log")
    axes.set_yscale("log")
    if has_roof:
        axes.plot(grid, [min(roof.peak_flops, i * roof.bandwidth) / 1e12 for i in grid], color="black",
                  label=f"roof: peak {format_value(roof.peak_flops, 'FLOP/s')}, ridge {roof.ridge:.0f} FLOP/B")
        axes.axvline(roof.ridge, color="grey", linestyle=":")
    # log axes have no place for zero, negative, infinite or astronomic values; a batch size with no
    # point (an input missing, or flagged as no measurement: a FLOP count of 1e300) is left out too: say so
    left_out = [f"b{r.batch_size}" for r in sweep.roofline if r not in drawn]
    unused = [f"b{b}" for b in sorted({row.batch_size for row in sweep.table} - {p.batch_size for p in sweep.roofline})]
    said = ([f"not drawn (value not from 1e-100 to 1e100): {', '.join(left_out)}"] if left_out else []) + (
        [f"not drawn (no usable intensity or FLOP rate: missing or suspect): {', '.join(unused)}"] if unused else [])
    if said:
        axes.text(0.99, 0.01, "; ".join(said), transform=axes.transAxes, ha="right", va="bottom", fontsize=7)
    colours = [axes.scatter(p.intensity, p.achieved / 1e12, zorder=3).get_facecolor()[0] for p in drawn]
    axes.set(xlabel="arithmetic intensity [FLOP/B]", ylabel="achieved [TFLOP/s]", title="Roofline")
    if has_roof:
        axes.legend(loc="upper left", fontsize=8)
    _label_points(figure, axes, [(f"b{p.batch_size}", (p.intensity, p.achieved / 1e12), colour)
                                 for p, colour in zip(drawn, colours, strict=True)])
    return figure


# Where a point's label may go, nearest first: beside, above and below, then further out (a leader
# line then ties it to its point). Clustered points (b32, b48, b64) take the free ones in turn.
_NEAR = [chart_labels.Offset(dx, dy, ha, va) for dx, dy, ha, va in (
    (5, -2, "left", "top"), (5, 2, "left", "bottom"), (-5, -2, "right", "top"), (-5, 2, "right", "bottom"),
    (0, 6, "center", "bottom"), (0, -6, "center", "top"))]
_FAR = [chart_labels.Offset(o.dx * 4, o.dy * 5, o.ha, o.va) for o in _NEAR]


def _label_points(figure: Any, axes: Any, points: list[tuple[str, tuple[float, float], Any]]) -> None:
    """Each point's label where it covers no other label, point or legend (placed after the layout),
    in its point's colour: a label pushed aside by a neighbour still says whose it is."""
    figure.draw_without_rendering()
    renderer = figure.canvas.get_renderer()
    taken = chart_labels.point_boxes(axes, [xy for _, xy, _ in points], radius=4)
    legend = axes.get_legend()
    if legend is not None:
        taken.append(chart_labels.Box.of(legend.get_window_extent(renderer)))
    taken += [chart_labels.Box.of(note.get_window_extent(renderer)) for note in axes.texts]
    for text, xy, colour in points:
        chart_labels.place(axes, text, xy, _NEAR + _FAR, taken, fontsize=8, color=colour,
                           leader={"arrowstyle": "-", "color": "0.5", "linewidth": 0.6, "shrinkB": 4})


def _log_grid(values: list[float]) -> list[float]:
    """101 points evenly spaced on a log axis from a quarter of the least value to four times the
    largest (values ``_on_log_axis``, so the grid's ends are plain floats)."""
    low = math.log10(min(values)) - math.log10(4)
    high = math.log10(max(values)) + math.log10(4)
    return [10 ** (low + (high - low) * i / 100) for i in range(101)]


def _on_log_axis(value: float) -> bool:
    return LOG_RANGE[0] <= value <= LOG_RANGE[1]


def memory_figure(sweep: Sweep) -> Any:
    figure = new_figure()
    axes = figure.add_subplot()
    points = [p for p in sweep.points if p.get("device_memory_total")]
    totals: dict[str, float] = {}
    for point in points:
        for name, value in point.values.items():
            if name.startswith("memory."):
                totals[name] = totals.get(name, 0.0) + value
    named = sorted(totals, key=lambda n: -totals[n])[:TOP_TYPES]
    left_out = [f"b{p.batch_size}" for p in points
                if not _plottable(sum(_stack(p, named, n) for n in [*named, "other"]))]
    points = [p for p in points if f"b{p.batch_size}" not in left_out]
    labels = [str(p.batch_size) for p in points]
    bottom = [0.0] * len(points)
    for name in named + ["other"]:
        heights = [_stack(p, named, name) for p in points]
        axes.bar(labels, heights, bottom=bottom, label=name.removeprefix("memory."))
        bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
    if sweep.memory is not None and _plottable(sweep.memory.hbm / GIB):
        axes.axhline(sweep.memory.hbm / GIB, color="red", linestyle="--", label="HBM per core")
    _not_drawn(axes, left_out)
    axes.set(xlabel="batch size [samples per step]", ylabel="device memory [GiB]", title="Device memory by usage type")
    axes.legend(fontsize=7, ncols=2)
    return figure


def _stack(point: Point, named: list[str], name: str) -> float:
    """One usage type's bar in GiB (``other``: the types not named)."""
    if name == "other":
        return float(sum(v for n, v in point.values.items() if n.startswith("memory.") and n not in named)) / GIB
    return float(point.get(name) or 0) / GIB


COLUMNS = 4  # metric panels per row of the comparison chart
VERDICT_COLOURS = {BETTER: "tab:green", WORSE: "tab:red"}  # anything else is grey
NO_CHANGE = {"added": "new", "removed": "gone"}  # what a cell with no size of change shows


def comparison_figure(comparison: Any, metrics: list[str] | None = None) -> Any:
    """Each variant's change on ``metrics`` (default: the headline's): one small panel per metric,
    a bar per variant coloured by verdict, each panel in one unit (percentage points for
    percentages, relative % otherwise; per sample where compared so) and on its own scale.

    One axes for every metric and variant made a 7 x 42 inch figure for seven variants, with pp and
    % on one axis and the small changes flattened by the largest."""
    from ..catalog import HEADLINE

    names = metrics or list(dict.fromkeys(h.metric for h in HEADLINE))
    rows = [row for name in names for row in comparison.rows if row.name == name]
    panels = [panel for panel in (_panel_of(row, comparison.basis) for row in rows) if panel is not None]
    variants = [side.label for side in comparison.variants]
    columns = min(COLUMNS, max(len(panels), 1))
    lines = -(-max(len(panels), 1) // columns)
    figure = new_figure(min(12.0, 1.6 + 2.6 * columns), min(10.0, 0.9 + lines * (0.7 + 0.18 * len(variants))))
    grid = figure.subplots(lines, columns, sharey=True, squeeze=False)
    for axes, panel in zip(grid.flat, panels, strict=False):
        _change_bars(axes, panel, variants)
    for axes in list(grid.flat)[len(panels):]:
        axes.set_axis_off()
    for axes in grid[:, 0]:
        axes.set_yticks(range(len(variants)), [_short(v) for v in variants], fontsize=8)
    empty = [row.name for row in rows if all(_size(cell.shown(row.basis(comparison.basis)), False) is None
                                             for cell in row.cells)]
    figure.suptitle(f"change vs the baseline ({_short(comparison.baseline.label)})"
                    + (f"\nno change to draw (on one side only): {', '.join(empty)}" if empty else ""),
                    fontsize=10)
    _verdict_legend(figure)
    return figure


def _verdict_legend(figure: Any) -> None:
    from matplotlib.patches import Patch

    handles = [Patch(color=VERDICT_COLOURS[BETTER], label="better"),
               Patch(color=VERDICT_COLOURS[WORSE], label="worse"),
               Patch(color="tab:grey", label="no verdict (within the noise band, or no better direction)")]
    figure.legend(handles=handles, loc="outside lower center", ncols=3, fontsize=8, frameon=False)


def _panel_of(row: Any, basis: str) -> tuple[str, str, list[tuple[float | None, str]]] | None:
    """(title, unit, [(size, verdict) per variant]); None when no variant has a size of change."""
    shown = row.basis(basis)
    deltas = [cell.shown(shown) for cell in row.cells]
    points = any(d.points is not None for d in deltas)
    bars = [(_size(d, points), d.verdict) for d in deltas]
    if all(size is None for size, _ in bars):
        return None
    title = row.name + (" per sample" if shown == SAMPLE else "")
    return title, "pp" if points else "%", bars


def _size(delta: Any, points: bool) -> float | None:
    value = delta.points if points else None if delta.relative is None else delta.relative * 100
    return value if value is not None and math.isfinite(value) else None


def _change_bars(axes: Any, panel: tuple[str, str, list[tuple[float | None, str]]], variants: list[str]) -> None:
    title, unit, bars = panel
    for place, (size, verdict) in enumerate(bars):
        if size is None:
            axes.text(0.02, place, NO_CHANGE.get(verdict, "n/a"), va="center", ha="left", fontsize=7,
                      color="0.4", transform=axes.get_yaxis_transform())  # at the left edge, any scale
        else:
            axes.barh(place, size, color=VERDICT_COLOURS.get(verdict, "tab:grey"), height=0.7)
    axes.axvline(0, color="black", linewidth=0.8)
    axes.set_title(title, fontsize=8)
    axes.set_xlabel(f"change [{unit}]", fontsize=8)
    axes.tick_params(axis="x", labelsize=7)
    axes.set_ylim(len(variants) - 0.5, -0.5)


def _short(label: str, most: int = 24) -> str:
    """A label cut in the middle to ``most`` characters: tick labels and titles stay on the figure."""
    return label if len(label) <= most else f"{label[:most // 2 - 1]}...{label[-(most // 2 - 2):]}"


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
