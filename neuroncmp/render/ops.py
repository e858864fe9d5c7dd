"""``neuroncmp ops`` in every format: one walk over the comparison (``rows``), written as Markdown,
HTML, JSON and CSV by the formats' ``ops`` methods (the terminal draws it: ``terminal/ops.py``). What
each table shows and the schema's versions: ``docs/commands/ops.md``.
"""

from __future__ import annotations

from typing import Any

from ..choices import SUSPECT
from ..commands.ops import OpsReport
from ..comparison.ops import OpChange, OpsComparison, OpsVariant
from ..escape import html, markdown
from ..ingest.ops.table import LEVEL_NAMES
from ..units import SECOND, format_value
from . import tidy
from .changes import relative_text
from .json_out import dumps
from .markup import html_table, markdown_table

SCHEMA = "neuroncmp.ops/3"
UNEXPLAINED = "(unexplained rest)"
OTHERS = "(other ops)"


def seconds(value: float | None) -> str:
    return "-" if value is None else format_value(value, SECOND)


def signed(value: float | None) -> str:
    if value is None:
        return "-"
    return ("+" if value > 0 else "-" if value < 0 else "±") + format_value(abs(value), SECOND)


def _share(share: float | None) -> str:
    """A signed share: ``+13%``, ``-0.21%`` under 1 %, ``0%``."""
    if share is None:
        return "-"
    return "0%" if share == 0 else f"{share * 100:+.0f}%" if abs(share) >= 0.01 else f"{share * 100:+.2g}%"


def _of_step(share: float | None) -> str:
    return "-" if share is None else f"{share * 100:.0f}%" if share >= 0.01 else f"{share * 100:.2g}%"


def records(report: OpsReport) -> list[dict[str, Any]]:
    """Tidy rows (base units): one per variant x operator, every operator in rank order, then the
    variant's unexplained rest and its waits (``--top`` is for the tables)."""
    comparison, out = report.comparison, []
    for variant in comparison.variants:
        out += [_record(comparison, variant, change, "op") for change in variant.changes]
        out.append(_base(comparison, variant, UNEXPLAINED, "unexplained", None, None, variant.unexplained, None))
        out += [_record(comparison, variant, change, "wait") for change in variant.waits]
    return out


def _base(comparison: OpsComparison, variant: OpsVariant, key: str, kind: str, b: float | None, v: float | None,
          change: float | None, verdict: str | None) -> dict[str, Any]:
    return {"variant": variant.side.label, "baseline": comparison.baseline.label, "level": comparison.level,
            "basis": comparison.basis, "kind": kind, "op": key, "baseline_s": b, "variant_s": v,
            "change_s": change, "share_of_change": variant.share_of_change(change), "verdict": verdict}


def _record(comparison: OpsComparison, variant: OpsVariant, change: OpChange, kind: str) -> dict[str, Any]:
    row = _base(comparison, variant, change.key, kind, change.baseline, change.variant, change.change, change.verdict)
    op = change.variant_op or change.baseline_op
    row.update(relative_change=change.relative, counted=change.counted,
               instructions=op.instructions if op else None, flops=op.flops if op else None,
               hbm_bytes=op.bytes if op else None, share_of_step=variant.share_of_step(change),
               parent=op.parent if op else None)
    if change.verdict == SUSPECT:  # left out: no share of the step's change
        row["share_of_change"] = None
    return row


def _split(variant: OpsVariant, top: int | None) -> tuple[list[OpChange], list[OpChange]]:
    """The operators a table shows and those it folds into one line (every one past ``top``)."""
    changes = list(variant.changes)
    if top is None or len(changes) <= top:
        return changes, []
    return changes[:top], changes[top:]


def heading(comparison: OpsComparison, variant: OpsVariant) -> str:
    per = "per sample" if comparison.basis == "sample" else "per step"
    return (f"{comparison.baseline.label} vs {variant.side.label}: {LEVEL_NAMES[comparison.level]}s, {per}; "
            f"step {seconds(variant.step_baseline)} -> {seconds(variant.step_variant)} ({signed(variant.step_change)})")


COLUMNS = ("op", "baseline", "variant", "change", "%", "of step", "of change", "verdict")
WAIT_COLUMNS = ("wait", "baseline", "variant", "change", "%", "", "", "verdict")


def _cells(variant: OpsVariant, change: OpChange) -> list[str]:
    op = change.baseline_op or change.variant_op
    wait = op is not None and op.wait
    name = f"{change.key} (holds others)" if change.holds_others else change.key
    relative = "" if change.relative is None else relative_text(change.relative)
    of_change = _share(variant.share_of_change(change.change)) if change.counted else ""
    of_step = "" if wait else _of_step(variant.share_of_step(change))
    return [name, seconds(change.baseline), seconds(change.variant), signed(change.change), relative, of_step,
            of_change, change.verdict]


def table_rows(variant: OpsVariant, top: int | None) -> tuple[list[list[str]], list[list[str]]]:
    shown, folded = _split(variant, top)
    body = [_cells(variant, c) for c in shown]
    if folded:  # their contributions (parents and suspect operators have none)
        total = sum(c.change for c in folded if c.counted)
        body.append([f"{OTHERS}: {len(folded)}", "", "", signed(total), "", "",
                     _share(variant.share_of_change(total)), ""])
    if variant.unexplained is not None:
        body.append([UNEXPLAINED, "", "", signed(variant.unexplained), "", "",
                     _share(variant.share_of_change(variant.unexplained)), ""])
    waits = [_cells(variant, c)[:5] + ["", "", c.verdict] for c in variant.waits]
    return body, waits


