"""``neuroncmp metrics``: the catalog as a table (name, group, unit, direction, kind, meaning)."""

from __future__ import annotations

import textwrap
from typing import Any

from ..catalog import MetricSpec
from .layout import Line, wrapped

GAP = "  "

HEADER = ["metric", "group", "unit", "better", "kind", "meaning"]


def spec_record(spec: MetricSpec) -> dict[str, Any]:
    """One catalog entry as plain data (the JSON listing)."""
    return {"metric": spec.name, "group": spec.group, "unit": spec.unit, "direction": spec.direction,
            "kind": spec.kind, "extensive": spec.extensive, "meaning": spec.meaning,
            "derived": spec.derived, "formula": spec.formula or None,
            "formulas": [formula.text for formula in spec.formulas], "aliases": list(spec.aliases)}


MIN_MEANING = 24  # narrower than this, the meaning goes under its metric instead of beside it


def catalog_lines(specs: list[MetricSpec], width: int = 100) -> list[Line]:
    """A table whose meaning column wraps to ``width``; one block per metric when too narrow."""
    rows = [[(spec.name, ""), (spec.group, "dim"), (spec.unit, ""), (_better(spec), ""),
             (spec.kind, "dim"), (_meaning(spec), "")] for spec in specs]
    fixed = [max(len(HEADER[i]), *(len(row[i][0]) for row in rows)) for i in range(5)] if rows else [0] * 5
    left = width - sum(fixed) - len(GAP) * 5
    out = _beside(rows, fixed, left) if left >= MIN_MEANING else _blocks(rows, width)
    return out + [[], [(f"{len(specs)} metrics", "dim")]]


def _meaning(spec: MetricSpec) -> str:
    formulas = "; else ".join(formula.text for formula in spec.formulas)
    meaning = spec.meaning + (f" (derived: {formulas})" if spec.derived else "")
    return meaning + (" (per sample when batch sizes differ)" if spec.extensive else "")


def _beside(rows: list[list[tuple[str, str]]], fixed: list[int], left: int) -> list[Line]:
    """Five fixed columns, the meaning wrapped beside them (continuation lines indented)."""
    indent = " " * (sum(fixed) + len(GAP) * 5)
    out: list[Line] = [[(GAP.join(h.ljust(w) for h, w in zip(HEADER, fixed)) + GAP + HEADER[5], "bold")]]
    for row in rows:
        meaning = textwrap.wrap(row[5][0], left, break_on_hyphens=False) or [""]
        cells = [((GAP if i else "") + text.ljust(fixed[i]), style) for i, (text, style) in enumerate(row[:5])]
        out.append(cells + [(GAP + meaning[0], "")])
        out += [[(indent + more, "")] for more in meaning[1:]]
    return out


def _blocks(rows: list[list[tuple[str, str]]], width: int) -> list[Line]:
    """Narrow terminals: the metric's name, then its facts and meaning wrapped under it."""
    out: list[Line] = []
    for name, group, unit, better, kind, meaning in rows:
        out += wrapped(name[0], "bold", width)
        facts = f"group {group[0]}, unit {unit[0]}, better {better[0]}, kind {kind[0]}"
        out += [[("  " + part, "dim")] for part in textwrap.wrap(facts, max(width - 2, 1))]
        out += [[("  " + part, "")] for part in textwrap.wrap(meaning[0], max(width - 2, 1))]
    return out


def _better(spec: MetricSpec) -> str:
    return {"higher": "higher", "lower": "lower"}.get(spec.direction, "-")
