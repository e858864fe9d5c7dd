"""HTML: a standalone page (``--format html``) or a fragment for notebooks: the headline first, then
warnings and gates, then the full table in a collapsible ``<details>`` block."""

from __future__ import annotations

from html import escape

from ..base import DiffReport, Renderer
from ..captions import batch_line, footer_lines, gate_lines, group_title, title
from ..changes import LEGEND, change_with_mark
from ..headline import headline, notes, tally_text
from ..rows import Heading, Line, lines

CSS = """
.ncmp{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px}
.ncmp table{border-collapse:collapse}
.ncmp th,.ncmp td{padding:2px 8px;border-bottom:1px solid #ddd;text-align:right;vertical-align:top}
.ncmp td.m,.ncmp th.m{text-align:left}
.ncmp tr.g td{font-weight:bold;color:#0a6b8a;text-align:left;padding-top:10px}
.ncmp .better{color:#137333}.ncmp .worse{color:#b3261e}.ncmp .unchanged{color:#888}
.ncmp .suspect{color:#8a5a00}.ncmp .context{color:#888}
.ncmp .warn{color:#8a5a00}.ncmp .foot{color:#666}.ncmp .fail{color:#b3261e;font-weight:bold}
"""


def _line(shown: Line, name: str | None = None) -> str:
    name = name or ("\u00a0\u00a0per step" if shown.step_context else shown.title)
    tds = [f'<td class="m" title="{escape(shown.row.spec.meaning)}">{escape(name)}</td>',
           f"<td>{escape(shown.value(shown.baseline))}</td>"]
    for delta in shown.deltas:
        tds.append(f'<td>{escape(shown.value(delta.variant))}<br>'
                   f'<span class="{delta.verdict}">{escape(change_with_mark(delta))}</span></td>')
    opening = '<tr class="unchanged">' if shown.step_context else "<tr>"
    return opening + "".join(tds) + "</tr>"


def _thead(report: DiffReport, first: str) -> str:
    head = "".join(f"<th>{escape(s.label)}</th>" for s in report.comparison.sides)
    return f'<table><thead><tr><th class="m">{first}</th>{head}</tr></thead><tbody>'


def _headline(report: DiffReport) -> list[str]:
    parts = [_thead(report, "headline")]
    for item in headline(report.comparison):
        unit = f" [{item.line.unit}]" if item.line.unit else ""
        parts.append(_line(item.line, item.label + unit))
    tallies = "".join(f"<td>{escape(tally_text(c))}</td>" for c in report.comparison.tally())
    parts.append(f'<tr><td class="m">rows better / worse</td><td></td>{tallies}</tr>')
    return parts + ["</tbody></table>"]


def _table(report: DiffReport) -> list[str]:
    comparison, view = report.comparison, report.view
    parts = [f"<details><summary>All metrics ({len(view.rows)} rows)</summary>", _thead(report, "metric")]
    for entry in lines(comparison, view):
        if isinstance(entry, Heading):
            parts.append(f'<tr class="g"><td colspan="{len(comparison.sides) + 1}">'
                         f'{escape(group_title(entry.group))}</td></tr>')
        else:
            parts.append(_line(entry))
    return parts + ["</tbody></table></details>"]


def fragment(report: DiffReport) -> str:
    """The report as an HTML fragment: the headline first, the full table collapsed below."""
    comparison, view = report.comparison, report.view
    parts = [f'<div class="ncmp"><style>{CSS}</style>',
             f"<h3>{escape(title(comparison))}</h3>",
             f"<p>{escape(batch_line(comparison))}; basis: {escape(comparison.basis_reason)}</p>"]
    parts += _headline(report)
    parts += [f'<p class="warn">warning: {escape(w)}</p>' for w in [*notes(comparison), *comparison.warnings]]
    parts += [f'<p class="{"fail" if g.startswith("FAILED") else "foot"}">{escape(g)}</p>'
              for g in gate_lines(report.gates)]
    if not report.summary:
        parts += _table(report)
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
