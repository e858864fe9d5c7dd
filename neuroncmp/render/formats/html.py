"""HTML: a standalone page (``--format html``) or a fragment for notebooks: the headline first, then
warnings and gates, then the full table in a collapsible ``<details>`` block."""

from __future__ import annotations

import base64

from ...analysis import table
from ...analysis.findings.base import Finding
from ...analysis.sweep import Sweep
from ...catalog import group_rank
from ...choices import SUSPECT
from ...escape import html as escape
from ...model import Profile
from .. import sweep_words as sweep_text
from ..base import DiffReport, Renderer, delegate
from ..bounds_table import bounds_html
from ..captions import (
    batch_line,
    finding_line,
    findings_title,
    footer_lines,
    group_title,
    later_warnings,
    opening,
    title,
)
from ..changes import LEGEND, banded, change_with_mark
from ..headline import (
    TALLY_LABEL,
    bound_rows,
    headline,
    notes,
    report_bound_line,
    tally_texts,
)
from ..markup import html_table
from ..rows import Heading, Line, identical_text, lines

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
    """A row: its name with the unit once (``total_time/sample [ms]``), then bare numbers, each
    variant's change under its value (the unit in every cell made the table about 2,200 px wide)."""
    name = name or ("\u00a0\u00a0" if shown.step_context else "") + shown.titled(shown.unit)
    tds = [f'<td class="m" title="{escape(shown.row.spec.meaning)}">{escape(name)}</td>',
           f"<td>{escape(shown.value(shown.baseline, with_unit=False))}</td>"]
    for cell, delta in zip(shown.row.cells, shown.deltas, strict=False):
        why = f' title="suspect input: {escape(cell.suspect)}"' if delta.verdict == SUSPECT and cell.suspect else ""
        said = banded(delta.verdict, delta.in_band)  # the class says what the mark says
        tds.append(f'<td>{escape(shown.value(delta.variant, with_unit=False))}<br>'
                   f'<span class="{said}"{why}>{escape(change_with_mark(delta))}</span></td>')
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
    for name, cells in bound_rows(report):
        parts.append(f'<tr><td class="m">{escape(name)}</td>'
                     + "".join(f"<td>{escape(text)}</td>" for text in cells) + "</tr>")
    tallies = "".join(f"<td>{escape(text)}</td>" for text in tally_texts(report.comparison))
    parts.append(f'<tr><td class="m">{TALLY_LABEL}</td><td></td>{tallies}</tr>')
    return parts + ["</tbody></table>"]


def _table(report: DiffReport) -> list[str]:
    comparison, view = report.comparison, report.view
    parts = [f"<details><summary>All metrics ({len(view.rows)} rows)</summary>", _thead(report, "metric")]
    for entry in lines(comparison, view):
        if isinstance(entry, Heading):
            parts.append(f'<tr class="g"><td colspan="{len(comparison.sides) + 1}">'
                         f'{escape(group_title(entry.group))}</td></tr>')
        elif identical_text(entry.row):
            parts.append(_same_text(entry, len(comparison.sides)))
        else:
            parts.append(_line(entry))
    return parts + ["</tbody></table></details>"]


def _same_text(shown: Line, sides: int) -> str:
    """A version or index that every side shares, written once across the sides' columns: a
    34-character compiler version repeated in each column set every column's width."""
    return (f'<tr><td class="m" title="{escape(shown.row.spec.meaning)}">{escape(shown.title)}</td>'
            f'<td class="m" colspan="{sides}">{escape(shown.value(shown.baseline))} '
            f'<span class="unchanged">(every side)</span></td></tr>')


def fragment(report: DiffReport) -> str:
    """The report as an HTML fragment: the headline first, the full table collapsed below."""
    comparison, view = report.comparison, report.view
    parts = [f'<div class="ncmp"><style>{CSS}</style>']
    parts += [f'<p class="fail">{escape(text)}</p>' for text in opening(comparison)]
    parts += [f"<h3>{escape(title(comparison))}</h3>",
             f"<p>{escape(batch_line(comparison))}; basis: {escape(comparison.basis_reason)}</p>"]
    parts += _headline(report)
    parts += [f'<p class="warn">warning: {escape(w)}</p>' for w in [*notes(comparison), *later_warnings(comparison)]]
    parts += [f'<p class="{"fail" if g.tripped else "foot"}">{escape(g.line)}</p>'
              for g in report.gates]
    bound = report_bound_line(report) if report.bounds_only else None
    if bound is not None:
        parts += bounds_html([s.label for s in comparison.sides], bound.bounds, report.versions)
    elif not report.summary:
        parts += _table(report)
    if report.findings:
        parts.append(f"<h4>{escape(findings_title(report.findings_of))}</h4><ol>"
                     + "".join(f"<li>{escape(finding_line(f))}</li>" for f in report.findings) + "</ol>")
    parts += [f'<p class="foot">{escape(text)}</p>' for text in footer_lines(comparison, view) + [LEGEND]]
    parts.append("</div>")
    return "\n".join(parts)


def _sweep_table(sweep: Sweep, block: str, heading: str) -> str:
    shown = sweep_text.shown_columns(sweep, block)
    return f"<h4>{escape(heading)}</h4>" + html_table([sweep_text.title(n) for n in shown],
                                                     [[sweep_text.cell(row, n) for n in shown] for row in sweep.table])


