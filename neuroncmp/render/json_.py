"""JSON export of a comparison, schema ``neuroncmp.comparison/1`` (documented in the README).

Every number shown anywhere is here, in base units (seconds, bytes, FLOP, 0-1 fractions), for
both bases (per step and, for extensive metrics with batch sizes, per sample).
"""

from __future__ import annotations

import json
from typing import Any

from ..comparison import Cell, Comparison, Row, Side
from . import cells as c
from .records import delta_fields

SCHEMA = "neuroncmp.comparison/1"


def _side(side: Side) -> dict[str, Any]:
    return {"label": side.label, "batch_size": side.batch_size,
            "batch_size_source": side.batch_size_source, "captures": len(side.profiles),
            "sources": [str(p.source) for p in side.profiles]}


def _cell(cell: Cell, row: Row, basis: str, scale: tuple[float, str] | None) -> dict[str, Any]:
    shown = cell.shown(basis)
    return {"variant": cell.variant, "shown_basis": shown.basis,
            "n_baseline": cell.n_baseline, "n_variant": cell.n_variant,
            "spread_baseline": cell.spread_baseline, "spread_variant": cell.spread_variant,
            "step": delta_fields(cell.step),
            "sample": delta_fields(cell.sample) if cell.sample is not None else None,
            "display": {"baseline": c.value_text(shown.baseline, row, scale),
                        "variant": c.value_text(shown.variant, row, scale),
                        "change": c.change_with_mark(shown)}}


def _row(row: Row, basis: str) -> dict[str, Any]:
    spec = row.spec
    scale = c.scale_for(row, basis)
    return {"metric": row.name, "group": spec.group, "unit": row.unit, "kind": spec.kind,
            "direction": spec.direction, "extensive": spec.extensive, "catalogued": spec.catalogued,
            "meaning": spec.meaning, "display_unit": c.unit_label(scale),
            "cells": [_cell(cell, row, basis, scale) for cell in row.cells]}


def to_dict(comparison: Comparison) -> dict[str, Any]:
    return {
        "schema": SCHEMA,
        "basis": comparison.basis, "basis_reason": comparison.basis_reason,
        "baseline": _side(comparison.baseline),
        "variants": [_side(side) for side in comparison.variants],
        "warnings": comparison.warnings,
        "captures": comparison.captures,
        "noise_bands": comparison.thresholds.describe(),
        "only_in": comparison.only_in,
        "hidden_unchanged": comparison.hidden_unchanged,
        "filtered_out": comparison.filtered_out,
        "gates": [{"rule": g.rule.text, "tripped": g.tripped,
                   "hits": [{"metric": h.metric, "variant": h.variant, "basis": h.basis,
                             "value": h.value, "unit": h.unit, "text": str(h)} for h in g.hits]}
                  for g in comparison.gates],
        "rows": [_row(row, comparison.basis) for row in comparison.rows],
    }


def render(comparison: Comparison) -> str:
    """Indented at the top, one compact line per row: readable, and fast for 500 variants
    (json's C encoder only runs without ``indent``)."""
    data = to_dict(comparison)
    rows = data.pop("rows")
    head = json.dumps(data, indent=2, ensure_ascii=False)[:-2]
    body = ",\n".join("    " + json.dumps(row, ensure_ascii=False) for row in rows)
    return f'{head},\n  "rows": [\n{body}\n  ]\n}}\n' if rows else f'{head},\n  "rows": []\n}}\n'

