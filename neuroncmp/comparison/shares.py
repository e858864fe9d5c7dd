"""A share that fell only because its total grew is not better (nor one that rose only as it shrank, worse):
shown, not scored, with a warning (docs/judging.md, "Verdicts": the bundled baseline against b32). A share
is a per-step quantity: its part is judged per step too."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..catalog import LOWER, MetricSpec
from ..choices import BETTER, WORSE
from ..ingest.anomalies import share_time
from .cell_rules import withheld
from .result import Delta, Row


def share_of(spec: MetricSpec) -> tuple[str, str] | None:
    """The part and the total a share is of: ``cc_op_active_time_percent`` -> (``cc_op_active_time``,
    ``total_time``), ``collective_share`` (``cc_op_time / total_time``) -> (``cc_op_time``,
    ``total_time``); None for any other metric."""
    if spec.kind != "fraction":
        return None
    if spec.derived and len(spec.inputs) == 2 and spec.formula == f"{spec.inputs[0]} / {spec.inputs[1]}":
        return spec.inputs[0], spec.inputs[1]
    part = share_time(spec.name)
    return None if part is None else (part, "total_time")


def denominator_only(rows: Sequence[Row]) -> tuple[tuple[Row, ...], list[str]]:
    """``rows`` with each lower-is-better share judged better where its part did not fall beyond its
    band (per step), or worse where it did not rise, set to context, and one warning naming them,
    their totals and variants."""
    by_name: Mapping[str, Row] = {row.name: row for row in rows}
    out: list[Row] = []
    found: dict[tuple[str, tuple[int, ...]], list[str]] = {}  # (total, variants) -> shares
    for row in rows:
        names = share_of(row.spec) if row.spec.direction == LOWER else None
        part, whole = (by_name.get(names[0]), by_name.get(names[1])) if names else (None, None)
        fell_alone = [] if part is None else [i for i, (cell, its) in enumerate(zip(row.cells, part.cells, strict=True))
                                              if (cell.step.verdict == BETTER and not _moved(its.step, -1))
                                              or (cell.step.verdict == WORSE and not _moved(its.step, 1))]
        if whole is None or not fell_alone:
            out.append(row)
            continue
        out.append(withheld(row, frozenset(fell_alone)))  # per step: a share has no per-sample value
        found.setdefault((whole.name, tuple(fell_alone)), []).append(row.name)
    if not found:
        return tuple(out), []
    said = [_said(shares, by_name[whole], variants) for (whole, variants), shares in found.items()]
    return tuple(out), ["shares that moved only because their total did, their part not moving with them "
                        "(per step), are shown, not scored: " + "; ".join(said)]


def _moved(part: Delta, sign: int) -> bool:
    """Whether the part moved beyond its noise band, down (``sign`` -1) or up (1); a value on one side only: no."""
    return part.delta is not None and part.delta * sign > 0 and not part.in_band


def _said(shares: list[str], whole: Row, variants: tuple[int, ...]) -> str:
    """``cc_op_active_time_percent, collective_share on b32 (total_time +113.3%)``; on several
    variants (a sweep) their names only (``--all`` shows the values)."""
    on = ", ".join(whole.variants[i] for i in variants)
    grew = f" ({whole.name} {_relative(whole, variants[0])})" if len(variants) == 1 else f" ({whole.name} changed)"
    return f"{', '.join(shares)} on {on}{grew}"


def _relative(row: Row, index: int) -> str:
    relative = row.cells[index].step.relative
    return "changed" if relative is None else f"{relative:+.1%}"
