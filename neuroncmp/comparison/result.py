"""What ``compare()`` returns: immutable values, nothing about how they are shown.

A ``Comparison`` holds every row (one per metric), each with one ``Cell`` per variant, each cell
with a ``Delta`` per basis (per step; per sample for extensive metrics with known batch sizes).
Selecting, filtering and sorting rows is a separate, cheap step (``view.select``).

Records are strict NamedTuples (``records.record``: immutable, cheap, equal only to their own
kind); the ``Comparison`` container is a frozen dataclass, so the notebook API can subclass it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..catalog import MetricSpec
from ..choices import ABSENT, AUTO, SAMPLE, STEP, UNCHANGED, Basis, ShownBasis, Verdict
from ..model import Profile
from ..records import NamedTuple, record
from .bands import Band, Bands

ALPHA = 0.05  # significance level for repeated captures


@record
class Side(NamedTuple):
    """One side of the comparison: a label and its captures (one or more profiles)."""

    label: str
    profiles: tuple[Profile, ...]
    batch_size: int | None
    batch_size_source: str | None

    def __repr__(self) -> str:
        return f"<Side {self.label} batch_size={self.batch_size} captures={len(self.profiles)}>"

    @classmethod
    def of(cls, label: str, profiles: tuple[Profile, ...]) -> Side:
        sizes = {p.batch_size for p in profiles}  # captures of one side must agree
        return cls(label, profiles, sizes.pop() if len(sizes) == 1 else None,
                   profiles[0].params.get("batch_size_source"))

    @property
    def batch_size_inferred(self) -> bool:
        """Inferred when every capture's is (``Profile.batch_size_inferred``, the one definition):
        a capture that states the size the others agree on makes it stated."""
        return self.batch_size is not None and all(p.batch_size_inferred for p in self.profiles)


@record
class Delta(NamedTuple):
    """One metric, one variant, one basis (``step`` or ``sample``): both values and the change."""

    basis: ShownBasis
    baseline: Any
    variant: Any
    delta: float | None
    relative: float | None
    points: float | None
    ratio: float | None
    verdict: Verdict
    p_value: float | None = None
    in_band: bool = False  # the change is inside the noise band (or there is none)

    @property
    def not_significant(self) -> bool:
        """Repeated captures differ beyond the noise band, but not beyond what their spread
        explains. A change inside the band is plain unchanged (``=``), whatever the p-value:
        identical values against a history are ``=``, never ``?``."""
        return (self.verdict == UNCHANGED and not self.in_band and self.p_value is not None
                and self.p_value >= ALPHA)


@record
class Cell(NamedTuple):
    """One metric against one variant: per step, per sample (or None), capture counts, spreads."""

    variant: str
    step: Delta
    sample: Delta | None
    n_baseline: int
    n_variant: int
    spread_baseline: tuple[float, float] | None = None
    spread_variant: tuple[float, float] | None = None
    suspect: str | None = None   # why the values cannot be trusted: "baseline: percent-over-100 (...)"

    def __repr__(self) -> str:
        sample = f", sample {self.sample.verdict} {self.sample.relative}" if self.sample else ""
        return f"<Cell {self.variant}: step {self.step.verdict} {self.step.relative}{sample}>"

    def shown(self, basis: ShownBasis) -> Delta:
        """The delta in ``basis``, falling back to per step where no per-sample value exists."""
        return self.sample if basis == SAMPLE and self.sample is not None else self.step


@record
class Row(NamedTuple):
    """One metric across all variants."""

    name: str
    spec: MetricSpec
    unit: str
    cells: tuple[Cell, ...]
    band: Band       # the noise band verdicts were judged against

    def basis(self, basis: ShownBasis) -> ShownBasis:
        """The basis this row is shown in: per sample only when every variant has a per-sample value
        (a side without a batch size keeps the whole row per step, never a mix of the two)."""
        return SAMPLE if basis == SAMPLE and all(c.sample is not None for c in self.cells) else STEP

    def changed(self, basis: ShownBasis) -> bool:
        return any(cell.shown(basis).verdict not in (UNCHANGED, ABSENT) for cell in self.cells)

    def __repr__(self) -> str:
        return f"<Row {self.name} [{self.unit}] x{len(self.cells)} variants>"


@dataclass(frozen=True, slots=True)
class Comparison:
    """Baseline against variants: every row, every delta and verdict, and the warnings."""

    baseline: Side
    variants: tuple[Side, ...]
    rows: tuple[Row, ...]           # every metric, in catalog-group order
    basis: ShownBasis               # the basis verdicts are shown in
    basis_reason: str
    requested_basis: Basis
    bands: Bands
    warnings: tuple[str, ...]
    only_in: Mapping[str, tuple[str, ...]]   # metric -> labels that have it (when not all do)
    captures: str                   # how captures were compared, in one sentence

    @property
    def sides(self) -> tuple[Side, ...]:
        return (self.baseline, *self.variants)

    @property
    def step_context(self) -> bool:
        """Auto basis chose per sample: per-step values accompany the per-sample rows."""
        return self.requested_basis == AUTO and self.basis == SAMPLE

    def tally(self) -> tuple[dict[Verdict, int], ...]:
        """Per variant: how many rows got each verdict, each row judged in the compared basis."""
        counts: list[dict[Verdict, int]] = [{} for _ in self.variants]
        for row in self.rows:
            basis = row.basis(self.basis)
            for count, cell in zip(counts, row.cells, strict=False):
                verdict = cell.shown(basis).verdict
                count[verdict] = count.get(verdict, 0) + 1
        return tuple(counts)

    def row(self, name: str) -> Row:
        """The row of metric ``name`` (KeyError if no side has it)."""
        for row in self.rows:
            if row.name == name:
                return row
        raise KeyError(name)

    def cell(self, metric: str, variant: str) -> Cell:
        """One metric against one variant (by label): ``comparison.cell("total_time", "b32")``."""
        for cell in self.row(metric).cells:
            if cell.variant == variant:
                return cell
        raise KeyError(f"{variant!r} is not a variant of this comparison")

    def __repr__(self) -> str:
        labels = ", ".join(side.label for side in self.variants)
        return (f"<Comparison {self.baseline.label} vs {labels}: {len(self.rows)} metrics, "
                f"basis {self.basis}, {len(self.warnings)} warnings>")
