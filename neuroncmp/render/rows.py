"""The one walk over a comparison's rows that every tabular renderer shares.

``lines(comparison, view)`` yields, in order, a ``Heading`` when the catalog group changes (in
grouped views) and a ``Line`` per metric row, followed by its per-step ``Line`` when per-sample
rows carry per-step context. A ``Line`` holds what every format shows of a row: the title,
the display unit chosen from the baseline (pyperf's rule: a row reads in one unit), each side's
value and each variant's change.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import chain
from typing import Any, NamedTuple

from ..choices import SAMPLE, STEP, ShownBasis
from ..comparison.result import Comparison, Delta, Row
from ..comparison.view import View
from ..units import finite_number, format_value, pick_scale
from .changes import sparkline


class Heading(NamedTuple):
    group: str


class Line(NamedTuple):
    """One row in one basis, ready to show."""

    row: Row
    basis: ShownBasis          # the basis of the values
    step_context: bool         # a per-step line under a per-sample row
    scale: tuple[float, str] | None

    @property
    def title(self) -> str:
        """``total_time/sample``, ``name (uncatalogued)``; the unit is left to ``unit``."""
        return self.titled("")

    def titled(self, unit: str) -> str:
        """The title with a unit in brackets: ``total_time/sample [ms]``; a per-step line under a
        per-sample row: ``per step [ms]`` (its unit may not be the row's: 6.723 ms vs 53.78 ms is
        the same unit, 81.79 GFLOP per sample vs 2.551 TFLOP per step is not); each format indents it."""
        bracket = f" [{unit}]" if unit else ""
        if self.step_context:
            return "per step" + bracket
        suffix = "/sample" if self.basis == SAMPLE else ""
        spec = self.row.spec
        note = " (derived)" if spec.derived else "" if spec.catalogued else " (uncatalogued)"
        return self.row.name + suffix + bracket + note

    @property
    def unit(self) -> str:
        """The display unit of the row's values (``ms``, ``GiB``, ``%``), or ``""``."""
        return self.scale[1] if self.scale else ""

    @property
    def deltas(self) -> list[Delta]:
        return list(self.row.shown(self.basis))

    @property
    def baseline(self) -> Any:
        return self.row.baseline(self.basis)

    def values(self) -> list[Any]:
        """The values this line compares: the baseline's, then each variant's."""
        return [self.baseline, *(delta.variant for delta in self.deltas)]

    def value(self, value: Any, *, with_unit: bool = True) -> str:
        """A value of this row in its display unit."""
        return format_value(value, self.row.unit, self.scale, with_unit=with_unit)

    def trend(self, order: list[int], values: list[Any] | None = None) -> str:
        """A sparkline of the sides' values (``values``, else this line's), in ``order`` (side indexes;
        see ``trend_order``)."""
        if values is None:
            values = self.values()
        # flat when the values' whole range, lowest to highest, is inside the row's noise band
        return sparkline([values[i] for i in order], inside=self.row.band.inside)


Entry = Heading | Line


def lines(comparison: Comparison, view: View, *, hide_identical_text: bool = False) -> Iterator[Entry]:
    """Headings and lines in view order (see the module docstring)."""
    group = None
    for row in view.rows:
        if hide_identical_text and identical_text(row):
            continue
        if view.grouped and row.spec.group != group:
            group = row.spec.group
            yield Heading(group)
        basis = row.basis(comparison.basis)
        yield line(row, basis)
        if comparison.step_context and basis == SAMPLE:
            yield line(row, STEP, step_context=True)


def line(row: Row, basis: ShownBasis, *, step_context: bool = False) -> Line:
    return Line(row, basis, step_context, scale_for(row, basis))


def trend_order(comparison: Comparison) -> list[int]:
    """Side indexes (0 = baseline) in batch-size order when every batch size is known, else as given."""
    sides = comparison.sides
    if any(side.batch_size is None for side in sides):
        return list(range(len(sides)))
    return sorted(range(len(sides)), key=lambda i: sides[i].batch_size or 0)  # all known (checked above)


def identical_text(row: Row) -> bool:
    """Versions and indices that agree on every side (the terminal leaves them to a count)."""
    return row.spec.kind in ("text", "index") and not row.changed(STEP)


def scale_for(row: Row, basis: ShownBasis) -> tuple[float, str] | None:
    """The display scale of a row, chosen from the baseline (else the first variant) with a finite
    number: an infinity or NaN says nothing about the scale the other values read best in."""
    values = chain((row.baseline(basis),), row.values(basis))
    reference = next((v for v in values if finite_number(v)), None)
    return None if reference is None else pick_scale(reference, row.unit)
