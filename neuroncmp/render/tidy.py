"""Tidy records of a comparison, one per metric x variant x basis: CSV, JSON and pandas share them."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ..choices import CONTEXT, NEUTRAL
from ..comparison.result import Cell, Comparison, Delta, Row, Side
from ..escape import csv_cell

if TYPE_CHECKING:  # gates load only when --fail-on is used
    from ..comparison.gates import GateResult
    from .headline import BoundLine

FIELDS = ("metric", "group", "unit", "kind", "direction", "extensive", "catalogued", "basis",
          "baseline_label", "variant_label", "baseline_batch_size", "variant_batch_size",
          "baseline", "variant", "delta", "relative", "points", "ratio", "verdict", "suspect", "p_value",
          "n_baseline", "n_variant", "shown", "tripped_rules")


def csv_text(fields: Sequence[str], rows: Iterable[dict[str, Any]]) -> str:
    """``rows`` as CSV under a header of ``fields``, each value as ``escape.csv_cell`` writes it (a
    field a row lacks is empty)."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=fields, lineterminator="\n", restval="")
    writer.writeheader()
    writer.writerows({k: csv_cell(v) for k, v in row.items()} for row in rows)
    return out.getvalue()


def delta_fields(delta: Delta) -> dict[str, Any]:
    # NaN and infinities stay as they are: JSON writes them as null with the reason beside them
    # (render/json_out.py), CSV and pandas as nan / inf.
    return {"basis": delta.basis, "baseline": delta.baseline, "variant": delta.variant,
            "delta": delta.delta, "relative": delta.relative, "points": delta.points,
            "ratio": delta.ratio, "verdict": delta.verdict, "p_value": delta.p_value}


def records(comparison: Comparison, rows: Iterable[Row],
            gates: tuple[GateResult, ...] = ()) -> list[dict[str, Any]]:
    out = []
    for row in rows:
        for cell, side in zip(row.cells, comparison.variants, strict=True):
            for delta in (cell.step, cell.sample):
                if delta is not None:
                    out.append(_record(comparison, row, cell, side, delta, gates))
    return out


def bound_records(comparison: Comparison, bound: BoundLine) -> list[dict[str, Any]]:
    """The headline's "bound by" line as tidy records, per variant: ``bottleneck`` (its name, text) and
    ``bound_gap`` (total_time / the bottleneck's time); shown, never scored (neutral)."""
    out = []
    base = bound.bounds[0]
    for side, found in zip(comparison.variants, bound.bounds[1:], strict=True):
        before, after = base.bottleneck, found.bottleneck
        named = (before.name if before else None, after.name if after else None)
        withheld = side.label in comparison.not_comparable  # another workload: nothing judged
        verdict = CONTEXT if withheld else NEUTRAL  # not scored: no verdict, as every such row
        out.append(_bound_record(comparison, side, "bottleneck", "text", verdict, *named))
        out.append(_bound_record(comparison, side, "bound_gap", "ratio", verdict, base.gap, found.gap))
    return out


def _bound_record(comparison: Comparison, side: Side, metric: str, kind: str, verdict: str,
                  was: Any, now: Any) -> dict[str, Any]:
    numbers = isinstance(was, float) and isinstance(now, float) and was > 0
    record: dict[str, Any] = dict.fromkeys(FIELDS, "")
    record.update(metric=metric, group="bounds", unit="text" if kind == "text" else "dimensionless", kind=kind,
                  direction="neutral", extensive=False, catalogued=False, basis="step",
                  baseline_label=comparison.baseline.label, variant_label=side.label,
                  baseline_batch_size=comparison.baseline.batch_size, variant_batch_size=side.batch_size,
                  baseline=was, variant=now, delta=now - was if numbers else "",
                  relative=now / was - 1 if numbers else "", ratio=now / was if numbers else "",
                  verdict=verdict, n_baseline=len(comparison.baseline.profiles), n_variant=len(side.profiles),
                  shown=True)
    return record


def _tripped(gates: tuple[GateResult, ...], row: Row, cell: Cell, delta: Delta) -> str:
    return "; ".join(g.rule.text for g in gates for h in g.hits
                     if (h.metric, h.variant, h.basis) == (row.name, cell.variant, delta.basis))


def _record(comparison: Comparison, row: Row, cell: Cell, side: Side, delta: Delta,
            gates: tuple[GateResult, ...]) -> dict[str, Any]:
    spec = row.spec
    record = {"metric": row.name, "group": spec.group, "unit": row.unit, "kind": spec.kind,
              "direction": spec.direction, "extensive": spec.extensive, "catalogued": spec.catalogued,
              "baseline_label": comparison.baseline.label, "variant_label": cell.variant,
              "baseline_batch_size": comparison.baseline.batch_size,
              "variant_batch_size": side.batch_size, "n_baseline": cell.n_baseline,
              "n_variant": cell.n_variant, "shown": cell.shown(comparison.basis) is delta,
              "suspect": cell.suspect or "",  # the anomaly behind a suspect cell
              "tripped_rules": _tripped(gates, row, cell, delta)}
    record.update(delta_fields(delta))
    return {name: record[name] for name in FIELDS}
