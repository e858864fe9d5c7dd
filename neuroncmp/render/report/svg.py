"""Inline SVG trend charts: a small sparkline for the index and a full chart for a series page,
each with its shifts marked. Pure: numbers in, markup out; nothing is loaded from elsewhere."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ...escape import html as escape

MAX_COLUMNS = 240  # a long series is drawn as the low and high of each column: same look, less weight
COLOURS = {"worse": "#b3261e", "better": "#137333", "changed": "#8a5a00"}


@dataclass(frozen=True)
class Shift:
    """A level shift to mark: ``index`` is the first point of the new level."""

    index: int
    before: float
    after: float
    size: str  # the change as history writes it: percentage points for a fraction, else relative
    direction: str
    text: str  # the tooltip: what changed, where
    first: int  # the earliest and latest point that may be the first of the new level (95 %)
    last: int


@dataclass(frozen=True)
class Band:
    """A noise band to draw a sparkline against: the values from ``low`` to ``high`` are inside
    it, around ``centre``; ``text`` says how wide (``±2 %``)."""

    low: float
    high: float
    centre: float
    text: str


@dataclass(frozen=True)
class Box:
    """The plot area inside the chart: left, top, width, height (pixels)."""

    left: float
    top: float
    width: float
    height: float


def sparkline(values: Sequence[float], shifts: Sequence[Shift], label: str, band: Band | None = None,
              width: int = 140, height: int = 34) -> str:
    """A small chart: the values as a line, each shift a coloured tick. Drawn against ``band``
    (shaded), the scale spanning at least two bands either way, so noise inside the band is never
    stretched to the full height; a value with no neighbour (a single run) is a dot."""
    box = Box(1, 3, width - 2, height - 6)
    low, high = _range(values, shifts)
    shade = ""
    if band is not None:
        low, high = min(low, 2 * band.low - band.centre), max(high, 2 * band.high - band.centre)
        top, bottom = _y(band.high, low, high, box), _y(band.low, low, high, box)
        shade = f'<rect x="0" y="{top:.1f}" width="{width}" height="{bottom - top:.1f}" fill="#e8e8e8"/>'
    ticks = "".join(f'<path d="M{_x(s.index, len(values), box):.1f} 0V{height}" stroke="'
                    f'{COLOURS.get(s.direction, "#555")}" stroke-width="1.5"><title>{escape(s.text)}'
                    f"</title></path>" for s in shifts)
    return (f'<svg class="spark" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
            f'role="img" aria-label="{escape(label)}"><title>{escape(label)}</title>{shade}'
            f'<path d="{_line(values, low, high, box)}" fill="none" stroke="#1a5fb4" stroke-width="1"/>'
            f"{_dots(values, low, high, box, 2)}{ticks}</svg>")


def trend(values: Sequence[float], shifts: Sequence[Shift], title: str, shown: Callable[[float], str],
          dates: tuple[str, str], width: int = 720, height: int = 180) -> str:
    """A full chart: the values, the level of each stretch between shifts (dashed), each shift a
    labelled line; the scale's low and high written by ``shown`` (with the unit), ``dates`` the
    first and last point's."""
    box = Box(6, 20, width - 12, height - 42)
    low, high = _range(values, shifts)
    parts = [(f'<svg class="trend" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
             f'role="img" aria-label="{escape(title)}"><title>{escape(title)}</title>'),
             (f'<rect x="{box.left}" y="{box.top}" width="{box.width}" height="{box.height}" '
             'fill="#fafafa" stroke="#ccc"/>'),
             _text(box.left, height - 6, dates[0], "start"),
             _text(box.left + box.width, height - 6, dates[1], "end"),
             f'<path d="{_line(values, low, high, box)}" fill="none" stroke="#1a5fb4" stroke-width="1.2"/>',
             _dots(values, low, high, box, 2.5)]
    parts[2:2] = [_candidates(s, len(values), box) for s in shifts if s.last > s.first]
    parts += _levels(values, shifts, low, high, box)
    parts += [_marker(s, len(values), box) for s in shifts]
    # the scale last, over the line, inside the plot: no label is ever cut at the edge
    parts += [_text(box.left + 4, box.top + 13, f"high {shown(high)}", "start", halo=True),
              _text(box.left + 4, box.top + box.height - 5, f"low {shown(low)}", "start", halo=True)]
    return "".join(parts) + "</svg>"


