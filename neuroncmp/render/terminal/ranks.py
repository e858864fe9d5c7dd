"""``neuroncmp ranks`` in the terminal: the sentences wrapped, then the per-rank table and, with a
baseline run, the changes; the rows and sentences are ``render/ranks.py``'s, the same in every format."""

from __future__ import annotations

import textwrap

from rich.box import SIMPLE_HEAD
from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from ...commands.ranks import RanksReport
from ...escape import text
from ..ranks import CHANGE_COLUMNS, change_cells, opening, runs_lines, table, tail_lines


def drawn(report: RanksReport, width: int = 100) -> list[RenderableType]:
    analysis = report.analysis
    out = [*_wrapped(opening(analysis), width), Text(), _table(*table(analysis)),
           *_wrapped(tail_lines(analysis), width)]
    if report.runs is not None:
        out += [Text(), Text("against the baseline run:"),
                _table(CHANGE_COLUMNS, [change_cells(c) for c in report.runs.changes]),
                *_wrapped(runs_lines(report.runs, report.gates), width)]
    return out


def _wrapped(lines: list[str], width: int) -> list[RenderableType]:
    return [Text(part, no_wrap=True) for line in lines
            for part in textwrap.wrap(text(line), width, subsequent_indent="  ")]


def _table(head: tuple[str, ...] | list[str], rows: list[list[str]]) -> Table:
    table = Table(box=SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1))
    for index, name in enumerate(head):
        last = index == len(head) - 1  # the outlier column wraps; numbers never break across lines
        table.add_column(name, justify="left" if index == 0 or last else "right", no_wrap=not last,
                         overflow="fold" if last else "ellipsis")
    for row in rows:
        table.add_row(*(text(cell) for cell in row))
    return table