def _roofline_table(sweep: Sweep) -> list[str]:
    """The roofline table the terminal prints; none without a roofline."""
    rows = sweep_text.roofline_rows(sweep)
    return [f"<h4>{escape(sweep_text.ROOFLINE_HEADING)}</h4>"
            + html_table(sweep_text.ROOFLINE_HEADER, rows)] if rows else []


def _charts(sweep: Sweep) -> list[str]:
    """The sweep's charts as embedded PNG images, when the plot extra (matplotlib) is installed."""
    from .. import charts

    if not charts.available():
        return ['<p class="foot">charts: pip install \'neuroncmp[plot]\' to embed them here</p>']
    out = []
    for name, build in charts.FIGURES.items():
        data = base64.b64encode(charts.png(build(sweep))).decode("ascii")
        out.append(f'<img alt="{name}" src="data:image/png;base64,{data}">')
    return out


def finding_html(finding: Finding) -> str:
    """One finding as an HTML list item: title, impact, evidence, where it fires, action."""
    facts = "".join(f"<li>{label}: {escape(text)}</li>" for label, text in sweep_text.finding_facts(finding))
    return f"<li><b>{escape(finding.title)}</b> <span class=\"foot\">({finding.category})</span><ul>{facts}</ul></li>"


def sweep_fragment(sweep: Sweep, with_charts: bool = True) -> str:
    """A sweep as HTML: heading, tables, charts (plot extra), models, recommendation, findings."""
    head = sweep_text.heading_text(sweep)
    parts = [f'<div class="ncmp"><style>{CSS}</style><h3>{escape(head[0])}</h3>']
    parts += [f"<p>{escape(text)}</p>" for text in head[1:]]
    chosen = sweep.recommendation
    if chosen is not None:
        parts.append(f'<p class="better"><b>recommendation: {escape(chosen.label)}</b> (batch {chosen.batch_size}): '
                     f"best {escape(chosen.by)}, {chosen.value:.1f} samples/s</p>"
                     f'<p class="foot">{escape(chosen.caveat)}</p>')
    parts.append(f"<h4>findings (ranked by estimated impact)</h4>"
                 f"<p class=\"foot\">{escape(sweep_text.OVERLAP)}</p><ol>")
    parts += [finding_html(f) for f in sweep.findings] + ["</ol>"]
    parts.append(_sweep_table(sweep, table.THROUGHPUT, "throughput (per step on one NeuronCore)"))
    parts += _charts(sweep) if with_charts else []
    parts.append(_sweep_table(sweep, table.ENGINES, "utilization (% of the step)"))
    parts.append(_sweep_table(sweep, table.MOVEMENT, "data movement and memory"))
    parts += _roofline_table(sweep)
    parts.append("<h4>models</h4><ul>" + "".join(f"<li><b>{escape(label)}</b>: {escape(text)}</li>"
                                                 for label, text in sweep_text.models_text(sweep)) + "</ul>")
    parts += [f'<p class="foot">checked, did not fire: {escape(p.rule)}: {escape(p.reason)}</p>' for p in sweep.passed]
    parts += [f'<p class="warn">not run: {escape(n.rule)}: {escape(n.reason)}</p>' for n in sweep.not_run]
    parts += [f'<p class="foot">note: {escape(note)}</p>' for note in sweep.notes]
    return "\n".join(parts + ["</div>"])


def profile_fragment(profile: Profile) -> str:
    """One profile: heading, metrics by group (derived marked), memory table, anomalies."""
    batch = f", batch size {profile.batch_size}" if profile.batch_size else ""
    parts = [f'<div class="ncmp"><style>{CSS}</style><h3>{escape(profile.label)}{escape(batch)}</h3>',
             f'<p class="foot">{escape(str(profile.source))} ({escape(profile.source.format)})</p>',
             '<table><thead><tr><th class="m">metric</th><th>value</th></tr></thead><tbody>']
    group = None
    shown = [*profile.metrics.values(), *profile.derived_metrics().values()]
    for metric in sorted(shown, key=lambda m: group_rank(m.group)):
        if metric.group != group:
            group = metric.group
            parts.append(f'<tr class="g"><td colspan="2">{escape(group_title(group))}</td></tr>')
        note = " (derived)" if metric.spec.derived else ""
        parts.append(f'<tr><td class="m" title="{escape(metric.spec.meaning)}">{escape(metric.name + note)}</td>'
                     f"<td>{escape(metric.display())}</td></tr>")
    parts.append("</tbody></table>")
    parts += [f'<p class="warn">anomaly [{escape(a.code)}]: {escape(a.message)}</p>' for a in profile.anomalies]
    return "\n".join(parts + ["</div>"])


def page(body: str, heading: str) -> str:
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
            f"<title>{escape(heading)}</title></head><body>\n{body}\n</body></html>\n")


class Html(Renderer):
    name, extensions, order = "html", (".html", ".htm"), 50
    description = "a standalone HTML page"

    def diff(self, report: DiffReport, width: int = 100) -> str:
        return page(fragment(report), "neuroncmp diff")

    def sweep(self, sweep: Sweep, width: int = 100) -> str:
        return page(sweep_fragment(sweep), "neuroncmp sweep")

    ops = delegate("ops", "html_text")
    ranks = delegate("ranks", "html_text")


RENDERER = Html()