def under(comparison: OpsComparison, variant: OpsVariant, top: int | None) -> list[str]:
    """What a variant's table does not show itself: the operators folded into one line (how many, the
    largest change among them), the suspect ones left out of the sums, or that there is no operator."""
    if not variant.changes:
        return [f"no {LEVEL_NAMES[comparison.level]}s on either side: no table"]
    out = []
    if folded := _split(variant, top)[1]:
        largest = max(folded, key=lambda c: abs(c.change))  # the first of equals: the ranking's
        moved = (f"the largest change among them: {largest.key} {signed(largest.change)} ({largest.verdict})"
                 if largest.change else "none of them changed")
        out.append(f"folded into {OTHERS}: the {len(folded)} operators past the first {top}; {moved}; "
                   "--all shows every one")
    if variant.left_out:
        out.append("left out of the contributions and the unexplained rest (suspect: longer than the step, "
                   f"never scored): {', '.join(variant.left_out)}")
    return out


def opening(comparison: OpsComparison) -> list[str]:
    """The graph changes and the step times not used, said before any delta."""
    return [*_graph_changes(comparison), *comparison.step_doubts]


def _graph_changes(comparison: OpsComparison) -> list[str]:
    return [f"{v.side.label}: {v.graph_change}" for v in comparison.variants if v.graph_change]


def footer(comparison: OpsComparison) -> list[str]:
    rule = (f"verdict: the op's own time against the noise band ({comparison.band}); ranked by the size of "
            "that change; of step = its time / the step time; of change = its contribution (its change in "
            "time) / the step-time change; the unexplained rest = step change - sum of contributions (engines "
            "overlap, the step holds idle time)")
    waits = [_WAITS_RULE] if any(v.waits for v in comparison.variants) else []
    return [rule, *waits, *comparison.notes]


_WAITS_RULE = ("a semaphore wait is not work: beyond the same band it is 'more waiting' or 'less waiting', "
               "never better or worse (an engine waits longer when another engine's work grows)")


def markdown_text(report: OpsReport) -> str:
    comparison, out = report.comparison, ["# Operators"]
    out += [f"> **{markdown(line)}**" for line in opening(comparison)]
    for variant in comparison.variants:
        body, waits = table_rows(variant, report.top)
        out += ["", f"## {markdown(heading(comparison, variant))}"]
        if variant.changes:
            out += ["", *markdown_table(COLUMNS, body, range(1, 7))]
        out += [f"\n{markdown(line)}" for line in under(comparison, variant, report.top)]
        if waits:
            out += ["", "Semaphore waits (not work, not counted):", "",
                    *markdown_table(WAIT_COLUMNS, waits, range(1, 7))]
    out += ["", *(f"- {markdown(line)}" for line in footer(comparison))]
    return "\n".join(out) + "\n"


def html_text(report: OpsReport) -> str:
    comparison = report.comparison
    parts = ['<!doctype html><html><head><meta charset="utf-8"><title>neuroncmp ops</title></head><body>',
             "<h1>Operators</h1>"]
    parts += [f'<p class="graph-change"><strong>{html(line)}</strong></p>' for line in opening(comparison)]
    for variant in comparison.variants:
        body, waits = table_rows(variant, report.top)
        parts.append(f"<h2>{html(heading(comparison, variant))}</h2>")
        parts += [html_table(COLUMNS, body)] if variant.changes else []
        parts += [f"<p>{html(line)}</p>" for line in under(comparison, variant, report.top)]
        if waits:
            parts += ["<p>Semaphore waits (not work, not counted):</p>",
                      html_table(WAIT_COLUMNS, waits)]
    parts += ["<ul>", *(f"<li>{html(line)}</li>" for line in footer(comparison)), "</ul></body></html>"]
    return "\n".join(parts) + "\n"


def json_text(report: OpsReport) -> str:
    comparison = report.comparison
    return dumps({"schema": SCHEMA, "level": comparison.level, "basis": comparison.basis,
                  "baseline": comparison.baseline.label,
                  "noise_band": str(comparison.band), "graph_changes": _graph_changes(comparison),
                  "step_doubts": list(comparison.step_doubts),
                  "variants": [{"label": v.side.label, "batch_size": v.side.batch_size,
                                "step_baseline_s": v.step_baseline, "step_variant_s": v.step_variant,
                                "step_change_s": v.step_change, "explained_s": v.explained,
                                "unexplained_s": v.unexplained, "left_out": list(v.left_out),
                                "graph_change": v.graph_change}
                               for v in comparison.variants],
                  "rows": records(report), "notes": list(comparison.notes)}, indent=2) + "\n"


CSV_FIELDS = ("schema", "variant", "baseline", "level", "basis", "kind", "op", "baseline_s", "variant_s", "change_s",
              "relative_change", "share_of_change", "verdict", "counted", "instructions", "flops", "hbm_bytes",
              "share_of_step", "parent")


def csv_text(report: OpsReport) -> str:
    return tidy.csv_text(CSV_FIELDS, ({"schema": SCHEMA, **row} for row in records(report)))
