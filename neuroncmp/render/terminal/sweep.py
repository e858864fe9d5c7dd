"""``neuroncmp sweep`` in the terminal: the tables, a chart, the models, the recommendation, findings.

Every number and sentence comes from ``sweep_words`` (shared with Markdown and HTML); this module
draws them. The chart is text: one bar per batch size, the fit's throughput beside the measured one.
"""

from __future__ import annotations

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from ...analysis.findings.base import Finding
from ...analysis.sweep import Sweep
from ...analysis.table import ENGINES, MOVEMENT, THROUGHPUT
from ...units import significant
from ..sweep_words import (
    EVIDENCE_SHOWN,
    OVERLAP,
    ROOFLINE_HEADER,
    ROOFLINE_HEADING,
    cell,
    finding_facts,
    heading_text,
    models_text,
    roofline_rows,
    shown_columns,
    title,
)
from . import Hanging, Wrapped, piece, tables

BAR = "█"
BLOCKS = ((THROUGHPUT, "throughput (samples/s; per step on one NeuronCore)"), (ENGINES, "utilization (% of the step)"),
          (MOVEMENT, "data movement and memory (per sample; memory per step)"))


def _tables(sweep: Sweep, width: int) -> list[RenderableType]:
    """Each block's table (columns with no value at any point left out), then the roofline's."""
    out: list[RenderableType] = []
    for name, heading in BLOCKS:
        shown = shown_columns(sweep, name)
        rows = [[cell(row, column) for column in shown] for row in sweep.table]
        header = [title(column) for column in shown]
        out += [Wrapped(heading, "bold cyan"), *tables(header, rows, range(len(shown)), width), Text()]
    if sweep.roofline:
        header = list(ROOFLINE_HEADER)
        out += [Wrapped(ROOFLINE_HEADING, "bold cyan"),
                *tables(header, roofline_rows(sweep), range(len(header)), width), Text()]
    return out


def _chart(sweep: Sweep, width: int) -> list[RenderableType]:
    """Device throughput per batch as bars, the fit's value beside it."""
    rows = [row for row in sweep.table if row.get("device_throughput")]
    if not rows:
        return []
    top = max(row.get("device_throughput") or 0 for row in rows)
    span = max(width - 34, 10)
    out: list[RenderableType] = [Wrapped("device throughput vs batch size (bar: measured; fit: the step-time model)",
                                         "bold cyan")]
    for row in rows:
        value = row.get("device_throughput") or 0
        fit = f"  fit {significant(sweep.step_fit.throughput(row.batch_size))}" if sweep.step_fit else ""
        out.append(Text.assemble(f"b{row.batch_size:<5}", (BAR * max(1, round(value / top * span)), "green"),
                                 (f" {significant(value)}{fit}", "dim")))
    return out + [Text()]


def _models(sweep: Sweep) -> list[RenderableType]:
    grid = Table.grid()
    grid.add_column(width=16, no_wrap=True)
    grid.add_column()
    for label, text in models_text(sweep):
        grid.add_row(piece(label, "bold"), Wrapped(text))
    return [piece("models", "bold cyan"), grid, Text()]


def finding(index: int, found: Finding) -> list[RenderableType]:
    """A finding: its title, impact, evidence (the first ``EVIDENCE_SHOWN``), where it fires, the action."""
    return [Hanging(f"{index}. [{found.category}] ", found.title, "bold"),
            *(Hanging(f"   {label}: ", text, "dim" if label in ("evidence", "fires at") else "")
              for label, text in finding_facts(found, EVIDENCE_SHOWN))]


def _recommendation(sweep: Sweep) -> list[RenderableType]:
    chosen = sweep.recommendation
    if chosen is None:
        return [Wrapped("recommendation: none (no throughput to compare)", "yellow")]
    runner = f"; next {chosen.runner_up}" if chosen.runner_up else ""
    return [Wrapped(f"recommendation: {chosen.label} (batch {chosen.batch_size}): best {chosen.by}, "
                    f"{significant(chosen.value)} samples/s{runner}", "bold green"),
            Wrapped(f"caveat: {chosen.caveat}", "dim")]


def _footer(sweep: Sweep) -> list[RenderableType]:
    out: list[RenderableType] = [Wrapped(f"checked, did not fire: {passed.rule}: {passed.reason}", "dim")
                                 for passed in sweep.passed]
    out += [Wrapped(f"not run: {skipped.rule}: {skipped.reason}", "yellow") for skipped in sweep.not_run]
    out += [Wrapped(f"note: {note}", "dim") for note in sweep.notes]
    if any(point.inferred for point in sweep.points):
        out.append(Wrapped("* batch size inferred, not stated in the input", "dim"))
    return out


def drawn(sweep: Sweep, width: int = 100) -> list[RenderableType]:
    out: list[RenderableType] = [Wrapped(text, "" if at else "bold") for at, text in enumerate(heading_text(sweep))]
    out += [Text(), *_tables(sweep, width), *_chart(sweep, width), *_models(sweep), *_recommendation(sweep), Text()]
    out += [piece("findings (ranked by estimated impact)", "bold cyan"), Wrapped(OVERLAP, "dim")]
    for index, found in enumerate(sweep.findings, 1):
        out += finding(index, found)
    return out + [Text(), *_footer(sweep)]
