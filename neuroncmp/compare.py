"""``compare()``: baseline against variants, metric by metric, with verdicts from the catalog.

Pure: no printing, no CLI objects. Profiles sharing a label are repeated captures of one side:
their median is compared, with the spread and a permutation test; a single capture gets no
statistics. Extensive metrics (times, bytes, FLOPs, counts) are also compared per sample when
batch sizes are known.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Any, Iterable

from . import stats
from .catalog import MetricSpec, group_rank, lookup
from .model import Metric, Profile
from .thresholds import Band, Thresholds

BETTER, WORSE, UNCHANGED, ADDED, REMOVED, NEUTRAL = (
    "better", "worse", "unchanged", "added", "removed", "neutral")
VERDICTS = (BETTER, WORSE, UNCHANGED, ADDED, REMOVED, NEUTRAL)
ALPHA = 0.05
SORTS = ("group", "change", "name")


@dataclass(frozen=True)
class Side:
    """One side of the comparison: a label and its captures (one or more profiles)."""

    label: str
    profiles: tuple[Profile, ...]

    @property
    def batch_size(self) -> int | None:
        sizes = {p.batch_size for p in self.profiles}
        return sizes.pop() if len(sizes) == 1 else None

    @property
    def batch_size_source(self) -> str | None:
        return self.profiles[0].params.get("batch_size_source")

    def metrics(self) -> dict[str, list[Metric]]:
        """Every comparable value by name: summary metrics, memory by type, Trainer metrics."""
        out: dict[str, list[Metric]] = {}
        for profile in self.profiles:
            merged = {**profile.metrics, **profile.memory_metrics(), **profile.training}
            for name, metric in merged.items():
                out.setdefault(name, []).append(metric)
        return out


@dataclass(frozen=True)
class Delta:
    """One metric, one variant, one basis (per step or per sample)."""

    basis: str
    baseline: Any
    variant: Any
    delta: float | None
    relative: float | None
    points: float | None
    ratio: float | None
    verdict: str
    p_value: float | None = None


@dataclass(frozen=True)
class Cell:
    variant: str
    step: Delta
    sample: Delta | None
    n_baseline: int
    n_variant: int
    spread_baseline: tuple[float, float] | None = None
    spread_variant: tuple[float, float] | None = None

    def shown(self, basis: str) -> Delta:
        return self.sample if basis == "sample" and self.sample is not None else self.step


@dataclass(frozen=True)
class Row:
    name: str
    spec: MetricSpec
    unit: str
    cells: tuple[Cell, ...]

    def changed(self, basis: str) -> bool:
        return any(cell.shown(basis).verdict != UNCHANGED for cell in self.cells)

    def magnitude(self, basis: str) -> float:
        """Largest |relative change| across variants (for sorting by change)."""
        sizes = [abs(c.shown(basis).relative) for c in self.cells
                 if c.shown(basis).relative is not None and not math.isnan(c.shown(basis).relative)]
        return max(sizes, default=math.inf if self.changed(basis) else 0.0)


@dataclass
class Comparison:
    baseline: Side
    variants: list[Side]
    rows: list[Row]
    all_rows: list[Row]
    basis: str
    basis_reason: str
    thresholds: Thresholds
    warnings: list[str] = field(default_factory=list)
    only_in: dict[str, list[str]] = field(default_factory=dict)
    hidden_unchanged: int = 0
    filtered_out: int = 0
    captures: str = ""
    gates: list[Any] = field(default_factory=list)
    also_step: bool = False  # auto basis chose per sample: views add the per-step change too
    sort: str = "group"

    @property
    def grouped(self) -> bool:
        """Whether rows come in catalog-group order (views print group headings then)."""
        return self.sort == "group"

    @property
    def sides(self) -> list[Side]:
        return [self.baseline, *self.variants]

    def tripped(self) -> list[Any]:
        return [gate for gate in self.gates if gate.tripped]

    def to_frame(self) -> Any:
        """A tidy pandas DataFrame, one row per metric x variant x basis (pandas imported here)."""
        from .render.frame import to_frame

        return to_frame(self)

    def _repr_html_(self) -> str:
        from .render.html import render

        return render(self, standalone=False)


# ---- building ---------------------------------------------------------------------------------

def sides_from(baseline: Profile | Iterable[Profile], variants: Iterable[Profile | Iterable[Profile]]) -> list[Side]:
    """Group profiles into sides by label, in order; the first label is the baseline."""
    flat: list[Profile] = []
    for item in (baseline, *variants):
        flat.extend([item] if isinstance(item, Profile) else list(item))
    order: dict[str, list[Profile]] = {}
    for profile in flat:
        order.setdefault(profile.label, []).append(profile)
    return [Side(label, tuple(profiles)) for label, profiles in order.items()]


def compare(baseline: Profile | Iterable[Profile], *variants: Profile | Iterable[Profile],
            basis: str = "auto", thresholds: Iterable[str] = (), groups: Iterable[str] = (),
            metrics: Iterable[str] = (), only_changed: bool = False, sort: str = "group") -> Comparison:
    """Compare the baseline against each variant. See the module docstring."""
    from .comparability import warnings_for

    sides = sides_from(baseline, variants)
    if len(sides) < 2:
        raise ValueError("compare() needs a baseline and at least one variant with another label")
    bands = Thresholds(list(thresholds))
    chosen, reason = _basis(sides, basis)
    all_rows = _rows(sides, bands)
    comparison = Comparison(sides[0], sides[1:], [], all_rows, chosen, reason, bands,
                            also_step=basis == "auto" and chosen == "sample")
    comparison.only_in = _only_in(sides)
    comparison.warnings = warnings_for(sides, comparison.only_in, basis, chosen)
    comparison.captures = _captures_note(sides)
    _view(comparison, list(groups), list(metrics), only_changed, sort)
    return comparison


def _basis(sides: list[Side], requested: str) -> tuple[str, str]:
    sizes = [side.batch_size for side in sides]
    if requested == "step":
        return "step", "per step (as requested)"
    if requested == "sample":
        return "sample", "per sample for extensive metrics (as requested)"
    if None not in sizes and len(set(sizes)) > 1:
        return "sample", "per sample for extensive metrics, per step below them (batch sizes differ)"
    if None in sizes and len({s for s in sizes if s is not None}) > 1:
        return "step", "per step (some batch sizes unknown)"
    return "step", "per step (batch sizes equal)"


def _rows(sides: list[Side], bands: Thresholds) -> list[Row]:
    values = [side.metrics() for side in sides]
    names: dict[str, None] = {}
    for side_values in values:
        names.update(dict.fromkeys(side_values))
    rows = [_row(name, sides, values, bands) for name in names]
    return sorted(rows, key=lambda r: group_rank(r.spec.group))  # stable: keeps input order


def _row(name: str, sides: list[Side], values: list[dict[str, list[Metric]]], bands: Thresholds) -> Row:
    spec = lookup(name)
    base = values[0].get(name, [])
    unit = (base or next(v[name] for v in values if name in v))[0].unit
    band = bands.band(spec)
    cells = tuple(_cell(spec, band, sides[0], base, side, values[i + 1].get(name, []))
                  for i, side in enumerate(sides[1:]))
    return Row(name, spec, unit, cells)


def _cell(spec: MetricSpec, band: Band, base_side: Side, base: list[Metric], side: Side,
          var: list[Metric]) -> Cell:
    step = _delta(spec, band, "step", [m.value for m in base], [m.value for m in var])
    sample = None
    if spec.extensive and base_side.batch_size and side.batch_size:
        sample = _delta(spec, band, "sample", _per(base, base_side.batch_size), _per(var, side.batch_size))
    return Cell(side.label, step, sample, len(base), len(var), _spread(base), _spread(var))


def _per(metrics: list[Metric], batch: int) -> list[Any]:
    return [m.value / batch if isinstance(m.value, (int, float)) else m.value for m in metrics]


def _spread(metrics: list[Metric]) -> tuple[float, float] | None:
    numbers = [m.value for m in metrics if isinstance(m.value, (int, float))]
    return stats.spread(numbers) if len(numbers) > 1 else None


def _central(values: list[Any]) -> Any:
    if not values:
        return None
    if all(isinstance(v, (int, float)) for v in values):
        return stats.median(values) if len(values) > 1 else values[0]
    texts = {str(v) for v in values}
    return texts.pop() if len(texts) == 1 else "mixed: " + ", ".join(sorted(texts))


def _delta(spec: MetricSpec, band: Band, basis: str, base: list[Any], var: list[Any]) -> Delta:
    b, v = _central(base), _central(var)
    if b is None or v is None:
        return Delta(basis, b, v, None, None, None, None, ADDED if b is None else REMOVED)
    if not (isinstance(b, (int, float)) and isinstance(v, (int, float))):
        return Delta(basis, b, v, None, None, None, None, UNCHANGED if b == v else NEUTRAL)
    if math.isnan(b) or math.isnan(v):
        return Delta(basis, b, v, None, None, None, None, NEUTRAL)
    delta = v - b
    relative = delta / b if b else None
    ratio = v / b if b else None
    points = delta * 100 if spec.kind == "fraction" else None
    p_value = stats.permutation_p_value([float(x) for x in base], [float(x) for x in var])
    verdict = _verdict(spec, band, b, v, points, p_value)
    return Delta(basis, b, v, delta, relative, points, ratio, verdict, p_value)


def inside_band(band: Band, b: float, v: float, points: float | None) -> bool:
    if band.points:
        return abs(points if points is not None else (v - b) * 100) <= band.value
    if b == v:
        return True
    if b == 0 or v == 0 or (b < 0) != (v < 0):
        return False
    return abs(math.log(v / b)) <= math.log1p(band.value)


def _verdict(spec: MetricSpec, band: Band, b: float, v: float, points: float | None,
             p_value: float | None) -> str:
    if inside_band(band, b, v, points) or (p_value is not None and p_value >= ALPHA):
        return UNCHANGED
    if spec.direction == "neutral":
        return NEUTRAL
    return BETTER if (v > b) == (spec.direction == "higher") else WORSE


def _only_in(sides: list[Side]) -> dict[str, list[str]]:
    present: dict[str, list[str]] = {}
    for side in sides:
        for name in side.metrics():
            present.setdefault(name, []).append(side.label)
    return {name: labels for name, labels in present.items() if len(labels) < len(sides)}


def _captures_note(sides: list[Side]) -> str:
    counts = [len(side.profiles) for side in sides]
    if max(counts) == 1:
        return "one capture per side: values compared as read, no spread or significance test"
    detail = ", ".join(f"{side.label} x{len(side.profiles)}" for side in sides)
    return f"repeated captures ({detail}): medians compared, permutation test at p < {ALPHA}"


# ---- the view: filters and order ----------------------------------------------------------------

def _view(comparison: Comparison, groups: list[str], globs: list[str], only_changed: bool,
          sort: str) -> None:
    rows = comparison.all_rows
    kept = [r for r in rows if (not groups or r.spec.group in groups)
            and (not globs or any(fnmatchcase(r.name, g) for g in globs))]
    comparison.filtered_out = len(rows) - len(kept)
    if only_changed:
        changed = [r for r in kept if r.changed(comparison.basis)]
        comparison.hidden_unchanged = len(kept) - len(changed)
        kept = changed
    comparison.rows = _sorted(kept, sort, comparison.basis)
    comparison.sort = sort


def _sorted(rows: list[Row], sort: str, basis: str) -> list[Row]:
    if sort == "name":
        return sorted(rows, key=lambda r: r.name)
    if sort == "change":
        return sorted(rows, key=lambda r: (_change_rank(r, basis), -r.magnitude(basis)))
    return rows


def _change_rank(row: Row, basis: str) -> int:
    """better/worse first, then neutral changes, then rows on one side only, then unchanged."""
    verdicts = {cell.shown(basis).verdict for cell in row.cells}
    for rank, kinds in enumerate(({BETTER, WORSE}, {NEUTRAL}, {ADDED, REMOVED})):
        if verdicts & kinds:
            return rank
    return 3
