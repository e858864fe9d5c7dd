"""The headline every diff opens with: the catalog's key numbers per variant, and a verdict tally.

Which metrics, in which basis and under which name is declared in ``catalog.HEADLINE``; a line
whose metric no side has is left out (a Trainer-less run has no end-to-end throughput), and a
per-sample line without batch sizes is left out with a note.
"""

from __future__ import annotations

from typing import NamedTuple

from ..catalog import HEADLINE
from ..choices import BETTER, SAMPLE, SUSPECT, WORSE, Verdict
from ..comparison.result import Comparison
from ..records import record
from .rows import Line, line


@record
class HeadlineRow(NamedTuple):
    label: str   # "throughput (device)"
    line: Line   # the metric's values and changes in the headline's basis


def headline(comparison: Comparison) -> list[HeadlineRow]:
    names = {row.name: row for row in comparison.rows}
    out = []
    for entry in HEADLINE:
        row = names.get(entry.metric)
        if row is None or (entry.basis == SAMPLE and row.basis(SAMPLE) != SAMPLE):
            continue
        out.append(HeadlineRow(entry.label, line(row, entry.basis)))
    return out


def notes(comparison: Comparison) -> list[str]:
    """Why headline lines are missing, when they are."""
    if any(side.batch_size is None for side in comparison.sides):
        return ["per-sample lines need every batch size (give them in the file name or a manifest)"]
    return []


def tally_text(counts: dict[Verdict, int]) -> str:
    """``12✔ 3✘`` (and ``2!`` for suspect rows) for one variant."""
    text = f"{counts.get(BETTER, 0)}✔ {counts.get(WORSE, 0)}✘"
    return text + (f" {counts[SUSPECT]}!" if counts.get(SUSPECT) else "")
