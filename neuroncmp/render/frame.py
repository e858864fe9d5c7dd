"""pandas DataFrames of profiles, comparisons and sweeps: pandas is imported only in these functions.
Their columns, units and display factors: ``docs/python.md`` ("Frames")."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ..analysis import table
from ..analysis.findings.base import Finding
from ..analysis.sweep import Sweep
from ..choices import SHOWN_BASES
from ..errors import UsageError, optional
from ..model import Profile
from ..units import COUNT, DIMENSIONLESS, TEXT, format_value, is_number, pick_scale, text_or_none
from .base import DiffReport
from .rows import scale_for
from .tidy import FIELDS, records


def _pandas() -> Any:
    import pandas as pd

    return pd


def _number(value: Any) -> float:
    return float(value) if is_number(value) else float("nan")


def profile_frame(profile: Profile) -> Any:
    """One row per metric, Trainer value and derived metric of ``profile``."""
    metrics = [*profile.metrics.values(), *profile.training.values(), *profile.values.derived.values()]
    rows = []
    for metric in metrics:
        factor, label = pick_scale(metric.value, metric.unit) if metric.unit != TEXT and not isinstance(
            metric.value, str) else (1.0, "")
        rows.append({"metric": metric.name, "group": metric.group, "value": _number(metric.value),
                     "text": text_or_none(metric.value), "unit": metric.unit,
                     "display": format_value(metric.value, metric.unit),
                     "display_unit": label, "display_factor": factor, "raw": metric.raw,
                     "catalogued": metric.catalogued, "derived": metric.spec.derived})
    return _pandas().DataFrame(rows)


def memory_frame(profile: Profile) -> Any:
    """The device memory table, one row per usage type and core (the Total row included)."""
    columns = ["device", "core", "usage_type", "label", "bytes"]
    return _pandas().DataFrame([[row.device, row.core, row.usage_type, row.label, row.bytes]
                                for row in profile.memory], columns=columns)


def comparison_frame(report: DiffReport, wide: bool = False) -> Any:
    """Tidy (one row per metric x variant x basis of the report's view), or ``wide`` (one row per
    metric and basis, one column per side)."""
    comparison = report.comparison
    scales = {(row.name, basis): scale_for(row, basis) for row in report.view.rows for basis in SHOWN_BASES}
    out = []
    for record in records(comparison, report.view.rows, report.gates):
        scale = scales.get((record["metric"], record["basis"])) or (1.0, "")
        out.append(dict(record, baseline=_number(record["baseline"]), variant=_number(record["variant"]),
                        baseline_text=text_or_none(record["baseline"]), variant_text=text_or_none(record["variant"]),
                        display_unit=scale[1], display_factor=scale[0], suspect=record["suspect"] or None))
    frame = _pandas().DataFrame(out, columns=[*FIELDS, "baseline_text", "variant_text", "display_unit",
                                              "display_factor"])
    for column in ("baseline", "variant", "delta", "relative", "points", "ratio", "p_value"):
        frame[column] = frame[column].astype("float64")
    return _wide(frame, comparison.baseline.label) if wide else frame


def _wide(frame: Any, baseline: str) -> Any:
    """One row per metric and basis: the baseline's value, then each variant's."""
    pd = _pandas()
    keys = ["metric", "basis", "group", "unit"]
    first = frame.drop_duplicates(keys)[keys + ["baseline"]].rename(columns={"baseline": baseline})
    variants = frame.pivot_table(index=keys, columns="variant_label", values="variant", aggfunc="first",
                                 dropna=False).reset_index()
    order = list(dict.fromkeys(frame["variant_label"]))
    merged = pd.merge(first, variants, on=keys, how="left")
    return merged[keys + [baseline] + order]


def sweep_frame(sweep: Sweep, units: str | None = None) -> Any:
    """One row per batch size on the axis, one column per table column (base units)."""
    pd = _pandas()
    data: dict[str, Any] = {"label": [row.label for row in sweep.table],
                            "batch_size": [row.batch_size for row in sweep.table],
                            "batch_inferred": [row.inferred for row in sweep.table]}
    for column in _values():
        data[column.name] = pd.array([_number(row.get(column.name)) for row in sweep.table], dtype="float64")
    frame = pd.DataFrame(data)
    if units is None:
        return frame
    if units != "pint":
        raise UsageError(f"units={units!r}: expected None or 'pint'")
    return _with_pint(frame)


def _values() -> list[table.Column]:
    """The table's columns but the batch size (the frame's ``batch_size`` and ``batch_inferred``)."""
    return [column for column in table.COLUMNS if column.block != table.EVERY]


def _with_pint(frame: Any) -> Any:
    """Columns as pint-pandas arrays in their unit; needs pint-pandas and ``use_pint_pandas()``."""
    pint_pandas = optional("pint_pandas", "units='pint' needs pint-pandas: pip install pint-pandas")
    from ..units import pint_unit, registry

    if pint_pandas.PintType.ureg is not registry():
        raise UsageError("units='pint': call neuroncmp.use_pint_pandas() first (pint-pandas keeps one "
                         "unit registry per process; neuroncmp does not change it on its own)")
    for column in _values():
        if column.unit not in (COUNT, DIMENSIONLESS, table.USD) and column.name in frame:
            frame[column.name] = pint_pandas.PintArray(frame[column.name].to_numpy(),
                                                       dtype=f"pint[{pint_unit(column.unit)}]")
    return frame


NAN = float("nan")
FINDING_COLUMNS: tuple[tuple[str, Callable[[Finding], Any]], ...] = (  # each column's name and value
    ("rule", lambda f: f.rule), ("category", lambda f: f.category), ("title", lambda f: f.title),
    ("where", lambda f: ", ".join(f.where)),
    ("impact_share", lambda f: f.impact.share if f.impact else NAN),
    ("impact_of", lambda f: f.impact.of if f.impact else None),
    ("impact_amount", lambda f: f.impact.amount if f.impact else NAN),
    ("impact_unit", lambda f: f.impact.unit if f.impact else None), ("action", lambda f: f.action),
)


def findings_frame(findings: Iterable[Finding]) -> Any:
    """One row per finding, ranked as given."""
    rows = [[value(f) for _, value in FINDING_COLUMNS] for f in findings]
    return _pandas().DataFrame(rows, columns=[name for name, _ in FINDING_COLUMNS])
