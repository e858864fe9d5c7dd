"""Markdown for a pull-request comment: the headline, warnings as a list, gates, then the full
table (one table per catalog group) folded in a ``<details>`` block."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...analysis import table
from ...analysis.findings.base import Finding
from ...analysis.sweep import Sweep
from ...escape import markdown as _escape
from ...escape import markdown_code
from .. import sweep_words as sweep_text
from ..base import DiffReport, RegressionsReport, Renderer, delegate
from ..bounds_table import bounds_markdown
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
from ..changes import LEGEND, change_with_word, direction_with_word
from ..headline import (
    TALLY_LABEL,
    bound_rows,
    headline,
    notes,
    report_bound_line,
    tally_texts,
)
from ..markup import markdown_row, markdown_table
from ..rows import Heading, Line, lines


def _cells(shown: Line, name: str) -> str:
    parts = [name, _escape(shown.value(shown.baseline))]
    for delta in shown.deltas:
        change = change_with_word(delta)
        parts.append(_escape(shown.value(delta.variant)) + (f" ({change})" if change else ""))
    return markdown_row(parts)


def _line(shown: Line) -> str:
    return _cells(shown, "&nbsp;&nbsp;per step" if shown.step_context else markdown_code(shown.title))


def _header(report: DiffReport, first: str = "metric") -> list[str]:
    sides = report.comparison.sides
    return markdown_table([first, *(s.label for s in sides)], [], range(1, len(sides) + 1))


def _headline(report: DiffReport) -> list[str]:
    out = ["### Headline", ""] + _header(report, "")
    out += [_cells(item.line, _escape(item.label)) for item in headline(report.comparison)]
    for name, cells in bound_rows(report):
        out.append(markdown_row([name, *map(_escape, cells)]))
    tallies = " | ".join(tally_texts(report.comparison))
    return out + [f"| {TALLY_LABEL} | | {tallies} |"]


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


def _sweep_table(sweep: Sweep, block: str, heading: str) -> list[str]:
    shown = sweep_text.shown_columns(sweep, block)
    rows = [[sweep_text.cell(row, n) for n in shown] for row in sweep.table]
    return [f"#### {heading}", "", *markdown_table([sweep_text.title(n) for n in shown], rows, range(len(shown)))]


def _finding(index: int, finding: Finding) -> list[str]:
    return [f"{index}. **{_escape(finding.title)}** ({finding.category})",
            *(f"   - {label}: {_escape(text)}" for label, text in sweep_text.finding_facts(finding))]


HEADLINE_CHANGES = 5  # the worst shifts shown above the fold; all of them in the table folded below
SHIFT_LEGEND = ("✘ worse  ✔ better  ~ changed (no better direction); at run, commit: the best estimate of "
                "the first run of the new level; first new run: the runs that may be it, named by their "
                "commits, with the probability stated; before/after: medians of the levels; p: the shift "
                "test's p-value")


def _shift_row(change: Any) -> list[str]:
    from .. import store_words as store_text  # the store's views load with its commands only

    cells = [direction_with_word(change.direction), markdown_code(change.metric),
             store_text.tags_text(change.series), markdown_code(change.at.run),
             markdown_code(change.at.commit) if change.at.commit else "",
             store_text.iso_time(change.at.time), *store_text.shift_cells(change)]
    escaped = [cell if cell.startswith("`") else _escape(cell) for cell in cells]
    # commits as code spans; the words around them are ours and need no escaping
    escaped.append(store_text.candidates_text(change, lambda _point, name: markdown_code(name)))
    return escaped


SHIFT_HEADER = ("verdict", "metric", "series", "at run", "commit", "time", "before", "after", "change", "p",
                "first new run")


def _shift_table(changes: Sequence[Any]) -> list[str]:
    return markdown_table(SHIFT_HEADER, [_shift_row(c) for c in changes], {6, 7, 8, 9}, str)


class Markdown(Renderer):
    name, extensions, order = "md", (".md", ".markdown"), 20
    description = "Markdown for a pull-request comment"

    def diff(self, report: DiffReport, width: int = 100) -> str:
        comparison, view = report.comparison, report.view
        out = [f"**{_escape(text)}**\n" for text in opening(comparison)]
        out += [f"## neuroncmp diff: {_escape(title(comparison))}", "",
               f"**Basis:** {_escape(comparison.basis_reason)}. "
               f"{_escape(batch_line(comparison).capitalize())}.", ""]
        out += _headline(report)
        warnings = [*notes(comparison), *later_warnings(comparison)]
        if warnings:
            out += ["", "**Warnings**", ""] + [f"- {_escape(w)}" for w in warnings]
        gates = [gate.line for gate in report.gates]
        if gates:
            out += ["", "**Gates**", ""] + [f"- {_escape(g)}" for g in gates]
        bound = report_bound_line(report) if report.bounds_only else None
        if bound is not None:
            out += [""] + bounds_markdown([s.label for s in comparison.sides], bound.bounds, report.versions)
        elif not report.summary:
            out += [""] + _table(report)
        if report.findings:
            out += ["", f"**{findings_title(report.findings_of).capitalize()}**", ""]
            out += [f"{i}. {_finding_line(f)}" for i, f in enumerate(report.findings, 1)]
        out += [""] + [f"<sub>{_escape(text)}</sub><br>" for text in footer_lines(comparison, view)]
        out.append(f"<sub>{LEGEND}</sub>")
        return "\n".join(out) + "\n"

    def sweep(self, sweep: Sweep, width: int = 100) -> str:
        head = sweep_text.heading_text(sweep)
        out = [f"## {_escape(head[0])}", ""] + [f"{_escape(text)}  " for text in head[1:]] + [""]
        out += _sweep_table(sweep, table.THROUGHPUT, "Throughput (per step on one NeuronCore)") + [""]
        out += _sweep_table(sweep, table.ENGINES, "Utilization (% of the step)") + [""]
        out += _sweep_table(sweep, table.MOVEMENT, "Data movement and memory") + [""]
        roof = sweep_text.roofline_rows(sweep)
        if roof:
            header = sweep_text.ROOFLINE_HEADER
            out += ["#### Roofline", "", *markdown_table(header, roof, range(len(header))), ""]
        out += ["#### Models", ""]
        out += [f"- **{label}**: {_escape(text)}" for label, text in sweep_text.models_text(sweep)] + [""]
        chosen = sweep.recommendation
        if chosen is not None:
            runner = f"; next {_escape(chosen.runner_up)}" if chosen.runner_up else ""
            out += [f"**Recommendation:** {_escape(chosen.label)} (batch {chosen.batch_size}): best {chosen.by}, "
                    f"{chosen.value:.1f} samples/s{runner}. _{_escape(chosen.caveat)}_", ""]
        out += ["#### Findings (ranked by estimated impact)", "", f"_{sweep_text.OVERLAP}_", ""]
        for index, finding in enumerate(sweep.findings, 1):
            out += _finding(index, finding)
        out += [""] + [f"- checked, did not fire: {p.rule}: {_escape(p.reason)}" for p in sweep.passed]
        out += [f"- not run: {n.rule}: {_escape(n.reason)}" for n in sweep.not_run]
        return "\n".join(out + [f"- note: {_escape(note)}" for note in sweep.notes]) + "\n"

    def regressions(self, report: RegressionsReport, width: int = 100) -> str:
        """The worst shifts as a table, every shift in a table folded under it, warnings as a list."""
        result = report.regressions
        kind = "changes" if result.all_changes else "changes for the worse"
        store = markdown_code(report.store)
        out = [f"## neuroncmp regressions: {len(result.changes)} {kind}", "",
               f"In {result.series_count} series of {result.metric_count} metrics (store {store}).", ""]
        if result.warnings:
            out += ["**Warnings**", ""] + [f"- {_escape(w)}" for w in result.warnings] + [""]
        if not result.changes:
            return "\n".join(out) + "\n"
        out += _shift_table(result.changes[:HEADLINE_CHANGES]) + [""]
        if len(result.changes) > HEADLINE_CHANGES:
            out += [f"<details><summary>All {len(result.changes)} changes</summary>", ""]
            out += _shift_table(result.changes) + ["", "</details>", ""]
        return "\n".join(out + [f"<sub>{SHIFT_LEGEND}</sub>"]) + "\n"

    ranks = delegate("ranks", "markdown_text")
    ops = delegate("ops", "markdown_text")


RENDERER = Markdown()
