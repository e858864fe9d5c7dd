"""HTML: a standalone page (``--format html``) or a fragment for notebooks (``_repr_html_``)."""

from __future__ import annotations

from html import escape

from ..comparison import Comparison, Row
from . import cells as c

CSS = """
.ncmp{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px}
.ncmp table{border-collapse:collapse}
.ncmp th,.ncmp td{padding:2px 8px;border-bottom:1px solid #ddd;text-align:right;vertical-align:top}
.ncmp td.m,.ncmp th.m{text-align:left}
.ncmp tr.g td{font-weight:bold;color:#0a6b8a;text-align:left;padding-top:10px}
.ncmp .better{color:#137333}.ncmp .worse{color:#b3261e}.ncmp .unchanged{color:#888}
.ncmp .warn{color:#8a5a00}.ncmp .foot{color:#666}.ncmp .fail{color:#b3261e;font-weight:bold}
"""


def _row(row: Row, basis: str, title: str | None = None) -> str:
    scale = c.scale_for(row, basis)
    first = row.cells[0].shown(basis)
    name = title or c.metric_title(row, basis)
    tds = [f'<td class="m" title="{escape(row.spec.meaning)}">{escape(name)}</td>',
           f"<td>{escape(c.value_text(first.baseline, row, scale))}</td>"]
    for cell in row.cells:
        delta = cell.shown(basis)
        change = escape(c.change_with_mark(delta))
        tds.append(f'<td>{escape(c.value_text(delta.variant, row, scale))}<br>'
                   f'<span class="{delta.verdict}">{change}</span></td>')
    return "<tr>" + "".join(tds) + "</tr>"


def fragment(comparison: Comparison) -> str:
    names = [c.side_title(comparison, i) for i in range(len(comparison.sides))]
    parts = [f'<div class="ncmp"><style>{CSS}</style>',
             f"<h3>{escape(names[0])} vs {escape(', '.join(names[1:]))}</h3>",
             f"<p>{escape(c.batch_line(comparison))}; basis: {escape(comparison.basis_reason)}</p>"]
    parts += [f'<p class="warn">warning: {escape(w)}</p>' for w in comparison.warnings]
    parts += [f'<p class="{"fail" if g.startswith("FAILED") else "foot"}">{escape(g)}</p>'
              for g in c.gate_lines(comparison)]
    head = "".join(f"<th>{escape(s.label)}</th>" for s in comparison.sides)
    parts.append(f'<table><thead><tr><th class="m">metric</th>{head}</tr></thead><tbody>')
    group = None
    for row in comparison.rows:
        if comparison.grouped and row.spec.group != group:
            group = row.spec.group
            parts.append(f'<tr class="g"><td colspan="{len(comparison.sides) + 1}">{escape(group)}</td></tr>')
        parts.append(_row(row, comparison.basis))
        if c.step_line(comparison, row):
            parts.append(_row(row, "step", "\u00a0\u00a0per step").replace("<tr>", '<tr class="unchanged">', 1))
    parts.append("</tbody></table>")
    parts += [f'<p class="foot">{escape(line)}</p>' for line in c.footer_lines(comparison) + [c.LEGEND]]
    parts.append("</div>")
    return "\n".join(parts)


def render(comparison: Comparison, standalone: bool = True) -> str:
    body = fragment(comparison)
    if not standalone:
        return body
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>neuroncmp diff</title></head>"
            f"<body>\n{body}\n</body></html>\n")
