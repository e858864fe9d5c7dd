"""Markdown for a pull-request comment: the headline, warnings as a list, gates, then the full
table (one table per catalog group) folded in a ``<details>`` block."""

from __future__ import annotations

from ..base import DiffReport, Renderer
from ..captions import batch_line, footer_lines, gate_lines, group_title, title
from ..changes import LEGEND, change_with_mark
from ..headline import headline, notes, tally_text
from ..rows import Heading, Line, lines


def _escape(text: str) -> str:
    return text.replace("|", "\\|")


def _cells(shown: Line, name: str) -> str:
    parts = [name, _escape(shown.value(shown.baseline))]
    for delta in shown.deltas:
        change = change_with_mark(delta)
        parts.append(_escape(shown.value(delta.variant)) + (f" ({change})" if change else ""))
    return "| " + " | ".join(parts) + " |"


def _line(shown: Line) -> str:
    return _cells(shown, "&nbsp;&nbsp;per step" if shown.step_context else f"`{shown.title}`")


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


class Markdown(Renderer):
    name, extensions, order = "md", (".md", ".markdown"), 20
    description = "Markdown for a pull-request comment"

    def diff(self, report: DiffReport, width: int = 100) -> str:
        comparison, view = report.comparison, report.view
        out = [f"## neuroncmp diff: {_escape(title(comparison))}", "",
               f"**Basis:** {comparison.basis_reason}. {batch_line(comparison).capitalize()}.", ""]
        out += _headline(report)
        warnings = [*notes(comparison), *comparison.warnings]
        if warnings:
            out += ["", "**Warnings**", ""] + [f"- {_escape(w)}" for w in warnings]
        gates = gate_lines(report.gates)
        if gates:
            out += ["", "**Gates**", ""] + [f"- {_escape(g)}" for g in gates]
        if not report.summary:
            out += [""] + _table(report)
        out += [""] + [f"<sub>{_escape(text)}</sub><br>" for text in footer_lines(comparison, view)]
        out.append(f"<sub>{LEGEND}</sub>")
        return "\n".join(out) + "\n"


RENDERER = Markdown()
