"""``compare()``: baseline against variants, metric by metric, with verdicts from the catalog.

Pure: no printing, no CLI objects, no view state. Profiles sharing a label are repeated
captures of one side: their median is compared, with the spread and a permutation test; a
single capture gets no statistics. Extensive metrics (times, bytes, FLOPs, counts) are also
compared per sample when batch sizes are known.
"""

from __future__ import annotations

import math
from typing import Any, Iterable, NamedTuple

from ..catalog import MetricSpec, group_rank, lookup
from ..model import Metric
from .. import stats
from .bands import Band, Bands
from .comparability import warnings_for
from .result import (ADDED, ALPHA, BETTER, NEUTRAL, REMOVED, UNCHANGED, WORSE, Cell, Comparison,
                     Delta, Row, Side)
from .sides import ProfileInput, arrange, flatten

BASES = ("auto", "step", "sample")


def compare(*profiles: ProfileInput, baseline: str | None = None, basis: str = "auto",
            thresholds: Bands | Iterable[str] = ()) -> Comparison:
    """Compare the baseline against each variant.

    ``profiles``: profiles, or iterables of them (a ``load()`` result); those sharing a label
    are repeated captures of one side. The baseline is the first label, or ``baseline`` (a
    label or section title). ``basis``: ``auto`` (per sample when batch sizes differ, with
    per-step values as context), ``step`` or ``sample``. ``thresholds``: the noise bands, as
    ``Bands`` or ``--threshold`` strings such as ``"time=2%"``.
    """
    sides = arrange(flatten(profiles), baseline)
    bands = thresholds if isinstance(thresholds, Bands) else Bands(thresholds)
    chosen, reason = _basis(sides, basis)
    values = [side_values(side) for side in sides]  # built once: rows and only_in share it
    only_in = _only_in(sides, values)
    rows = _rows(sides, values, bands)
    bands.check(row.spec for row in rows)  # a --threshold glob matching nothing is a typo
    return Comparison(sides[0], tuple(sides[1:]), rows, chosen, reason, basis,
                      bands, tuple(warnings_for(sides, only_in, chosen)), only_in,
                      _captures_note(sides))


def side_values(side: Side) -> dict[str, list[Metric]]:
    """Every comparable value by name: summary metrics, memory by type, Trainer metrics."""
    out: dict[str, list[Metric]] = {}
    for profile in side.profiles:
        merged = {**profile.metrics, **profile.memory_metrics(), **profile.training}
        for name, metric in merged.items():
            out.setdefault(name, []).append(metric)
    return out


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


def _rows(sides: list[Side], values: list[dict[str, list[Metric]]], bands: Bands) -> tuple[Row, ...]:
    names: dict[str, None] = {}
    for side_values_ in values:
        names.update(dict.fromkeys(side_values_))
    rows = [_row(name, sides, values, bands) for name in names]
    return tuple(sorted(rows, key=lambda r: group_rank(r.spec.group)))  # stable: keeps input order


class _Baseline(NamedTuple):
    """The baseline's values of one metric, computed once per row (not once per variant)."""

    step: list[Any]
    sample: list[Any] | None
    step_central: Any
    sample_central: Any
    spread: tuple[float, float] | None


def _row(name: str, sides: list[Side], values: list[dict[str, list[Metric]]], bands: Bands) -> Row:
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
    # ln|v| - ln|b| rather than ln(v / b): the ratio of 5e-324 and 1e308 underflows to 0
    return abs(math.log(abs(v)) - math.log(abs(b))) <= math.log1p(band.value)


def _verdict(spec: MetricSpec, band: Band, b: float, v: float, points: float | None,
             p_value: float | None) -> str:
    if inside_band(band, b, v, points) or (p_value is not None and p_value >= ALPHA):
        return UNCHANGED
    if spec.direction == "neutral":
        return NEUTRAL
    return BETTER if (v > b) == (spec.direction == "higher") else WORSE


def _only_in(sides: list[Side], values: list[dict[str, list[Metric]]]) -> dict[str, tuple[str, ...]]:
    present: dict[str, list[str]] = {}
    for side, side_values_ in zip(sides, values, strict=True):
        for name in side_values_:
            present.setdefault(name, []).append(side.label)
    return {name: tuple(labels) for name, labels in present.items() if len(labels) < len(sides)}


def _captures_note(sides: list[Side]) -> str:
    counts = [len(side.profiles) for side in sides]
    if max(counts) == 1:
        return "one capture per side: values compared as read, no spread or significance test"
    detail = ", ".join(f"{side.label} x{len(side.profiles)}" for side in sides)
    return f"repeated captures ({detail}): medians compared, permutation test at p < {ALPHA}"
