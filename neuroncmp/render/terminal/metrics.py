"""``neuroncmp metrics`` and ``neuroncmp formats`` in the terminal: the catalog (name, group, unit,
direction, kind) and the input and output formats, each entry's description wrapped beside it (``described``)."""

from __future__ import annotations

from typing import Any

from rich.console import RenderableType
from rich.padding import Padding
from rich.text import Text

from ...catalog import MetricSpec
from . import Cell, Name, Wrapped, piece, table

MIN_MEANING = 24  # narrower than this, a description goes under its row instead of beside it


def described(header: list[str], rows: list[list[str]], width: int, dim: set[int]) -> list[RenderableType]:
    """A table with each row's description (its last cell) wrapped beside its short cells; where that
    leaves the description under ``MIN_MEANING`` columns, each row as a block: its first cell, the
    others (``name value``), the description under them."""
    fixed = [max(len(header[at]), *(len(row[at]) for row in rows)) for at in range(len(header) - 1)] if rows else []
    if width - sum(fixed) - 2 * len(fixed) >= MIN_MEANING:
        cells: list[list[Cell]] = [[*(piece(cell, "dim" if at in dim else "") for at, cell in enumerate(row[:-1])),
                                    Wrapped(row[-1])] for row in rows]
        return [table(header, cells, wrap={len(header) - 1})]
    out: list[RenderableType] = []
    for row in rows:
        facts = ", ".join(f"{name} {cell.strip()}".strip() for name, cell in zip(header[1:-1], row[1:-1], strict=True))
        out += [Name(row[0].strip(), "bold"), Padding(Wrapped(facts, "dim"), (0, 0, 0, 2)),
                Padding(Wrapped(row[-1]), (0, 0, 0, 2))]
    return out


def metrics(specs: list[MetricSpec], width: int) -> list[RenderableType]:
    rows = [[spec.name, spec.group, spec.unit, spec.direction if spec.scored else "-", spec.kind, _meaning(spec)]
            for spec in specs]
    header = ["metric", "group", "unit", "better", "kind", "meaning"]
    return [*described(header, rows, width, {1, 4}), Text(), piece(f"{len(specs)} metrics", "dim")]


def _meaning(spec: MetricSpec) -> str:
    formulas = "; else ".join(formula.text for formula in spec.formulas)
    meaning = spec.meaning + (f" (derived: {formulas})" if spec.derived else "")
    return meaning + (" (per sample when batch sizes differ)" if spec.extensive else "")


def formats(report: Any, width: int) -> list[RenderableType]:
    """The input formats, then the output formats, in one set of columns."""
    inputs = [[p.name, "directory" if p.reads_directory else " ".join(p.suffixes), p.description]
              for p in report.parsers]
    outputs = [[r.name, " ".join(r.extensions), r.description] for r in report.renderers]
    sizes = [max(len(row[at]) for row in inputs + outputs) for at in range(2)]

    def listed(rows: list[list[str]]) -> list[RenderableType]:
        return described(["", "", ""], [[row[0].ljust(sizes[0]), row[1].ljust(sizes[1]), row[2]] for row in rows],
                         width, set())

    return [*listed(inputs), Text(), Text("output formats (--format):"), *listed(outputs)]
