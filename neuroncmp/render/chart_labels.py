"""Labels on a matplotlib chart placed where they hide nothing: over no other label, no marked point,
and inside their axes (the roofline's batch sizes, the history's shifts).

Labels sitting at a fixed offset from their point overlapped as soon as points clustered (b32, b48
and b64 on the roofline) and ran over the frame at the edges; here each label takes the first of its
candidate offsets whose box, measured by the renderer, is free. Works on a figure whose layout is
already done (``figure.draw_without_rendering()``), in pixels; matplotlib is not imported here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple


class Box(NamedTuple):
    """A rectangle in pixels (display coordinates)."""

    x0: float
    y0: float
    x1: float
    y1: float

    @classmethod
    def of(cls, extent: Any) -> Box:
        """The box of a matplotlib ``Bbox``."""
        return cls(extent.x0, extent.y0, extent.x1, extent.y1)

    def overlap(self, other: Box) -> float:
        """The area the two boxes share (0 when they only touch)."""
        width = min(self.x1, other.x1) - max(self.x0, other.x0)
        height = min(self.y1, other.y1) - max(self.y0, other.y0)
        return width * height if width > 0 and height > 0 else 0.0

    def outside(self, frame: Box, margin: float = 1.0) -> float:
        """How far (pixels, summed over the four sides) the box reaches past ``frame`` less ``margin``."""
        return (max(0.0, frame.x0 + margin - self.x0) + max(0.0, self.x1 - frame.x1 + margin)
                + max(0.0, frame.y0 + margin - self.y0) + max(0.0, self.y1 - frame.y1 + margin))


class Offset(NamedTuple):
    """Where a label may go: ``dx``, ``dy`` points from its anchor, aligned by ``ha`` and ``va``."""

    dx: float
    dy: float
    ha: str
    va: str


def point_boxes(axes: Any, points: Sequence[tuple[float, float]], radius: float) -> list[Box]:
    """A square of ``radius`` pixels around each data point (its marker)."""
    centres = axes.transData.transform(points) if points else []
    return [Box(x - radius, y - radius, x + radius, y + radius) for x, y in centres]


def place(axes: Any, text: str, anchor: tuple[Any, float], offsets: Sequence[Offset], taken: list[Box],
          xycoords: Any = "data", leader: dict[str, Any] | None = None, **style: Any) -> Any:
    """Annotate ``text`` at ``anchor`` at the first offset whose box stays inside the axes and
    overlaps no box in ``taken`` (else the offset that overlaps least); its box joins ``taken``.
    A label further than 10 points from its anchor gets a ``leader`` line (arrowprops) if given.

    The label stays out of the layout (``in_layout=False``): it lies inside the axes by
    construction, and the layout was done before it was placed."""
    renderer = axes.figure.canvas.get_renderer()
    frame = Box.of(axes.get_window_extent(renderer))
    probe = axes.annotate(text, anchor, xycoords=xycoords, xytext=(0, 0), textcoords="offset points", **style)
    best: tuple[float, Offset] | None = None
    for offset in offsets:
        box = _try(probe, offset, renderer)
        cost = sum(box.overlap(other) for other in taken) + 1000 * box.outside(frame)
        if best is None or cost < best[0]:
            best = (cost, offset)
        if cost == 0:
            break
    probe.remove()
    chosen = best[1] if best is not None else Offset(0, 0, "left", "baseline")
    far = max(abs(chosen.dx), abs(chosen.dy)) > 10
    label = axes.annotate(text, anchor, xycoords=xycoords, textcoords="offset points",
                          xytext=(chosen.dx, chosen.dy), ha=chosen.ha, va=chosen.va,
                          arrowprops=leader if far else None, **style)
    label.set_in_layout(False)
    taken.append(Box.of(label.get_window_extent(renderer)))
    return label


def _try(label: Any, offset: Offset, renderer: Any) -> Box:
    label.set_position((offset.dx, offset.dy))
    label.set_horizontalalignment(offset.ha)
    label.set_verticalalignment(offset.va)
    return Box.of(label.get_window_extent(renderer))
