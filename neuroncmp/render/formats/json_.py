"""JSON export of a comparison, schema ``neuroncmp.comparison/1`` (documented in the README).

Every number shown anywhere is here, in base units (seconds, bytes, FLOP, 0-1 fractions), for
both bases (per step and, for extensive metrics with batch sizes, per sample).
"""

from __future__ import annotations

from typing import Any

from ...comparison.result import Cell, Side
from ...model import Profile
from ..base import DiffReport, Renderer
from ..changes import change_with_mark
from ..json_out import dumps
from ..profile_json import profile_dict
from ..records import delta_fields
from ..rows import Line, line

SCHEMA = "neuroncmp.comparison/1"


def _side(side: Side) -> dict[str, Any]:
    return {"label": side.label, "batch_size": side.batch_size,
            "batch_size_source": side.batch_size_source, "captures": len(side.profiles),
            "sources": [str(p.source) for p in side.profiles]}


def _cell(cell: Cell, shown: Line) -> dict[str, Any]:
    delta = cell.shown(shown.basis)
    return {"variant": cell.variant, "shown_basis": delta.basis,
            "n_baseline": cell.n_baseline, "n_variant": cell.n_variant,
            "spread_baseline": cell.spread_baseline, "spread_variant": cell.spread_variant,
            "step": delta_fields(cell.step),
            "sample": delta_fields(cell.sample) if cell.sample is not None else None,
            "display": {"baseline": shown.value(delta.baseline), "variant": shown.value(delta.variant),
                        "change": change_with_mark(delta)}}


def _row(shown: Line) -> dict[str, Any]:
    row, spec = shown.row, shown.row.spec
    return {"metric": row.name, "group": spec.group, "unit": row.unit, "kind": spec.kind,
            "direction": spec.direction, "extensive": spec.extensive, "catalogued": spec.catalogued,
            "meaning": spec.meaning, "display_unit": shown.unit,
            "cells": [_cell(cell, shown) for cell in row.cells]}


def to_dict(report: DiffReport) -> dict[str, Any]:
    comparison, view = report.comparison, report.view
    return {
        "schema": SCHEMA,
        "basis": comparison.basis, "basis_reason": comparison.basis_reason,
        "baseline": _side(comparison.baseline),
        "variants": [_side(side) for side in comparison.variants],
        "warnings": list(comparison.warnings),
        "captures": comparison.captures,
        "noise_bands": comparison.bands.describe(),
        "only_in": {name: list(labels) for name, labels in comparison.only_in.items()},
        "hidden_unchanged": view.hidden_unchanged,
        "filtered_out": view.filtered_out,
        "gates": [{"rule": g.rule.text, "tripped": g.tripped,
                   "hits": [{"metric": h.metric, "variant": h.variant, "basis": h.basis,
                             "value": h.value, "unit": h.unit, "text": str(h)} for h in g.hits]}
                  for g in report.gates],
        "rows": [_row(line(row, row.basis(comparison.basis))) for row in view.rows],
    }


class Json(Renderer):
    name, extensions, order = "json", (".json",), 30
    description = f"machine-readable, schema {SCHEMA}, base units"

    def diff(self, report: DiffReport, width: int = 100) -> str:
        """Indented at the top, one compact line per row: readable, and fast for 500 variants
        (json's C encoder only runs without ``indent``)."""
        data = to_dict(report)
        rows = data.pop("rows")
        head = dumps(data, indent=2, ensure_ascii=False)[:-2]
        body = ",\n".join("    " + dumps(row, ensure_ascii=False) for row in rows)
        return f'{head},\n  "rows": [\n{body}\n  ]\n}}\n' if rows else f'{head},\n  "rows": []\n}}\n'

    def profiles(self, profiles: list[Profile], width: int = 100) -> str:
        """One normalized profile (``neuroncmp.profile/1``), or a list when there are several."""
        data = [profile_dict(p) for p in profiles]
        return dumps(data[0] if len(data) == 1 else data, indent=2) + "\n"


RENDERER = Json()
