"""``nc.ops(...)``: the operator-level comparison as a value that renders and becomes a frame."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..arguments import texts
from ..choices import Basis, OpsLevel, Order
from ..commands.ops import TOP, OpsOptions, profiles_report
from .results import Shown


class Ops(Shown):
    """What ``nc.ops`` returns: ``.report`` (the document: ``.report.comparison`` is the immutable
    result), ``.to_frame()``, ``.records()`` (one row per variant x operator, seconds, then each
    variant's unexplained rest and waits), and text (``str``, Markdown in notebooks)."""

    document = "ops"

    @property
    def comparison(self) -> Any:
        return self.report.comparison

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
