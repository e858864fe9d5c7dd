"""``neuroncmp ranks`` in the terminal: the sentences, then the per-rank table and, with a baseline
run, the changes; the rows and sentences are ``render/ranks.py``'s, the same in every format. The
tables are laid out as the sweep's are (``tables``): too wide for the terminal, they continue below
with the rank (or quantity) column repeated, so no number is cut."""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text

from ...commands.ranks import RanksReport
from ..ranks import CHANGE_COLUMNS, change_cells, opening, runs_lines, table, tail_lines
from . import Indented, tables


def drawn(report: RanksReport, width: int = 100) -> list[RenderableType]:
    analysis = report.analysis
    out = [*map(Indented, opening(analysis)), Text(), *_rank_tables(*table(analysis), width),
           *map(Indented, tail_lines(analysis))]
    if report.runs is not None:
        changes = [change_cells(c) for c in report.runs.changes]
        out += [Text(), Text("against the baseline run:"),
                *tables(CHANGE_COLUMNS, changes, range(1, len(CHANGE_COLUMNS) - 1), width),
                *map(Indented, runs_lines(report.runs, report.gates))]
    return out


def _rank_tables(head: list[str], rows: list[list[str]], width: int) -> list[RenderableType]:
    """The outlier column (the table's last) beside ``vs median``, so a narrow terminal keeps it in
    the first block; left out when no rank is an outlier, as the opening says. The rank and the
    outlier's kinds read as text, the numbers right-aligned."""
    outlier = len(head) - 1
    order = [0, 1, 2, *([outlier] if any(row[outlier] for row in rows) else []), *range(3, outlier)]
    right = [at for at, column in enumerate(order) if column not in (0, outlier)]
    return tables([head[i] for i in order], [[row[i] for i in order] for row in rows], right, width)
