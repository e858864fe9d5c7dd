"""What ``compare()`` returns: immutable values, nothing about how they are shown.

A ``Comparison`` holds a ``Row`` per metric and a row a ``Cell`` per variant. Selecting and sorting
rows is ``view.select``. ``suspects``: which of a side's values cannot be trusted."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ..catalog import MetricSpec, derived_specs, resolve_named, suggestion
from ..choices import ABSENT, AUTO, CONTEXT, NEUTRAL, SAMPLE, STEP, SUSPECT, UNCHANGED, Basis, ShownBasis, Verdict
from ..model import FrozenDict, Profile
from .bands import Band, Bands

ALPHA = 0.05  # significance level for repeated captures
UNJUDGED = (NEUTRAL, CONTEXT)  # verdicts that judge nothing: whether a value moved is its in_band


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


def suspects(side: Side) -> dict[str, str]:
    """Metric -> why its value on this side cannot be trusted: its input anomalies, and the derived
    values that inherit them (read by the differ and by one profile's bounds in ``show``)."""
    found: dict[str, str] = {}
    for profile in side.profiles:
        for anomaly in profile.anomalies:
            if anomaly.metric:
                found.setdefault(anomaly.metric, f"{side.label}: {anomaly.code} ({anomaly.message})")
    for spec in derived_specs():  # in catalog order: a derived input's doubt passes on
        source = next((name for name in spec.every_input if name in found), None)
        if source is not None and spec.name not in found:
            found[spec.name] = found[source]  # the first doubted input's
    return found


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


@dataclass(frozen=True)
class Row:
    """One metric against every variant: a ``Cell`` per variant, in the comparison's order."""

    name: str
    spec: MetricSpec
    unit: str
    band: Band          # the noise band verdicts were judged against
    cells: tuple[Cell, ...]

    @property
    def variants(self) -> tuple[str, ...]:
        """The variants' labels."""
        return tuple(cell.variant for cell in self.cells)

    @property
    def has_sample(self) -> bool:
        """Some variant has a per-sample value (an extensive metric, the baseline's batch size known)."""
        return any(cell.sample is not None for cell in self.cells)

    def shown(self, basis: ShownBasis) -> tuple[Delta, ...]:
        """Each variant's delta in ``basis`` (``Cell.shown``: per step where it has no per-sample value)."""
        return tuple(cell.shown(basis) for cell in self.cells)

    def values(self, basis: ShownBasis) -> list[Any]:
        """Each variant's value in ``basis``."""
        return [delta.variant for delta in self.shown(basis)]

    def baseline(self, basis: ShownBasis) -> Any:
        """The baseline's value in ``basis`` as the first variant's cell shows it."""
        return self.cells[0].shown(basis).baseline

    def verdicts(self, basis: ShownBasis) -> tuple[Verdict, ...]:
        """Each variant's verdict in ``basis``."""
        return tuple(delta.verdict for delta in self.shown(basis))

    def basis(self, basis: ShownBasis) -> ShownBasis:
        """The basis this row is shown in: per sample only when every variant has a per-sample value
        (a side without a batch size keeps the whole row per step, never a mix of the two)."""
        every = all(cell.sample is not None for cell in self.cells)
        return SAMPLE if basis == SAMPLE and every else STEP

    def changed(self, basis: ShownBasis) -> bool:
        """Whether a variant's value moved beyond the noise band (or came, went or is suspect); a row
        shown without a verdict (not scored, context, withheld) by its values against the band."""
        return any(delta.verdict not in (UNCHANGED, ABSENT) and not (delta.in_band and delta.verdict in UNJUDGED)
                   for delta in self.shown(basis))

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
    # variant label -> why it and the baseline ran different workloads: its verdicts and tally withheld
    not_comparable: Mapping[str, str] = field(default_factory=FrozenDict)

    @property
    def sides(self) -> tuple[Side, ...]:
        return (self.baseline, *self.variants)

    @property
    def step_context(self) -> bool:
        """Auto basis chose per sample: per-step values accompany the per-sample rows."""
        return self.requested_basis == AUTO and self.basis == SAMPLE

    def tally(self) -> tuple[dict[Verdict, int], ...]:
        """Per variant: how many rows got each verdict, each row judged in the compared basis; and
        ``suspect``: the rows whose values carry an input anomaly, whatever their mark (a metric the
        variant lacks included: "2 input anomalies" are 2 suspect rows, one of them "gone"), so the
        counts may sum to more than the rows. A variant ``not_comparable`` gets no counts (``{}``)."""
        per_variant = zip(*(row.verdicts(row.basis(self.basis)) for row in self.rows), strict=True)
        counted = tuple(dict(Counter(verdicts)) for verdicts in per_variant)  # each verdict where first seen
        if not counted:
            return tuple({} for _ in self.variants)
        if self.not_comparable:  # withheld: no count of a variant that ran another workload
            counted = tuple({} if side.label in self.not_comparable else counts
                            for side, counts in zip(self.variants, counted, strict=True))
        for index, counts in enumerate(counted):
            if not counts:
                continue
            suspect = sum(1 for row in self.rows if row.cells[index].suspect is not None)
            if suspect:
                counts[SUSPECT] = suspect
            else:
                counts.pop(SUSPECT, None)
        return counted

    def row(self, name: str) -> Row:
        """The row of metric ``name``, resolved as every option takes a metric name (``mfu`` is
        ``mfu_estimated_percent``; ``total_time/step`` the row of total_time, which holds both bases);
        KeyError naming the closest if no side has it."""
        names = [row.name for row in self.rows]
        resolved, _basis = resolve_named(name, names)
        if resolved in names:
            return self.rows[names.index(resolved)]
        raise KeyError(f"{name!r} is no row of this comparison{suggestion(name, names)}")

    def cell(self, metric: str, variant: str) -> Cell:
        """One metric against one variant (by label): ``comparison.cell("total_time", "b32")``."""
        row = self.row(metric)
        if variant in row.variants:
            return row.cells[row.variants.index(variant)]
        raise KeyError(f"{variant!r} is not a variant of this comparison")

    def __repr__(self) -> str:
        labels = ", ".join(side.label for side in self.variants)
        return (f"<Comparison {self.baseline.label} vs {labels}: {len(self.rows)} metrics, "
                f"basis {self.basis}, {len(self.warnings)} warnings>")
