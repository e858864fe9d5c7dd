"""Terminal rendering of a comparison (rich): header, one section per catalog group, footer.

Each variant cell holds the value and, below it, the change with a verdict mark, so the table
reads without colour; colour (green better, red worse, dim unchanged) only reinforces it.
"""

from __future__ import annotations

from typing import Any

from rich import box
from rich.console import Group
from rich.table import Table
from rich.text import Text

from ..compare import BETTER, UNCHANGED, WORSE, Comparison, Row
from . import cells as c

STYLE = {BETTER: "green", WORSE: "red", UNCHANGED: "dim"}


def header(comparison: Comparison) -> list[Text]:
    names = [c.side_title(comparison, i) for i in range(len(comparison.sides))]
    lines = [Text(f"neuroncmp diff: {names[0]} vs {', '.join(names[1:])}", style="bold"),
             Text(f"{c.batch_line(comparison)}; basis: {comparison.basis_reason}")]
    lines += [Text(f"warning: {w}", style="yellow") for w in comparison.warnings]
    return lines


def table(comparison: Comparison) -> Table:
    grid = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 0))
    grid.add_column("metric [unit]", overflow="fold", min_width=16)
    for side in comparison.sides:
        grid.add_column(side.label, justify="right", overflow="fold", max_width=8)
    show_trend = len(comparison.variants) >= 2
    if show_trend:
        grid.add_column("trend", no_wrap=True, min_width=len(comparison.sides) + 1)
    group = None
    for row in visible_rows(comparison):
        if comparison.grouped and row.spec.group != group:
            group = row.spec.group
            grid.add_row(Text(group, style="bold cyan"), end_section=False)
        grid.add_row(*_cells(row, comparison.basis, show_trend))
        if c.step_line(comparison, row):
            grid.add_row(*_cells(row, "step", show_trend, title="  per step"), style="dim")
    return grid


def _identical_text(row: Row) -> bool:
    return row.spec.kind in ("text", "index") and not row.changed("step")


def visible_rows(comparison: Comparison) -> list[Row]:
    """Rows for the terminal: identical versions and indices are left to the footer's count."""
    return [row for row in comparison.rows if not _identical_text(row)]


def _cells(row: Row, basis: str, show_trend: bool, title: str | None = None) -> list[Any]:
    scale = c.scale_for(row, basis)
    first = row.cells[0].shown(basis)
    if title is not None:
        title += f" [{c.unit_label(row, basis)}]" if c.unit_label(row, basis) else ""
    out: list[Any] = [Text(title or c.metric_title(row, basis, with_unit=True)),
                      Text(c.value_text(first.baseline, row, scale, unit=False))]
    for cell in row.cells:
        delta = cell.shown(basis)
        text = Text(c.value_text(delta.variant, row, scale, unit=False))
        text.append("\n" + c.change_with_mark(delta, sep=""), style=STYLE.get(delta.verdict, ""))
        out.append(text)
    if show_trend:
        out.append(Text(c.trend(row, basis), style="dim"))
    return out


def render(comparison: Comparison) -> Group:
    parts: list[Any] = header(comparison) + [Text(""), table(comparison), Text("")]
    parts += [Text(line, style="dim") for line in c.footer_lines(comparison)]
    same = len(comparison.rows) - len(visible_rows(comparison))
    if same:
        parts.append(Text(f"{same} identical metadata rows (versions, indices) not shown", style="dim"))
    parts.append(Text(c.LEGEND, style="dim"))
    for line in c.gate_lines(comparison):
        parts.append(Text(line, style="bold red" if line.startswith("FAILED") else "green"))
    return Group(*parts)
