"""Per-operation collective times of one device profile: Neuron Explorer's ``CcOp`` table.

Summary-level formats carry only totals (``cc_op_time``, ``cc_op_count``); the ``CcOp`` table has one
row per collective operation with its ``operation`` (``AllReduce``, ``AllGather``, ...) and
``duration_ns`` (Explorer schema 7.4.0). Summed per operation name, in seconds. A profile without
the table (a summary-json, an Explorer folder of a workload without collectives) has none.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import ParseError
from ..units import finite_number


def collective_ops(path: str | Path) -> dict[str, float] | None:
    """Each operation's summed duration (s) in the Explorer folder ``path``; None when ``path`` is not
    a folder or has no ``CcOp`` table; a row without a name or a duration is a ``ParseError``."""
    from .formats.explorer_parquet import read_rows

    folder = Path(path)
    rows = read_rows(folder, "CcOp") if folder.is_dir() else None
    if rows is None:
        return None
    totals: dict[str, float] = {}
    for number, row in enumerate(rows):
        name, duration = row.get("operation"), row.get("duration_ns")
        if not isinstance(name, str) or not name or not (finite_number(duration) and duration >= 0):
            raise ParseError(str(folder), f"table CcOp, row {number}",
                             "an operation name and a duration_ns of 0 or more",
                             f"operation={name!r:.40}, duration_ns={duration!r:.40}")
        totals[name] = totals.get(name, 0.0) + duration / 1e9
    return totals
