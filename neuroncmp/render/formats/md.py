"""Markdown for a pull-request comment: header, warnings, one table per group, gates, footer."""

from __future__ import annotations

from ...escape import markdown as _escape
from ...escape import markdown_code
from ..base import DiffReport, Renderer
from ..captions import batch_line, footer_lines, gate_lines, title
from ..changes import LEGEND, change_with_mark
from ..rows import Heading, Line, lines


def _line(shown: Line) -> str:
    name = "&nbsp;&nbsp;per step" if shown.step_context else markdown_code(shown.title)
    parts = [name, _escape(shown.value(shown.baseline))]
    for delta in shown.deltas:
        change = change_with_mark(delta)
        parts.append(_escape(shown.value(delta.variant)) + (f" ({change})" if change else ""))
    return "| " + " | ".join(parts) + " |"


class Markdown(Renderer):
    name, extensions, order = "md", (".md", ".markdown"), 20
    description = "Markdown for a pull-request comment"

    def diff(self, report: DiffReport, width: int = 100) -> str:
        comparison, view = report.comparison, report.view
        out = [f"## neuroncmp diff: {_escape(title(comparison))}", "",
               f"**Basis:** {_escape(comparison.basis_reason)}. "
               f"{_escape(batch_line(comparison).capitalize())}.", ""]
        out += [f"> **Warning:** {_escape(w)}" for w in comparison.warnings]
        gates = gate_lines(report.gates)
        if gates:
            out += ["", "**Gates**", ""] + [f"- {_escape(g)}" for g in gates]
        header = "| metric | " + " | ".join(_escape(s.label) for s in comparison.sides) + " |"
        rule = "|---|" + "---:|" * len(comparison.sides)
        if not view.grouped:
            out += ["", header, rule]
        for entry in lines(comparison, view):
            if isinstance(entry, Heading):
                out += ["", f"### {_escape(entry.group)}", "", header, rule]
            else:
                out.append(_line(entry))
        out += [""] + [f"<sub>{_escape(text)}</sub><br>" for text in footer_lines(comparison, view)]
        out.append(f"<sub>{LEGEND}</sub>")
        return "\n".join(out) + "\n"


RENDERER = Markdown()
