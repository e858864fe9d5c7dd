"""``neuroncmp ops`` in the terminal (what it shows: ``docs/commands/ops.md``); the rows and sentences
are ``render/ops.py``'s, the same in every format."""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text

from ...commands.ops import OpsReport
from ..ops import COLUMNS, WAIT_COLUMNS, footer, heading, opening, table_rows, under
from . import Indented, fitted


def _table(header: tuple[str, ...], rows: list[list[str]], width: int) -> list[RenderableType]:
    """Right-aligned times and shares, the op's name wrapping after ``_``, ``/`` or a space."""
    return fitted(list(header), rows, set(range(1, len(header) - 1)), {0}, width)


def drawn(report: OpsReport, width: int = 100) -> list[RenderableType]:
    comparison = report.comparison
    out: list[RenderableType] = [Indented(line, "bold yellow") for line in opening(comparison)]
    for variant in comparison.variants:
        body, waits = table_rows(variant, report.top)
        out += [Text()] if out else []
        out.append(Indented(heading(comparison, variant), "bold"))
        out += _table(COLUMNS, body, width) if variant.changes else []
        out += [Indented(line) for line in under(comparison, variant, report.top)]
        if waits:
            out += [Text(), Text("semaphore waits (not work, not counted):"), *_table(WAIT_COLUMNS, waits, width)]
    return out + [Text(), *(Indented(line, "dim") for line in footer(comparison))]
