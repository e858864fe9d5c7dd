"""Markdown for a pull-request comment: header, warnings, one table per group, gates, footer."""

from __future__ import annotations

from ..comparison import Comparison, Row
from . import cells as c


def _escape(text: str) -> str:
    return text.replace("|", "\\|")


def _row(row: Row, basis: str, title: str | None = None) -> str:
    scale = c.scale_for(row, basis)
    first = row.cells[0].shown(basis)
    parts = [title or f"`{c.metric_title(row, basis)}`", _escape(c.value_text(first.baseline, row, scale))]
    for cell in row.cells:
        delta = cell.shown(basis)
        change = c.change_with_mark(delta)
        parts.append(_escape(c.value_text(delta.variant, row, scale)) + (f" ({change})" if change else ""))
    return "| " + " | ".join(parts) + " |"


def render(comparison: Comparison) -> str:
    names = [c.side_title(comparison, i) for i in range(len(comparison.sides))]
    lines = [f"## neuroncmp diff: {names[0]} vs {', '.join(names[1:])}", "",
             f"**Basis:** {comparison.basis_reason}. {c.batch_line(comparison).capitalize()}.", ""]
    lines += [f"> **Warning:** {_escape(w)}" for w in comparison.warnings]
    gates = c.gate_lines(comparison)
    if gates:
        lines += ["", "**Gates**", ""] + [f"- {_escape(g)}" for g in gates]
    header = "| metric | " + " | ".join(s.label for s in comparison.sides) + " |"
    rule = "|---|" + "---:|" * len(comparison.sides)
    group = None
    if not comparison.grouped:
        lines += ["", header, rule]
    for row in comparison.rows:
        if comparison.grouped and row.spec.group != group:
            group = row.spec.group
            lines += ["", f"### {group}", "", header, rule]
        lines.append(_row(row, comparison.basis))
        if c.step_line(comparison, row):
            lines.append(_row(row, "step", "&nbsp;&nbsp;per step"))
    lines += [""] + [f"<sub>{_escape(line)}</sub><br>" for line in c.footer_lines(comparison)]
    lines.append(f"<sub>{c.LEGEND}</sub>")
    return "\n".join(lines) + "\n"
