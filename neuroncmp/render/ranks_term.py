"""``neuroncmp ranks`` for the terminal: the sentences wrapped, then the per-rank table and, with a
baseline run, the changes, drawn with rich at the given width without colour (plain text, as the
``term`` format writes to a file or a pipe)."""

from __future__ import annotations

import io
import textwrap

from ..commands.ranks import RanksReport
from ..escape import text
from .ranks import (
    CHANGE_COLUMNS,
    change_cells,
    opening,
    runs_lines,
    table,
    tail_lines,
)


def terminal(report: RanksReport, width: int = 100) -> str:
    analysis = report.analysis
    out = [*_wrapped(opening(analysis), width), "",
           _table(*table(analysis), width),
           *_wrapped(tail_lines(analysis), width)]
    if report.runs is not None:
        out += ["", "against the baseline run:",
                _table(CHANGE_COLUMNS, [change_cells(c) for c in report.runs.changes], width),
                *_wrapped(runs_lines(report.runs, report.gates), width)]
    return "\n".join(out).rstrip("\n") + "\n"


def _wrapped(lines: list[str], width: int) -> list[str]:
    return [part for line in lines for part in textwrap.wrap(text(line), width, subsequent_indent="  ")]


def _table(head: tuple[str, ...] | list[str], rows: list[list[str]], width: int) -> str:
    from rich.box import SIMPLE_HEAD
    from rich.console import Console
    from rich.table import Table

    table = Table(box=SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1))
    for index, name in enumerate(head):
        last = index == len(head) - 1  # the outlier column wraps; numbers never break across lines
        table.add_column(name, justify="left" if index == 0 or last else "right", no_wrap=not last,
                         overflow="fold" if last else "ellipsis")
    for row in rows:
        table.add_row(*(text(cell) for cell in row))
    buffer = io.StringIO()
    Console(file=buffer, width=width, color_system=None, force_terminal=False, highlight=False,
            emoji=False, markup=False).print(table)
    return "\n".join(line.rstrip() for line in buffer.getvalue().splitlines())
