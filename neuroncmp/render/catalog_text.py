"""``neuroncmp metrics``: the catalog as a table (name, group, unit, direction, kind, meaning)."""

from __future__ import annotations

from typing import Any

from ..catalog import MetricSpec
from .layout import Line, grid

HEADER = ["metric", "group", "unit", "better", "kind", "meaning"]


def spec_record(spec: MetricSpec) -> dict[str, Any]:
    """One catalog entry as plain data (the JSON listing)."""
    return {"metric": spec.name, "group": spec.group, "unit": spec.unit, "direction": spec.direction,
            "kind": spec.kind, "extensive": spec.extensive, "meaning": spec.meaning,
            "derived": spec.derived, "formula": spec.formula or None, "aliases": list(spec.aliases)}


def catalog_lines(specs: list[MetricSpec]) -> list[Line]:
    rows = []
    for spec in specs:
        meaning = spec.meaning + (f" (derived: {spec.formula})" if spec.derived else "")
        meaning += " (per sample when batch sizes differ)" if spec.extensive else ""
        rows.append([(spec.name, ""), (spec.group, "dim"), (spec.unit, ""), (_better(spec), ""),
                     (spec.kind, "dim"), (meaning, "")])
    return grid(HEADER, rows, right=set()) + [[], [(f"{len(specs)} metrics", "dim")]]


def _better(spec: MetricSpec) -> str:
    return {"higher": "higher", "lower": "lower"}.get(spec.direction, "-")
