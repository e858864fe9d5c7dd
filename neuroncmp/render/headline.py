"""The headline every diff opens with: the catalog's key numbers per variant, the "bound by" line and a
verdict tally; which lines and why: ``docs/commands/diff.md`` (the headline) and ``docs/bounds.md``."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from ..analysis.bounds import Bounds, Shift, shift
from ..analysis.gaps import Speedup, next_bottleneck, short_name, speedup
from ..analysis.side_bounds import bounds_for
from ..catalog import HEADLINE
from ..choices import BETTER, SAMPLE, STEP, SUSPECT, WORSE, Verdict
from ..comparison.result import Comparison, Row
from ..model import PROFILER_BUFFERS, WORKLOAD
from .rows import Line, line

if TYPE_CHECKING:
    from ..commands.documents import DiffReport


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
        if entry.metric == WORKLOAD:
            out += _memory_lines(comparison, entry.label, row)
            continue
        out.append(HeadlineRow(entry.label, line(row, entry.basis)))
    return out


def _memory_lines(comparison: Comparison, label: str, total: Row) -> list[HeadlineRow]:
    """The workload's device memory (per core, when the table is per core: a sum over cores hides
    which one changed), the usage type that changed most, and the profiler's buffers apart (never
    scored: they are the tool's, not the workload's)."""
    cores = [row for row in comparison.rows if row.name.startswith(f"{WORKLOAD}.")]
    if any(cell.step.baseline is None or cell.step.variant is None for row in cores for cell in row.cells):
        # the sides list other cores (1 against 2): each side's total, both shown, not compared (a warning says so)
        cores, label = [], label.replace("device memory", "device memory, every core")
    out = [HeadlineRow(label.replace("device memory", f"device memory {_core(row.name)}"), line(row, STEP))
           for row in cores] or [HeadlineRow(label, line(total, STEP))]
    largest = max((row for row in comparison.rows if row.name.startswith("memory.") and
                    row.name != f"memory.{PROFILER_BUFFERS}"), key=_largest_change, default=None)
    if largest is not None and _largest_change(largest) > 0:
        out.append(HeadlineRow(f"  largest change: {largest.name.removeprefix('memory.')}", line(largest, STEP)))
    buffers = next((row for row in comparison.rows if row.name == f"memory.{PROFILER_BUFFERS}"), None)
    if buffers is not None:
        out.append(HeadlineRow("  profiler buffers (not scored)", line(buffers, STEP)))
    return out


def _core(name: str) -> str:
    """``nc4`` (``nd1 nc4`` with several devices) of a per-core workload row's name."""
    return name.removeprefix(f"{WORKLOAD}.").replace(".", " ")


def _largest_change(row: Row) -> float:
    """The largest change of a row's bytes against the baseline over the variants (a value on one
    side only changes by all of it)."""
    steps = [cell.step for cell in row.cells]
    changes = [abs(step.delta) if step.delta is not None else abs(step.variant if isinstance(step.variant, (int, float))
                                                                  else step.baseline
                                                                  if isinstance(step.baseline, (int, float)) else 0)
               for step in steps]
    return max(changes, default=0.0)


BOUND_LABEL = "bound by"
BOUND_TITLE = "bound by (step / its bound)"  # one line: "DMA 1.17x"
NEXT_LABEL = "  next bottleneck"
NEXT_SHARE_LABEL = "    its time / the bound's"  # the terminal's row under NEXT_LABEL
NEXT_TITLE = "next bottleneck (% of its time)"
SPEEDUP_LABEL = "  speedup if ideal"
SPEEDUP_TITLE = "speedup if ideal (AWS bn_speedup)"


