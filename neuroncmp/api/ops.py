"""``nc.ops(...)``: the operator-level comparison as a value that renders and becomes a frame."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..arguments import texts
from ..choices import Basis, OpsLevel, Order
from ..commands.ops import TOP, OpsOptions, OpsReport, profiles_report


class Ops:
    """What ``nc.ops`` returns: ``.report`` (the document: ``.report.comparison`` is the immutable
    result), ``.to_frame()``, ``.records()``, and text (``str``, Markdown in notebooks)."""

    def __init__(self, report: OpsReport) -> None:
        self.report = report

    @property
    def comparison(self) -> Any:
        return self.report.comparison

    def records(self) -> list[dict[str, Any]]:
        """Tidy rows: one per variant x operator (seconds), then each variant's unexplained rest and waits."""
        from ..render.ops import records

        return records(self.report)

    def to_frame(self) -> Any:
        import pandas as pd

        return pd.DataFrame(self.records())

    def __str__(self) -> str:
        from ..render.registry import by_name

        return by_name("term").render("ops", self.report)

    def _repr_markdown_(self) -> str:
        from ..render.ops import markdown_text

        return markdown_text(self.report)

    def __repr__(self) -> str:
        return repr(self.report.comparison)


def ops(*inputs: Any, level: OpsLevel = "opcode", baseline: str | None = None, basis: Basis = "auto",
        thresholds: Iterable[str] = (), order: Order = "batch", top: int | None = TOP) -> Ops:
    """Compare the operators of the baseline (the first input, or ``baseline``: a label) with the
    others at ``level`` (``opcode``, ``hlo``, ``layer``, ``kernel``). ``inputs`` are what
    ``nc.compare`` takes: profiles, paths and (nested) lists of them; each profile's op table is read
    from its file. Every option is checked as ``neuroncmp ops`` checks it, before anything is read."""
    from . import profiles_of

    options = OpsOptions(level, top, baseline, basis, texts("thresholds", thresholds), order)
    return Ops(profiles_report(profiles_of(*inputs), options))
