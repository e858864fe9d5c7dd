"""Terminal rendering of a comparison: header, one section per catalog group, footer.

The report is laid out here as lines of (text, style) pieces with plain string padding. A
colour terminal gets them through rich (terminal detection, NO_COLOR, Windows); piped or
``--no-color`` output is joined as plain text without importing rich at all. (rich's Table
measured and wrapped every cell: most of a 0.5 s run for the 8-profile sweep.)
Each variant cell holds the value and, below it, the change with a verdict mark, so the table
reads without colour; colour (green better, red worse, dim unchanged) only reinforces it.
"""

from __future__ import annotations

from ..comparison import BETTER, UNCHANGED, WORSE, Comparison, Row
from . import cells as c
from .lines import Line, plain
from .lines import wrapped as _wrapped

STYLE = {BETTER: "green", WORSE: "red", UNCHANGED: "dim"}
GAP = " "
TermCell = list[tuple[str, str]]  # one (text, style) piece per line of a cell
Entry = tuple[str, list[TermCell]]  # ("group" | "row" | "step", cells)


def header(comparison: Comparison, width: int) -> list[Line]:
    names = [c.side_title(comparison, i) for i in range(len(comparison.sides))]
    lines = _wrapped(f"neuroncmp diff: {names[0]} vs {', '.join(names[1:])}", "bold", width)
    lines += _wrapped(f"{c.batch_line(comparison)}; basis: {comparison.basis_reason}", "", width)
    for warning in comparison.warnings:
        lines += _wrapped(f"warning: {warning}", "yellow", width)
    return lines


def _identical_text(row: Row) -> bool:
    return row.spec.kind in ("text", "index") and not row.changed("step")


def visible_rows(comparison: Comparison) -> list[Row]:
    """Rows for the terminal: identical versions and indices are left to the footer's count."""
    return [row for row in comparison.rows if not _identical_text(row)]


def _row_cells(row: Row, basis: str, show_trend: bool, title: str | None = None) -> list[TermCell]:
    scale = c.scale_for(row, basis)
    first = row.cells[0].shown(basis)
    unit = c.unit_label(scale)
    name = (title + (f" [{unit}]" if unit else "")) if title else c.metric_title(row, basis, unit)
    out: list[TermCell] = [[(name, "")], [(c.value_text(first.baseline, row, scale, unit=False), "")]]
    for cell in row.cells:
        delta = cell.shown(basis)
        out.append([(c.value_text(delta.variant, row, scale, unit=False), ""),
                    (c.change_with_mark(delta, sep=""), STYLE.get(delta.verdict, ""))])
    if show_trend:
        out.append([(c.trend(row, basis), "dim")])
    return out


def _entries(comparison: Comparison) -> list[Entry]:
    show_trend = len(comparison.variants) >= 2
    entries: list[Entry] = []
    group = None
    for row in visible_rows(comparison):
        if comparison.grouped and row.spec.group != group:
            group = row.spec.group
            entries.append(("group", [[(group, "bold cyan")]]))
        entries.append(("row", _row_cells(row, comparison.basis, show_trend)))
        if c.step_line(comparison, row):
            entries.append(("step", _row_cells(row, "step", show_trend, title="  per step")))
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


def _entry_lines(kind: str, cells: list[TermCell], widths: list[int], trend: bool) -> list[Line]:
    if kind == "group":
        return [cells[0]]
    names = _chunks(cells[0][0][0], widths[0])
    dim = kind == "step"
    lines = []
    for n in range(max(len(names), *(len(cell) for cell in cells[1:]))):
        line: Line = [((names[n] if n < len(names) else "").ljust(widths[0]), "dim" if dim else "")]
        for i, cell in enumerate(cells[1:], 1):
            text, style = cell[n] if n < len(cell) else ("", "")
            last_is_trend = trend and i == len(cells) - 1
            padded = text.ljust(widths[i]) if last_is_trend else text.rjust(widths[i])
            line.append((GAP + padded, style or ("dim" if dim else "")))
        lines.append(line)
    return lines


def _header_lines(labels: list[str], widths: list[int]) -> list[Line]:
    folded = [_chunks(label, widths[i + 1]) for i, label in enumerate(labels)]
    height = max(len(f) for f in folded)
    lines = []
    for n in range(height):
        line: Line = [(("metric [unit]" if n == height - 1 else "").ljust(widths[0]), "bold")]
        for i, parts in enumerate(folded):
            offset = height - len(parts)  # bottom-align folded labels
            line.append((GAP + (parts[n - offset] if n >= offset else "").rjust(widths[i + 1]), "bold"))
        lines.append(line)
    lines.append([("─" * (sum(widths) + len(GAP) * (len(widths) - 1)), "dim")])
    return lines


def table(comparison: Comparison, width: int) -> list[Line]:
    entries = _entries(comparison)
    labels = _labels(comparison)
    widths = _widths(labels, entries, width)
    lines = _header_lines(labels, widths)
    trend = labels[-1] == "trend" and len(comparison.variants) >= 2
    for kind, cells in entries:
        lines += _entry_lines(kind, cells, widths, trend)
    return lines


def footer(comparison: Comparison, width: int) -> list[Line]:
    lines: list[Line] = []
    same = len(comparison.rows) - len(visible_rows(comparison))
    notes = c.footer_lines(comparison)
    if same:
        notes.append(f"{same} identical metadata rows (versions, indices) not shown")
    for note in notes + [c.LEGEND]:
        lines += _wrapped(note, "dim", width)
    for gate in c.gate_lines(comparison):
        lines += _wrapped(gate, "bold red" if gate.startswith("FAILED") else "green", width)
    return lines


def render_lines(comparison: Comparison, width: int = 100) -> list[Line]:
    return header(comparison, width) + [[]] + table(comparison, width) + [[]] + footer(comparison, width)


def render(comparison: Comparison, width: int = 100) -> str:
    """The report as plain text (no colour)."""
    return plain(render_lines(comparison, width))