class BoundLine(NamedTuple):
    """The headline's "bound by" line: per side (baseline first) its bounds, the cell text and, for a
    variant whose bottleneck is not the baseline's, the shift; successive versions: the shift from the one
    before instead, everywhere the line is shown (``shown``)."""

    bounds: tuple[Bounds, ...]
    cells: tuple[str, ...]                  # "DMA 1.17x", "-" when unknown
    shifts: tuple[Shift | None, ...]        # per side; None for the baseline and an unchanged bottleneck
    previous: tuple[Shift | None, ...] = ()  # successive versions: each side's shift from the one before

    @property
    def shown(self) -> tuple[Shift | None, ...]:
        """The shifts the line shows: from the version before when the sides are versions, else from the baseline."""
        return self.previous or self.shifts

    def short(self) -> tuple[tuple[str, str, str], ...]:
        """Each side's cell in short parts for narrow columns: ``("tensor", "1.30x", "from DMA")``
        (gap and shift ``""`` when unknown or unchanged)."""
        return tuple((_short(b), f"{b.gap:.2f}x" if b.gap is not None else "-",
                      f"from {short_name(moved.before_name)}" if moved else "")
                     for b, moved in zip(self.bounds, self.shown, strict=True))

    def one_line(self) -> tuple[str, ...]:
        """Each cell with its shift on the same line: ``tensor engine 1.30x (from DMA)``; successive versions
        name the version it moved from (``(from DMA in V0)``)."""
        return tuple(text + (f" (from {moved.before}" + (f" in {moved.against})" if self.previous else ")")
                             if moved else "")
                     for text, moved in zip(self.cells, self.shown, strict=True))

    def next_parts(self) -> tuple[tuple[str, str], ...]:
        """Each side's next bottleneck and its share of the bottleneck's time: ``("vector", "75%")``."""
        return tuple((short_name(found.bound.name), f"{found.share:.0%}")
                     if (found := next_bottleneck(b)) is not None else ("-", "") for b in self.bounds)

    def next_cells(self) -> tuple[str, ...]:
        """``next_parts`` as one cell each: ``vector 75%``."""
        return tuple(f"{name} {share}".strip() for name, share in self.next_parts())

    def speedup_cells(self) -> tuple[str, ...]:
        """Each side's speedup estimate at its bottleneck family's ideal: ``1.79x`` (``-``: not computed)."""
        return tuple(found.cell if isinstance(found := speedup(b), Speedup) else "-" for b in self.bounds)


def bound_line(comparison: Comparison, found: tuple[Bounds, ...] = (), versions: bool = False) -> BoundLine | None:
    """What bounds each side's step (``found``: computed already, else here with the profiles' own peaks);
    None when no side has a bound to compute. ``versions``: the sides are successive versions, each also
    judged against the one before."""
    found = found or bounds_for(comparison.sides)
    if all(b.bottleneck is None for b in found):
        return None
    base, label = found[0], comparison.baseline.label
    shifts = (None, *(shift(side.label, base, b, label) for side, b in zip(comparison.variants, found[1:],
                                                                           strict=True)))
    labels = [side.label for side in comparison.sides]
    previous = (None, *(shift(labels[at], found[at - 1], found[at], labels[at - 1])
                        for at in range(1, len(found)))) if versions else ()
    return BoundLine(found, tuple(_bound_cell(b) for b in found), shifts, previous)


def report_bound_line(report: DiffReport) -> BoundLine | None:
    """``bound_line`` of a diff report: its bounds (under the options' peaks) and whether its sides are versions."""
    return bound_line(report.comparison, report.bounds, report.versions)


def bound_rows(report: DiffReport) -> list[tuple[str, tuple[str, ...]]]:
    """The "bound by" line as a document's rows, a cell a side: the bound, the next bottleneck, the speedup."""
    bound = report_bound_line(report)
    if bound is None:
        return []
    return [(BOUND_TITLE, bound.one_line()), (NEXT_TITLE, bound.next_cells()), (SPEEDUP_TITLE, bound.speedup_cells())]


def _short(bounds: Bounds) -> str:
    return short_name(bounds.bottleneck.name) if bounds.bottleneck else "-"


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


TALLY_LABEL = "rows better / worse / suspect"  # the headline's last line, in every format


def tally_texts(comparison: Comparison) -> list[str]:
    """Each variant's ``tally_text``, or ``not comparable`` where it ran another workload (withheld)."""
    from ..comparison.comparability import NOT_COMPARABLE

    return [NOT_COMPARABLE if side.label in comparison.not_comparable else tally_text(counts)
            for side, counts in zip(comparison.variants, comparison.tally(), strict=True)]


def tally_text(counts: dict[Verdict, int]) -> str:
    """``12✔ 3✘`` (and ``2!`` for rows with a suspect input) for one variant (``Comparison.tally``)."""
    text = f"{counts.get(BETTER, 0)}✔ {counts.get(WORSE, 0)}✘"
    return text + (f" {counts[SUSPECT]}!" if counts.get(SUSPECT) else "")
