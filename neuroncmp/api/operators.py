"""``nc.ops(...)``: the operator-level comparison as a value that renders and becomes a frame."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..choices import BASES, OPS_LEVELS, ORDERS, check
from ..comparison.operations import OpsOptions
from ..comparison.operations import ops as _ops
from ..comparison.ops import OpsComparison
from ..render.ops_out import OpsReport, markdown_text, records, terminal


class Ops:
    """What ``nc.ops`` returns: ``.comparison`` (the immutable result), ``.to_frame()``, and text."""

    def __init__(self, comparison: OpsComparison, top: int | None = 20) -> None:
        self.comparison, self.top = comparison, top

    def records(self) -> list[dict[str, Any]]:
        """Tidy rows: one per variant x operator (seconds), then each variant's unexplained rest."""
        return records(OpsReport(self.comparison, self.top))

    def to_frame(self) -> Any:
        import pandas as pd

        return pd.DataFrame(self.records())

    def __str__(self) -> str:
        return terminal(OpsReport(self.comparison, self.top))

    def _repr_markdown_(self) -> str:
        return markdown_text(OpsReport(self.comparison, self.top))

    def __repr__(self) -> str:
        return repr(self.comparison)


def ops(*paths: str | Path, level: str = "opcode", baseline: str | None = None, basis: str = "auto",
        thresholds: Iterable[str] = (), order: str = "batch", top: int | None = 20) -> Ops:
    """Compare the operators of the baseline (the first path, or ``baseline``: a label) with the
    others at ``level`` (``opcode``, ``hlo``, ``layer``, ``kernel``)."""
    options = OpsOptions(check("level", level, OPS_LEVELS), baseline, check("basis", basis, BASES),
                         tuple(thresholds), check("order", order, ORDERS))
    comparison, _ = _ops(paths, options)
    return Ops(comparison, top)
