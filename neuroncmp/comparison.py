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
from typing import Any, Iterable, NamedTuple

from . import stats
from .gcpause import paused_gc
from .catalog import MetricSpec, group_rank, lookup
from .errors import NeuroncmpError
from .model import Metric, Profile
from .thresholds import Band, Thresholds

BETTER, WORSE, UNCHANGED, ADDED, REMOVED, NEUTRAL = (
    "better", "worse", "unchanged", "added", "removed", "neutral")
VERDICTS = (BETTER, WORSE, UNCHANGED, ADDED, REMOVED, NEUTRAL)
ALPHA = 0.05


@dataclass(frozen=True)
class Side:
    """One side of the comparison: a label and its captures (one or more profiles)."""

    label: str
    profiles: tuple[Profile, ...]
    batch_size: int | None = field(init=False)

    def __post_init__(self) -> None:
        sizes = {p.batch_size for p in self.profiles}  # captures of one side must agree
        object.__setattr__(self, "batch_size", sizes.pop() if len(sizes) == 1 else None)

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


class Delta(NamedTuple):
    """One metric, one variant, one basis (per step or per sample).

    NamedTuples, not frozen dataclasses: a 500-variant sweep makes 90,000 of them, and a
    frozen dataclass's ``__init__`` costs several times a tuple's.
    """

    basis: str
    baseline: Any
    variant: Any
    delta: float | None
    relative: float | None
    points: float | None
    ratio: float | None
    verdict: str
    p_value: float | None = None


class Cell(NamedTuple):
    variant: str
    step: Delta
    sample: Delta | None
    n_baseline: int
    n_variant: int
    spread_baseline: tuple[float, float] | None = None
    spread_variant: tuple[float, float] | None = None

    def shown(self, basis: str) -> Delta:
        return self.sample if basis == "sample" and self.sample is not None else self.step


class Row(NamedTuple):
    name: str
    spec: MetricSpec
    unit: str
    cells: tuple[Cell, ...]

    def changed(self, basis: str) -> bool:
        return any(cell.shown(basis).verdict != UNCHANGED for cell in self.cells)

    def magnitude(self, basis: str) -> float:
        """Largest |relative change| across variants (for sorting by change)."""
        relatives = [c.shown(basis).relative for c in self.cells]
        sizes = [abs(r) for r in relatives if r is not None and not math.isnan(r)]
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
        raise NeuroncmpError("compare() needs a baseline and at least one variant with another label")
    bands = Thresholds(list(thresholds))
    chosen, reason = _basis(sides, basis)
    with paused_gc():
        values = [side.metrics() for side in sides]  # built once: rows and only_in share it
        all_rows = _rows(sides, values, bands)
    comparison = Comparison(sides[0], sides[1:], [], all_rows, chosen, reason, bands,
                            also_step=basis == "auto" and chosen == "sample")
    comparison.only_in = _only_in(sides, values)
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


def _rows(sides: list[Side], values: list[dict[str, list[Metric]]], bands: Thresholds) -> list[Row]:
    names: dict[str, None] = {}
    for side_values in values:
        names.update(dict.fromkeys(side_values))
    rows = [_row(name, sides, values, bands) for name in names]
    return sorted(rows, key=lambda r: group_rank(r.spec.group))  # stable: keeps input order


class _Baseline(NamedTuple):
    """The baseline's values of one metric, computed once per row (not once per variant)."""

    step: list[Any]
    sample: list[Any] | None
    step_central: Any
    sample_central: Any
    spread: tuple[float, float] | None


def _row(name: str, sides: list[Side], values: list[dict[str, list[Metric]]], bands: Thresholds) -> Row:
    spec = lookup(name)
    metrics = values[0].get(name, [])
    unit = (metrics or next(v[name] for v in values if name in v))[0].unit
    band = bands.band(spec)
    base = _baseline(spec, metrics, sides[0].batch_size)
    cells = tuple(_cell(spec, band, base, len(metrics), side, values[i + 1].get(name, []))
                  for i, side in enumerate(sides[1:]))
    return Row(name, spec, unit, cells)


def _baseline(spec: MetricSpec, metrics: list[Metric], batch: int | None) -> _Baseline:
    step = [m.value for m in metrics]
    sample = _per(step, batch) if spec.extensive and batch else None
    return _Baseline(step, sample, _central(step), _central(sample) if sample is not None else None,
                     _spread(step))


def _cell(spec: MetricSpec, band: Band, base: _Baseline, n_base: int, side: Side,
          metrics: list[Metric]) -> Cell:
    values = [m.value for m in metrics]
    step = _delta(spec, band, "step", base.step, base.step_central, values)
    sample = None
    if base.sample is not None and side.batch_size:
        sample = _delta(spec, band, "sample", base.sample, base.sample_central, _per(values, side.batch_size))
    return Cell(side.label, step, sample, n_base, len(values), base.spread, _spread(values))


def _per(values: list[Any], batch: int | None) -> list[Any]:
    return [v / batch if isinstance(v, (int, float)) and batch else v for v in values]


def _spread(values: list[Any]) -> tuple[float, float] | None:
    if len(values) < 2:
        return None
    numbers = [v for v in values if isinstance(v, (int, float))]
    return stats.spread(numbers) if len(numbers) > 1 else None


def _central(values: list[Any]) -> Any:
    if not values:
        return None
    if len(values) == 1:
        return values[0]
    if all(isinstance(v, (int, float)) for v in values):
        return stats.median(values)
    texts = {str(v) for v in values}
    return texts.pop() if len(texts) == 1 else "mixed: " + ", ".join(sorted(texts))


def _delta(spec: MetricSpec, band: Band, basis: str, base: list[Any], b: Any, var: list[Any]) -> Delta:
    v = _central(var)
    if b is None or v is None:
        return Delta(basis, b, v, None, None, None, None, ADDED if b is None else REMOVED)
    if not (isinstance(b, (int, float)) and isinstance(v, (int, float))):
        return Delta(basis, b, v, None, None, None, None, UNCHANGED if b == v else NEUTRAL)
    if b != b or v != v:  # NaN
        return Delta(basis, b, v, None, None, None, None, NEUTRAL)
    delta = v - b
    relative = delta / b if b else None
    ratio = v / b if b else None
    points = delta * 100 if spec.kind == "fraction" else None
    p_value = None
    if len(base) > 1 and len(var) > 1:
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


def _only_in(sides: list[Side], values: list[dict[str, list[Metric]]]) -> dict[str, list[str]]:
    present: dict[str, list[str]] = {}
    for side, side_values in zip(sides, values, strict=True):
        for name in side_values:
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
