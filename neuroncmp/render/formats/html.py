"""HTML: a standalone page (``--format html``) or a fragment for notebooks."""

from __future__ import annotations

from ...escape import html as escape
from ..base import DiffReport, Renderer
from ..captions import batch_line, footer_lines, gate_lines, title
from ..changes import LEGEND, change_with_mark
from ..rows import Heading, Line, lines

CSS = """
.ncmp{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px}
.ncmp table{border-collapse:collapse}
.ncmp th,.ncmp td{padding:2px 8px;border-bottom:1px solid #ddd;text-align:right;vertical-align:top}
.ncmp td.m,.ncmp th.m{text-align:left}
.ncmp tr.g td{font-weight:bold;color:#0a6b8a;text-align:left;padding-top:10px}
.ncmp .better{color:#137333}.ncmp .worse{color:#b3261e}.ncmp .unchanged{color:#888}
.ncmp .warn{color:#8a5a00}.ncmp .foot{color:#666}.ncmp .fail{color:#b3261e;font-weight:bold}
"""


def _line(shown: Line) -> str:
    name = "\u00a0\u00a0per step" if shown.step_context else shown.title
    tds = [f'<td class="m" title="{escape(shown.row.spec.meaning)}">{escape(name)}</td>',
           f"<td>{escape(shown.value(shown.baseline))}</td>"]
    for delta in shown.deltas:
        tds.append(f'<td>{escape(shown.value(delta.variant))}<br>'
                   f'<span class="{delta.verdict}">{escape(change_with_mark(delta))}</span></td>')
    opening = '<tr class="unchanged">' if shown.step_context else "<tr>"
    return opening + "".join(tds) + "</tr>"


def fragment(report: DiffReport) -> str:
    comparison, view = report.comparison, report.view
    parts = [f'<div class="ncmp"><style>{CSS}</style>',
             f"<h3>{escape(title(comparison))}</h3>",
             f"<p>{escape(batch_line(comparison))}; basis: {escape(comparison.basis_reason)}</p>"]
    parts += [f'<p class="warn">warning: {escape(w)}</p>' for w in comparison.warnings]
    parts += [f'<p class="{"fail" if g.startswith("FAILED") else "foot"}">{escape(g)}</p>'
              for g in gate_lines(report.gates)]
    head = "".join(f"<th>{escape(s.label)}</th>" for s in comparison.sides)
    parts.append(f'<table><thead><tr><th class="m">metric</th>{head}</tr></thead><tbody>')
    for entry in lines(comparison, view):
        if isinstance(entry, Heading):
            parts.append(f'<tr class="g"><td colspan="{len(comparison.sides) + 1}">{escape(entry.group)}</td></tr>')
        else:
            parts.append(_line(entry))
    parts.append("</tbody></table>")
    parts += [f'<p class="foot">{escape(text)}</p>' for text in footer_lines(comparison, view) + [LEGEND]]
    parts.append("</div>")
    return "\n".join(parts)


def page(body: str, heading: str) -> str:
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
            f"<title>{escape(heading)}</title></head><body>\n{body}\n</body></html>\n")


class Html(Renderer):
    name, extensions, order = "html", (".html", ".htm"), 50
    description = "a standalone HTML page"

    def diff(self, report: DiffReport, width: int = 100) -> str:
        return page(fragment(report), "neuroncmp diff")


RENDERER = Html()
