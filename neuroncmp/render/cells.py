"""What every comparison renderer shows, as plain strings: one place decides units and signs.

A row's display unit is chosen from the baseline's value (pyperf's rule), so a row reads in one
unit; the change is in percentage points for fractions and relative % otherwise; a verdict mark
makes it readable without colour.
"""

from __future__ import annotations

from typing import Any

from ..comparison import (ALPHA, ADDED, BETTER, NEUTRAL, REMOVED, UNCHANGED, WORSE, Comparison,
                          Delta, Row)
from ..units import pick_scale, significant

MARK = {BETTER: "✔", WORSE: "✘", UNCHANGED: "=", NEUTRAL: "~", ADDED: "new", REMOVED: "gone"}
LEGEND = ("✔ better  ✘ worse  = within noise band  ~ changed (no better direction)  "
          "? not significant (repeated captures)  new/gone: on one side only")
SPARKS = "▁▂▃▄▅▆▇█"


def row_basis(row: Row, basis: str) -> str:
    """The basis a row is shown in: per sample only for extensive metrics with batch sizes."""
    return "sample" if basis == "sample" and any(c.sample is not None for c in row.cells) else "step"


def step_line(comparison: Comparison, row: Row) -> bool:
    """Whether a view adds a per-step line under this per-sample row (auto basis)."""
    return comparison.also_step and row_basis(row, comparison.basis) == "sample"


def scale_for(row: Row, basis: str) -> tuple[float, str] | None:
    reference = next((c.shown(basis).baseline for c in row.cells), None)
    if not isinstance(reference, (int, float)):
        reference = next((c.shown(basis).variant for c in row.cells
                          if isinstance(c.shown(basis).variant, (int, float))), None)
    if not isinstance(reference, (int, float)) or reference != reference:
        return None
    return pick_scale(reference, row.unit)


def value_text(value: Any, row: Row, scale: tuple[float, str] | None, *, unit: bool = True) -> str:
    """The value in the row's display unit; ``unit=False`` leaves the unit to the row's title."""
    if value is None:
        return "-"
    if isinstance(value, str):
        return value
    if isinstance(value, float) and value != value:
        return "NaN"
    if row.unit in ("count", "cycle", "dimensionless") and abs(value) >= 1e5:
        return compact(value)
    factor, label = scale or (1.0, "")
    text = significant(value / factor)
    return f"{text} {label}" if unit and label else text


def compact(value: float) -> str:
    """``2489194`` -> ``2.489M``: counts in narrow columns."""
    for factor, suffix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= factor:
            return significant(value / factor) + suffix
    return significant(value)


def unit_label(scale: tuple[float, str] | None) -> str:
    """The display unit a row's title carries, from the scale ``scale_for`` chose."""
    return scale[1] if scale else ""


def change_text(delta: Delta) -> str:
    """``+9.52pp``, ``-9.5%``, ``x2.13`` for big ratios; ``new``/``gone``; ``changed`` for text."""
    if delta.verdict in (ADDED, REMOVED) or delta.delta == 0:
        return ""
    if delta.points is not None:
        return f"{delta.points:+.{1 if abs(delta.points) >= 10 else 2}f}pp"
    if delta.relative is not None:
        if abs(delta.relative) >= 10:
            return f"x{delta.ratio:.3g}"
        return _percent(delta.relative)
    if delta.delta is not None:  # baseline 0: no relative change exists
        return "from 0"
    return "" if delta.verdict == UNCHANGED else "changed"


def _percent(relative: float) -> str:
    number = relative * 100
    size = abs(round(number, 1))  # 99.96 rounds to 100.0: show it as +100%
    decimals = 0 if size >= 100 else 1 if size >= 1 else 2
    return f"{number:+.{decimals}f}%"


def change_with_mark(delta: Delta, sep: str = " ") -> str:
    change = change_text(delta)
    mark = MARK[delta.verdict]
    if delta.verdict == UNCHANGED and delta.p_value is not None and delta.p_value >= ALPHA:
        mark = "?"  # captures differ, but not beyond what their spread explains
    return f"{change}{sep}{mark}".strip()


def trend(row: Row, basis: str) -> str:
    """A sparkline of baseline then each variant (empty for text or fewer than 3 points)."""
    points = [row.cells[0].shown(basis).baseline] + [c.shown(basis).variant for c in row.cells]
    numbers = [p for p in points if isinstance(p, (int, float)) and p == p]
    if len(numbers) < 3 or len(numbers) != len(points):
        return ""
    low, high = min(numbers), max(numbers)
    if high == low:
        return SPARKS[0] * len(numbers)
    return "".join(SPARKS[round((n - low) / (high - low) * (len(SPARKS) - 1))] for n in numbers)


def batch_text(comparison: Comparison, index: int) -> str:
    side = comparison.sides[index]
    if side.batch_size is None:
        return "?"
    star = "*" if side.batch_size_source in ("inferred", "trainer") else ""
    return f"{side.batch_size}{star}"


def side_title(comparison: Comparison, index: int) -> str:
    return f"{comparison.sides[index].label} (bs {batch_text(comparison, index)})"


def batch_line(comparison: Comparison) -> str:
    return "batch sizes: " + ", ".join(f"{side.label} {batch_text(comparison, i)}"
                                       for i, side in enumerate(comparison.sides))


def metric_title(row: Row, basis: str, unit: str = "") -> str:
    suffix = "/sample" if row_basis(row, basis) == "sample" else ""
    return row.name + suffix + (f" [{unit}]" if unit else "") + ("" if row.spec.catalogued else " (uncatalogued)")


def footer_lines(comparison: Comparison) -> list[str]:
    lines = [f"{len(comparison.rows)} metric rows shown; basis: {comparison.basis_reason}"]
    if comparison.hidden_unchanged:
        lines.append(f"{comparison.hidden_unchanged} unchanged rows hidden (--only-changed)")
    if comparison.filtered_out:
        lines.append(f"{comparison.filtered_out} rows left out by --group/--metric")
    bands = ", ".join(f"{k} {v}" for k, v in comparison.thresholds.describe().items())
    lines.append(f"noise bands: {bands}")
    lines.append(comparison.captures)
    if any(s.batch_size_source in ("inferred", "trainer") for s in comparison.sides):
        lines.append("* batch size inferred, not stated in the input")
    return lines


def gate_lines(comparison: Comparison) -> list[str]:
    lines = []
    for gate in comparison.gates:
        if gate.tripped:
            lines.append(f"FAILED --fail-on {gate.rule.text}: " + "; ".join(map(str, gate.hits)))
        else:
            lines.append(f"passed --fail-on {gate.rule.text}")
    return lines