def _levels(values: Sequence[float], shifts: Sequence[Shift], low: float, high: float,
            box: Box) -> list[str]:
    """Each stretch's level (the detector's medians) as a dashed line across it."""
    if not shifts:
        return []
    edges = [0, *(s.index for s in shifts), len(values)]
    levels = [shifts[0].before, *(s.after for s in shifts)]
    out = []
    for start, end, level in zip(edges, edges[1:], levels):
        if not math.isfinite(level):
            continue
        y = _y(level, low, high, box)
        out.append(f'<path d="M{_x(start, len(values), box):.1f} {y:.1f}'
                   f'H{_x(max(end - 1, start), len(values), box):.1f}" '
                   'stroke="#333" stroke-dasharray="5 3" stroke-width="1.2"/>')
    return out


def _candidates(shift: Shift, count: int, box: Box) -> str:
    """The runs that may be the first of the new level, shaded in the shift's colour (under the
    line): from half a step before the earliest to half a step after the latest."""
    step = box.width / (count - 1) if count > 1 else box.width
    left = max(box.left, _x(shift.first, count, box) - step / 2)
    right = min(box.left + box.width, _x(shift.last, count, box) + step / 2)
    return (f'<rect x="{left:.1f}" y="{box.top}" width="{right - left:.1f}" height="{box.height}" '
            f'fill="{COLOURS.get(shift.direction, "#555")}" fill-opacity="0.15"/>')


def _dots(values: Sequence[float], low: float, high: float, box: Box, radius: float) -> str:
    """A dot for each finite value with no finite neighbour (a single run, or one between gaps):
    a line through it would draw nothing."""
    finite = [*map(math.isfinite, values), False]  # the False: no neighbour past either end ([-1])
    return "".join(f'<circle cx="{_x(i, len(values), box):.1f}" cy="{_y(values[i], low, high, box):.1f}" '
                   f'r="{radius}" fill="#1a5fb4"/>'
                   for i in range(len(values)) if finite[i] and not finite[i - 1] and not finite[i + 1])


def _marker(shift: Shift, count: int, box: Box) -> str:
    x = _x(shift.index, count, box)
    colour = COLOURS.get(shift.direction, "#555")
    anchor = "end" if x > box.left + box.width * 0.8 else "start"
    label = shift.size if shift.size != "n/a" else "new level"
    return (f'<g><title>{escape(shift.text)}</title><path d="M{x:.1f} {box.top}V{box.top + box.height}" '
            f'stroke="{colour}" stroke-width="1.5"/>'
            f'<text x="{x + (3 if anchor == "start" else -3):.1f}" y="{box.top - 5}" fill="{colour}" '
            f'text-anchor="{anchor}" font-size="11">{escape(label)}</text></g>')


def _text(x: float, y: float, text: str, anchor: str, halo: bool = False) -> str:
    """A label; ``halo``: outlined in white, legible over the line."""
    outline = ' stroke="#fff" stroke-width="3" paint-order="stroke"' if halo else ""
    return (f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" font-size="11" fill="#444"{outline}>'
            f"{escape(text)}</text>")


def _range(values: Sequence[float], shifts: Sequence[Shift]) -> tuple[float, float]:
    """The values' low and high (levels included), a flat series given some height."""
    finite = [v for v in values if math.isfinite(v)]
    finite += [x for s in shifts for x in (s.before, s.after) if math.isfinite(x)]
    if not finite:
        return 0.0, 1.0
    low, high = min(finite), max(finite)
    if high == low:
        pad = abs(low) * 0.01 or 1.0
        return low - pad, high + pad
    return low, high


def _x(index: int, count: int, box: Box) -> float:
    return box.left + (box.width * index / (count - 1) if count > 1 else box.width / 2)


def _y(value: float, low: float, high: float, box: Box) -> float:
    return box.top + box.height * (1 - (value - low) / (high - low))


def _line(values: Sequence[float], low: float, high: float, box: Box) -> str:
    """The path through the values; a gap where one is not finite; a long series by columns."""
    out, pen = [], "M"
    for index, value in _columns(values):
        if not math.isfinite(value):
            pen = "M"
            continue
        out.append(f"{pen}{_x(index, len(values), box):.1f} {_y(value, low, high, box):.1f}")
        pen = "L"
    return "".join(out) or "M0 0"


def _columns(values: Sequence[float]) -> list[tuple[int, float]]:
    """(index, value) to draw: all of them, or for a long series the lowest and highest of each
    of ``MAX_COLUMNS`` columns, in order, so a spike stays visible."""
    if len(values) <= 2 * MAX_COLUMNS:
        return list(enumerate(values))
    out: list[tuple[int, float]] = []
    step = len(values) / MAX_COLUMNS
    for column in range(MAX_COLUMNS):
        indices = range(int(column * step), int((column + 1) * step))
        finite = [(values[i], i) for i in indices if math.isfinite(values[i])]
        if finite:
            ends = sorted({min(finite)[1], max(finite)[1]})
            out += [(i, values[i]) for i in ends]
    return out
