"""``history --format png``: each series' points, its levels between shifts, the shifts marked.

matplotlib (the ``plot`` extra) is imported by ``charts``, with its non-interactive Agg backend
selected on the figure (no global ``matplotlib.use``); the CLI writes the bytes atomically.
"""

from __future__ import annotations

import math
from itertools import pairwise
from typing import Any

from ..choices import BETTER, WORSE
from ..stats import median
from . import chart_labels
from .charts import new_figure, png
from .store_words import change_size, display_scale

LABEL_POINTS = 8  # the shift labels' font size
LABEL_ROWS = 3  # rows of shift labels a panel keeps free above its points (more shifts share them)


def history_png(result: Any) -> bytes:
    """One panel per series (values in the display unit, levels as steps), as PNG bytes."""
    return png(history_figure(result))


def history_figure(result: Any) -> Any:
    """The figure ``history_png`` draws (its geometry is what the tests check)."""
    values = [p.value for s in result.series for p in s.points]
    factor, label = display_scale(values, result.unit) or (1.0, result.unit)
    figure = new_figure(10, 2.6 * max(1, len(result.series)), dpi=110, needs="--format png needs")
    panels = []
    for row, series in enumerate(result.series or [None]):
        axes = figure.add_subplot(max(1, len(result.series)), 1, row + 1)
        if series is not None:
            _panel(axes, series, factor)
            panels.append((axes, series))
        axes.set_ylabel(f"{result.metric} [{label or result.unit}]")
        axes.set_xlabel("run time [UTC]")
    _label_shifts(figure, panels, factor, result.unit)
    return figure


def _panel(axes: Any, series: Any, factor: float) -> None:
    times = [p.time for p in series.points]
    axes.plot(times, [p.value / factor for p in series.points], ".", color="0.45", markersize=4)
    bounds = [0] + [series.points.index(c.at) for c in series.changes] + [len(series.points)]
    for start, end in pairwise(bounds):
        level = median([p.value for p in series.points[start:end]]) / factor
        axes.hlines(level, times[start], times[end - 1], color="tab:blue", linewidth=2)
    for change in series.changes:
        axes.axvline(change.at.time, color=_colour(change), linestyle="--", linewidth=1)
    axes.set_title(" ".join(f"{k}={v}" for k, v in sorted(series.tags.items())) or "(no tags)",
                   fontsize=9, loc="left")


def _colour(change: Any) -> str:
    return {WORSE: "tab:red", BETTER: "tab:green"}.get(change.direction, "tab:orange")


def _label_shifts(figure: Any, panels: list[tuple[Any, Any]], factor: float, unit: str) -> None:
    """Each shift's size and direction at the top of its line, in a band kept free of points (the
    label sat on the top frame, over the highest points); beside the line, or left of it near the
    right edge, one row lower where another shift's label is in the way. A fraction's shift is in
    percentage points, as ``history`` and ``regressions`` write it."""
    figure.draw_without_rendering()
    for axes, series in panels:
        _keep_band_free(axes, series, factor)
    figure.draw_without_rendering()
    line = LABEL_POINTS * 1.3
    offsets = [chart_labels.Offset(side * 3, -3 - row * line, "left" if side > 0 else "right", "top")
               for row in range(LABEL_ROWS) for side in (1, -1)]
    for axes, series in panels:
        taken = chart_labels.point_boxes(axes, [(axes.xaxis.convert_units(p.time), p.value / factor)
                                                for p in series.points if math.isfinite(p.value)], radius=3)
        for change in series.changes:
            chart_labels.place(axes, f"{change_size(change, unit)} {change.direction}",
                               (change.at.time, 1.0), offsets, taken, xycoords=("data", "axes fraction"),
                               fontsize=LABEL_POINTS, color=_colour(change))


def _keep_band_free(axes: Any, series: Any, factor: float) -> None:
    """Raise the top of the y axis so the highest point sits below ``LABEL_ROWS`` rows of labels."""
    rows = min(LABEL_ROWS, len(series.changes))
    if not rows:
        return
    band = (4 + rows * LABEL_POINTS * 1.3) * axes.figure.dpi / 72  # pixels
    height = axes.get_window_extent().height
    low, high = axes.get_ylim()
    finite = [p.value / factor for p in series.points if math.isfinite(p.value)]
    top = max(finite, default=high)
    if height > band and top > low:
        # (top - low) / (new_high - low) of the axes holds the points, the rest is the band
        axes.set_ylim(low, low + (top - low) * height / (height - band - 4))
