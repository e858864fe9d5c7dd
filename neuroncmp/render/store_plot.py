"""``history --format png``: each series' points, its levels between shifts, the shifts marked.

matplotlib (the ``plot`` extra) is imported here only, with its non-interactive Agg backend
selected on the figure (no global ``matplotlib.use``); the CLI writes the bytes atomically.
"""

from __future__ import annotations

import io
import math
from typing import Any

from ..errors import MissingDependencyError
from ..stats import median
from ..units import pick_scale


def history_png(result: Any) -> bytes:
    """One panel per series (values in the display unit, levels as steps), as PNG bytes."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise MissingDependencyError("--format png needs matplotlib: pip install 'neuroncmp[plot]'") from None
    values = [p.value for s in result.series for p in s.points if math.isfinite(p.value)]
    factor, label = pick_scale(median(values), result.unit) if values else (1.0, result.unit)
    figure = Figure(figsize=(10, 2.6 * max(1, len(result.series))), layout="constrained")
    FigureCanvasAgg(figure)
    for row, series in enumerate(result.series or [None]):
        axes = figure.add_subplot(max(1, len(result.series)), 1, row + 1)
        if series is not None:
            _panel(axes, series, factor)
        axes.set_ylabel(f"{result.metric} [{label or result.unit}]")
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110)
    return buffer.getvalue()


def _panel(axes: Any, series: Any, factor: float) -> None:
    times = [p.time for p in series.points]
    axes.plot(times, [p.value / factor for p in series.points], ".", color="0.45", markersize=4)
    bounds = [0] + [series.points.index(c.at) for c in series.changes] + [len(series.points)]
    for start, end in zip(bounds, bounds[1:], strict=False):
        level = median([p.value for p in series.points[start:end]]) / factor
        axes.hlines(level, times[start], times[end - 1], color="tab:blue", linewidth=2)
    for change in series.changes:
        colour = {"worse": "tab:red", "better": "tab:green"}.get(change.direction, "tab:orange")
        axes.axvline(change.at.time, color=colour, linestyle="--", linewidth=1)
        axes.annotate(f"{change.change:+.1%} {change.direction}", (change.at.time, 1.0),
                      xycoords=("data", "axes fraction"), va="top", fontsize=8, color=colour)
    axes.set_title(" ".join(f"{k}={v}" for k, v in sorted(series.tags.items())) or "(no tags)",
                   fontsize=9, loc="left")
