"""The headline every diff opens with: the catalog's key numbers per variant, and a verdict tally.

Which metrics, in which basis and under which name is declared in ``catalog.HEADLINE``; a line
whose metric no side has is left out (a Trainer-less run has no end-to-end throughput), and a
per-sample line without batch sizes is left out with a note. Below them, ``bound_line``: what bounds
each side's step and how many times that bound the step takes (``analysis/bounds.py``).
"""

from __future__ import annotations

from ..analysis.bounds import Bounds, Shift, shift
from ..analysis.sweep import bounds_for
from ..catalog import HEADLINE
from ..choices import BETTER, SAMPLE, SUSPECT, WORSE, Verdict
from ..comparison.result import Comparison
from ..records import NamedTuple, record
from .rows import Line, line


@record
class HeadlineRow(NamedTuple):
    label: str   # "throughput (device)"
    line: Line   # the metric's values and changes in the headline's basis


def headline(comparison: Comparison) -> list[HeadlineRow]:
    names = {row.name: row for row in comparison.rows}
    out = []
    for entry in HEADLINE:
        row = names.get(entry.metric)
        if row is None or (entry.basis == SAMPLE and row.basis(SAMPLE) != SAMPLE):
            continue
        out.append(HeadlineRow(entry.label, line(row, entry.basis)))
    return out


BOUND_LABEL = "bound by"
BOUND_TITLE = "bound by (step / its bound)"  # one line: "DMA 1.17x"


@record
class BoundLine(NamedTuple):
    """The headline's "bound by" line: per side (baseline first) its bounds, the cell text and, for a
    variant whose bottleneck is not the baseline's, the shift."""

    bounds: tuple[Bounds, ...]
    cells: tuple[str, ...]                  # "DMA 1.17x", "-" when unknown
    shifts: tuple[Shift | None, ...]        # per side; None for the baseline and an unchanged bottleneck

    def short(self) -> tuple[tuple[str, str, str], ...]:
        """Each side's cell in short parts for narrow columns: ``("tensor", "1.30x", "from DMA")``
        (gap and shift ``""`` when unknown or unchanged)."""
        return tuple((_short(b), f"{b.gap:.2f}x" if b.gap is not None else "-",
                      f"from {_short_name(moved.before_name)}" if moved else "")
                     for b, moved in zip(self.bounds, self.shifts, strict=True))

    def one_line(self) -> tuple[str, ...]:
        """Each cell with its shift on the same line: ``tensor engine 1.30x (from DMA)``."""
        return tuple(text + (f" (from {moved.before})" if moved else "")
                     for text, moved in zip(self.cells, self.shifts, strict=True))


def bound_line(comparison: Comparison) -> BoundLine | None:
    """What bounds each side's step; None when no side has a bound to compute."""
    found = bounds_for(comparison.sides)
    if all(b.bottleneck is None for b in found):
        return None
    base, label = found[0], comparison.baseline.label
    shifts = (None, *(shift(side.label, base, b, label) for side, b in zip(comparison.variants, found[1:],
                                                                           strict=True)))
    return BoundLine(found, tuple(_bound_cell(b) for b in found), shifts)


SHORT = {"dma": "DMA", "gpsimd": "GpSimd"}  # else the bound's name: "tensor", "compute", "memory"


def _short_name(name: str) -> str:
    return SHORT.get(name, name)


def _short(bounds: Bounds) -> str:
    return _short_name(bounds.bottleneck.name) if bounds.bottleneck else "-"


def _bound_cell(bounds: Bounds) -> str:
    top = bounds.bottleneck
    if top is None:
        return "-"
    return f"{top.label} {bounds.gap:.2f}x" if bounds.gap is not None else top.label


def notes(comparison: Comparison) -> list[str]:
    """Why headline lines are missing, when they are."""
    if any(side.batch_size is None for side in comparison.sides):
        return ["per-sample lines need every batch size (give them in the file name or a manifest)"]
    return []


def tally_text(counts: dict[Verdict, int]) -> str:
    """``12✔ 3✘`` (and ``2!`` for suspect rows) for one variant."""
    text = f"{counts.get(BETTER, 0)}✔ {counts.get(WORSE, 0)}✘"
    return text + (f" {counts[SUSPECT]}!" if counts.get(SUSPECT) else "")
