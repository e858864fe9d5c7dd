"""Terminal rendering of a comparison: header, one section per catalog group, footer.

The report is laid out as lines of (text, style) pieces with plain string padding
(``render/layout.py``); the CLI prints them plain or through rich for colour. Each variant cell
holds the value and, below it, the change with a verdict mark, so the table reads without
colour; colour (green better, red worse, dim unchanged) only reinforces it.
"""

from __future__ import annotations

from typing import Any

from ...comparison.result import BETTER, UNCHANGED, WORSE, Comparison
from ..base import DiffReport, Renderer
from ..captions import batch_line, footer_lines, gate_lines, title
from ..changes import LEGEND, change_with_mark
from ..layout import Line as Styled
from ..layout import plain, wrapped
from ..profile_text import profile_lines
from ...model import Profile
from ..rows import Heading, Line, identical_text, lines

STYLE = {BETTER: "green", WORSE: "red", UNCHANGED: "dim"}
GAP = " "
TermCell = list[tuple[str, str]]  # one (text, style) piece per line of a cell
Entry = tuple[str, list[TermCell]]  # ("group" | "row" | "step", cells)


def header(comparison: Comparison, width: int) -> list[Styled]:
    out = wrapped(f"neuroncmp diff: {title(comparison)}", "bold", width)
    out += wrapped(f"{batch_line(comparison)}; basis: {comparison.basis_reason}", "", width)
    for warning in comparison.warnings:
        out += wrapped(f"warning: {warning}", "yellow", width)
    return out


def _cells(shown: Line, show_trend: bool) -> list[TermCell]:
    unit = f" [{shown.unit}]" if shown.unit else ""
    name = "  per step" + unit if shown.step_context else shown.titled(shown.unit)
    out: list[TermCell] = [[(name, "")], [(shown.value(shown.baseline, with_unit=False), "")]]
    for delta in shown.deltas:
        out.append([(shown.value(delta.variant, with_unit=False), ""),
                    (change_with_mark(delta, sep=""), STYLE.get(delta.verdict, ""))])
    if show_trend:
        out.append([(shown.trend(), "dim")])
    return out


def _entries(report: DiffReport) -> list[Entry]:
    show_trend = len(report.comparison.variants) >= 2
    entries: list[Entry] = []
    for entry in lines(report.comparison, report.view, hide_identical_text=True):
        if isinstance(entry, Heading):
            entries.append(("group", [[(entry.group, "bold cyan")]]))
        else:
            entries.append(("step" if entry.step_context else "row", _cells(entry, show_trend)))
    return entries


def _labels(comparison: Comparison) -> list[str]:
    labels = [side.label for side in comparison.sides]
    return labels + (["trend"] if len(comparison.variants) >= 2 else [])


def _widths(labels: list[str], entries: list[Entry], width: int) -> list[int]:
    """Value columns as wide as their values (labels fold); the metric column takes the rest."""
    widths = [len("metric [unit]")] + [min(len(label), 8) for label in labels]
    for kind, cells in entries:
        if kind != "group":
            for i, cell in enumerate(cells):
                widths[i] = max(widths[i], *(len(text) for text, _ in cell))
    budget = width - sum(widths[1:]) - len(GAP) * len(labels)
    widths[0] = max(min(widths[0], budget), 12)
    return widths


def _chunks(text: str, width: int) -> list[str]:
    return [text[i:i + width] for i in range(0, len(text), width)] or [""]


def _entry_lines(kind: str, cells: list[TermCell], widths: list[int], trend: bool) -> list[Styled]:
    if kind == "group":
        return [cells[0]]
    names = _chunks(cells[0][0][0], widths[0])
    dim = kind == "step"
    out = []
    for n in range(max(len(names), *(len(cell) for cell in cells[1:]))):
        styled: Styled = [((names[n] if n < len(names) else "").ljust(widths[0]), "dim" if dim else "")]
        for i, cell in enumerate(cells[1:], 1):
            text, style = cell[n] if n < len(cell) else ("", "")
            last_is_trend = trend and i == len(cells) - 1
            padded = text.ljust(widths[i]) if last_is_trend else text.rjust(widths[i])
            styled.append((GAP + padded, style or ("dim" if dim else "")))
        out.append(styled)
    return out


def _header_lines(labels: list[str], widths: list[int]) -> list[Styled]:
    folded = [_chunks(label, widths[i + 1]) for i, label in enumerate(labels)]
    height = max(len(f) for f in folded)
    out = []
    for n in range(height):
        styled: Styled = [(("metric [unit]" if n == height - 1 else "").ljust(widths[0]), "bold")]
        for i, parts in enumerate(folded):
            offset = height - len(parts)  # bottom-align folded labels
            styled.append((GAP + (parts[n - offset] if n >= offset else "").rjust(widths[i + 1]), "bold"))
        out.append(styled)
    out.append([("─" * (sum(widths) + len(GAP) * (len(widths) - 1)), "dim")])
    return out


def table(report: DiffReport, width: int) -> list[Styled]:
    entries = _entries(report)
    labels = _labels(report.comparison)
    widths = _widths(labels, entries, width)
    out = _header_lines(labels, widths)
    trend = labels[-1] == "trend"
    for kind, cells in entries:
        out += _entry_lines(kind, cells, widths, trend)
    return out


def footer(report: DiffReport, width: int) -> list[Styled]:
    out: list[Styled] = []
    same = sum(1 for row in report.view.rows if identical_text(row))
    notes = footer_lines(report.comparison, report.view)
    if same:
        notes.append(f"{same} identical metadata rows (versions, indices) not shown")
    for note in notes + [LEGEND]:
        out += wrapped(note, "dim", width)
    for gate in gate_lines(report.gates):
        out += wrapped(gate, "bold red" if gate.startswith("FAILED") else "green", width)
    return out


def styled_lines(report: DiffReport, width: int = 100) -> list[Styled]:
    """The report as styled lines (the CLI prints them plain or in colour)."""
    return header(report.comparison, width) + [[]] + table(report, width) + [[]] + footer(report, width)


class Term(Renderer):
    name, extensions, order, aliases = "term", (".txt",), 10, ("table",)
    description = "the terminal table (plain text in a file)"

    def diff(self, report: DiffReport, width: int = 100) -> str:
        return plain(styled_lines(report, width))

    def profiles(self, profiles: list[Profile], width: int = 100) -> str:
        return plain(profiles_lines(profiles, width))

    def styled(self, document: str, value: Any, width: int = 100) -> list[Any] | None:
        layouts: dict[str, Any] = {"diff": styled_lines, "profiles": profiles_lines}
        return layouts[document](value, width)  # type: ignore[no-any-return]


def profiles_lines(profiles: list[Profile], width: int) -> list[Styled]:
    """``neuroncmp show``: each profile grouped by catalog group, a rule between profiles."""
    out: list[Styled] = []
    for index, profile in enumerate(profiles):
        out += ([[], [("─" * width, "dim")], []] if index else []) + profile_lines(profile, width)
    return out


RENDERER = Term()
