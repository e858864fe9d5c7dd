"""Markdown for a pull-request comment: the headline, warnings as a list, gates, then the full
table (one table per catalog group) folded in a ``<details>`` block."""

from __future__ import annotations

from ...analysis.findings.base import Finding
from ...analysis.sweep import Sweep
from ...escape import markdown as _escape
from ...escape import markdown_code
from ...units import format_value
from .. import sweep_text
from ..base import DiffReport, Renderer
from ..captions import FINDINGS_TITLE, batch_line, finding_line, footer_lines, gate_lines, group_title, title
from ..changes import LEGEND, change_with_mark
from ..headline import headline, notes, tally_text
from ..rows import Heading, Line, lines


def _cells(shown: Line, name: str) -> str:
    parts = [name, _escape(shown.value(shown.baseline))]
    for delta in shown.deltas:
        change = change_with_mark(delta)
        parts.append(_escape(shown.value(delta.variant)) + (f" ({change})" if change else ""))
    return "| " + " | ".join(parts) + " |"


def _line(shown: Line) -> str:
    return _cells(shown, "&nbsp;&nbsp;per step" if shown.step_context else markdown_code(shown.title))


def _header(report: DiffReport, first: str = "metric") -> list[str]:
    sides = report.comparison.sides
    return [f"| {first} | " + " | ".join(_escape(s.label) for s in sides) + " |",
            "|---|" + "---:|" * len(sides)]


def _headline(report: DiffReport) -> list[str]:
    out = ["### Headline", ""] + _header(report, "")
    out += [_cells(item.line, _escape(item.label)) for item in headline(report.comparison)]
    tallies = " | ".join(tally_text(counts) for counts in report.comparison.tally())
    return out + [f"| rows better / worse | | {tallies} |"]


def _table(report: DiffReport) -> list[str]:
    comparison, view = report.comparison, report.view
    out = [f"<details><summary>All metrics ({len(view.rows)} rows)</summary>"]
    if not view.grouped:
        out += [""] + _header(report)
    for entry in lines(comparison, view):
        if isinstance(entry, Heading):
            out += ["", f"#### {_escape(group_title(entry.group))}", ""] + _header(report)
        else:
            out.append(_line(entry))
    return out + ["", "</details>"]


def _finding_line(finding: Finding) -> str:
    """``finding_line`` with only the finding's own text escaped (the ``[category]`` is ours)."""
    category = f"[{finding.category}] "
    return category + _escape(finding_line(finding).removeprefix(category))


def _sweep_table(sweep: Sweep, names: tuple[str, ...], heading: str) -> list[str]:
    shown = [n for n in names if n == "batch" or any(row.get(n) is not None for row in sweep.table)]
    out = [f"#### {heading}", "", "| " + " | ".join(sweep_text.title(n) for n in shown) + " |",
           "|" + "---:|" * len(shown)]
    return out + ["| " + " | ".join(_escape(sweep_text.cell(row, n)) for n in shown) + " |" for row in sweep.table]


def _finding(index: int, finding: Finding) -> list[str]:
    out = [f"{index}. **{_escape(finding.title)}** ({finding.category})"]
    if finding.impact is not None:
        impact = finding.impact
        out.append(f"   - impact: up to {impact.share:.1%} of {impact.of} "
                   f"({format_value(impact.amount, impact.unit)}): {_escape(impact.formula)}")
    out.append("   - evidence: " + _escape("; ".join(sweep_text.evidence_text(e) for e in finding.evidence)))
    out.append(f"   - fires at: {_escape(', '.join(finding.where))}")
    return out + [f"   - action: {_escape(finding.action)}"]


def sweep_markdown(sweep: Sweep) -> str:
    head = sweep_text.heading_text(sweep)
    out = [f"## {_escape(head[0])}", ""] + [f"{_escape(text)}  " for text in head[1:]] + [""]
    out += _sweep_table(sweep, sweep_text.THROUGHPUT, "Throughput (per step on one NeuronCore)") + [""]
    out += _sweep_table(sweep, sweep_text.ENGINES, "Utilization (% of the step)") + [""]
    out += _sweep_table(sweep, sweep_text.MOVEMENT, "Data movement and memory") + [""]
    roof = [[text for text, _ in line] for line in sweep_text.roofline_lines(sweep)[2:]]  # one part: no width
    if roof:
        out += ["#### Roofline", "", "| batch | FLOP/B | achieved | attainable | of roof | bound | MFU bound |",
                "|" + "---:|" * 7] + ["| " + " | ".join(_escape(cell.strip()) for cell in row) + " |" for row in roof] + [""]
    out += ["#### Models", ""]
    out += [f"- **{label}**: {_escape(text)}" for label, text in sweep_text.models_text(sweep)] + [""]
    chosen = sweep.recommendation
    if chosen is not None:
        out += [f"**Recommendation:** {_escape(chosen.label)} (batch {chosen.batch_size}): best {chosen.by}, "
                f"{chosen.value:.1f} samples/s" + (f"; next {_escape(chosen.runner_up)}" if chosen.runner_up else "")
                + f". _{_escape(chosen.caveat)}_", ""]
    out += ["#### Findings (ranked by estimated impact)", "", f"_{sweep_text.OVERLAP}_", ""]
    for index, finding in enumerate(sweep.findings, 1):
        out += _finding(index, finding)
    out += [""] + [f"- checked, did not fire: {p.rule}: {_escape(p.reason)}" for p in sweep.passed]
    out += [f"- not run: {n.rule}: {_escape(n.reason)}" for n in sweep.not_run]
    return "\n".join(out + [f"- note: {_escape(note)}" for note in sweep.notes]) + "\n"


class Markdown(Renderer):
    name, extensions, order = "md", (".md", ".markdown"), 20
    description = "Markdown for a pull-request comment"

    def diff(self, report: DiffReport, width: int = 100) -> str:
        comparison, view = report.comparison, report.view
        out = [f"## neuroncmp diff: {_escape(title(comparison))}", "",
               f"**Basis:** {_escape(comparison.basis_reason)}. "
               f"{_escape(batch_line(comparison).capitalize())}.", ""]
        out += _headline(report)
        warnings = [*notes(comparison), *comparison.warnings]
        if warnings:
            out += ["", "**Warnings**", ""] + [f"- {_escape(w)}" for w in warnings]
        gates = gate_lines(report.gates)
        if gates:
            out += ["", "**Gates**", ""] + [f"- {_escape(g)}" for g in gates]
        if not report.summary:
            out += [""] + _table(report)
        if report.findings:
            out += ["", f"**{FINDINGS_TITLE.capitalize()}**", ""]
            out += [f"{i}. {_finding_line(f)}" for i, f in enumerate(report.findings, 1)]
        out += [""] + [f"<sub>{_escape(text)}</sub><br>" for text in footer_lines(comparison, view)]
        out.append(f"<sub>{LEGEND}</sub>")
        return "\n".join(out) + "\n"

    def sweep(self, sweep: Sweep, width: int = 100) -> str:
        return sweep_markdown(sweep)


RENDERER = Markdown()
