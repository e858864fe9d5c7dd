"""The words and cells of ``neuroncmp sweep``, the same in every format: the tables' columns and
cells, the roofline's, the models' sentences, each finding's evidence, the heading. The terminal
draws them (``terminal/sweep.py``), Markdown and HTML write them (``formats/``).
"""

from __future__ import annotations

from collections.abc import Callable

from ..analysis import fits, table
from ..analysis.capture_bound import CONTRADICTED
from ..analysis.findings.base import Evidence, Finding
from ..analysis.roofline import RooflinePoint
from ..analysis.series import at_every
from ..analysis.sweep import Sweep
from ..analysis.table import EVERY, Column, TableRow
from ..units import FRACTION, SAMPLE_RATE, format_value, percent, significant
from .captions import impact_text, where_text


def block(name: str) -> tuple[Column, ...]:
    """The columns printed in block ``name`` (``analysis.table``: THROUGHPUT, ENGINES, MOVEMENT): the
    batch size, then the block's columns in declaration order, those that end a block last."""
    own = [column for column in table.COLUMNS if column.block == name]
    return tuple(column for column in table.COLUMNS if column.block == EVERY) + tuple(
        sorted(own, key=lambda column: column.ends_block))


def title(column: Column) -> str:
    """A column title with the unit its bare numbers are in (``MFU %``, ``device/s``)."""
    return column.title + (" %" if column.unit == FRACTION else "")


CELLS: dict[str, Callable[[TableRow, float, str], str]] = {  # a column's ``cell`` -> how its value is written
    "": lambda row, value, unit: format_value(value, unit, with_unit=unit not in (FRACTION, SAMPLE_RATE)),
    "batch": lambda row, value, unit: f"{row.batch_size}{'*' if row.inferred else ''}",
    "bottleneck": lambda row, value, unit: f"{row.bottleneck} {value:.2f}x",  # what bounds the step: "DMA 1.17x"
    "next": lambda row, value, unit: f"{row.next_bound} {value:.0%}",  # the next bottleneck: "vector 75%"
    "times": lambda row, value, unit: f"{value:.2f}x",
    "change": lambda row, value, unit: f"{value * 100:+.1f}",
    "dollars": lambda row, value, unit: f"${value:.2f}",
    "growth": lambda row, value, unit: "+" + format_value(value, unit),
}


def cell(row: TableRow, column: Column) -> str:
    value = row.get(column.name)
    return "-" if value is None else CELLS[column.cell](row, value, column.unit)


def shown_columns(sweep: Sweep, name: str) -> list[Column]:
    """The columns of block ``name`` with a value at some point (and the batch size always), for every format."""
    return [column for column in block(name)
            if column.block == EVERY or any(row.get(column.name) is not None for row in sweep.table)]


ROOFLINE_HEADING = "roofline (achieved = (hardware - transpose FLOPs) / total_time)"
ROOFLINE: tuple[tuple[str, Callable[[RooflinePoint], str]], ...] = (  # each column's header and cell, for every format
    ("batch", lambda r: str(r.batch_size)),
    ("FLOP/B", lambda r: significant(r.intensity)),
    ("achieved", lambda r: format_value(r.achieved, "FLOP/s")),
    ("attainable", lambda r: format_value(r.attainable, "FLOP/s")),
    ("of roof", lambda r: f"{r.of_attainable:.0%}"),
    ("bound", lambda r: r.bound),
    ("MFU bound", lambda r: format_value(r.mfu_bound, FRACTION) if r.mfu_bound is not None else "-"),
)
ROOFLINE_HEADER = tuple(header for header, _ in ROOFLINE)


def roofline_rows(sweep: Sweep) -> list[list[str]]:
    """Each point under the roof, as every format shows it (columns: ``ROOFLINE``)."""
    return [[show(point) for _, show in ROOFLINE] for point in sweep.roofline]


def models_text(sweep: Sweep) -> list[tuple[str, str]]:
    """(label, text) per model line: fit, asymptote, knee, roofline, memory, spill."""
    out = []
    fit = sweep.step_fit
    if fit is not None:
        best = max(row.get("device_throughput") or 0 for row in sweep.table)
        sign = "-" if fit.per_sample < 0 else "+"
        out.append(("step time", f"{_seconds(fit.fixed)} {sign} {_seconds(abs(fit.per_sample))} x batch "
                    f"(least squares, {len(fit.batches)} points, R² {_r2(fit.r2)}; residuals "
                    f"{_seconds(min(fit.residuals))} to {_seconds(max(fit.residuals))})"))
        if fit.asymptote:
            out.append(("asymptote", f"device throughput tends to {significant(fit.asymptote)} samples/s "
                        f"(1 / per-sample cost); the best measured, {significant(best)}, "
                        f"is {best / fit.asymptote:.0%} of it"))
        else:
            out.append(("asymptote", f"none: {fit.no_asymptote()}"))
    if sweep.knee is not None:
        out.append(("knee", f"b{sweep.knee.batch_size} (Kneedle: the batch furthest above the diagonal of normalised "
                    "device throughput vs batch size)"))
    out += _roof(sweep) + _memory(sweep) + _spill(sweep)
    return out


def _seconds(value: float) -> str:
    """A fitted time; below a picosecond it is rounding noise of a flat fit, shown as 0."""
    return format_value(value if abs(value) >= 1e-12 else 0.0, "s")


def _r2(r2: float | None) -> str:
    return "n/a (nothing varies)" if r2 is None else f"{r2:.5f}"


def _roof(sweep: Sweep) -> list[tuple[str, str]]:
    roof = sweep.roof
    text = (f"ridge {significant(roof.ridge)} FLOP/B; peak {format_value(roof.peak_flops, 'FLOP/s')}, "
            f"HBM {format_value(roof.bandwidth, 'B/s')} ({'; '.join(roof.sources[:2])})")
    out = [("roofline", text)]
    if sweep.roofline:
        bounds = sorted({r.bound for r in sweep.roofline})
        placed = (at_every([p.label for p in sweep.points], len(sweep.points))
                  if len(sweep.roofline) == len(sweep.points) else
                  "at " + ", ".join(f"b{r.batch_size}" for r in sweep.roofline) + " (the others lack the intensity)")
        where = f"{bounds[0]}-bound {placed}" if len(bounds) == 1 else "the bound changes across the sweep"
        intensity = _span([r.intensity for r in sweep.roofline], significant, " FLOP/B")
        reached = _span([r.of_attainable for r in sweep.roofline], lambda v: f"{v:.0%}", "")
        limit = sweep.intensity
        out.append(("bound", f"{where}: intensity {intensity}, achieving {reached} of the attainable FLOP/s"
                    + (f"; the fitted limit is {significant(limit.limit)} FLOP/B" if limit else "")))
    return out


def _span(values: list[float], show: Callable[[float], str], unit: str) -> str:
    """``24.97 to 128.2 FLOP/B`` (lowest to highest), or one value."""
    low, high = show(min(values)), show(max(values))
    return f"{low}{unit}" if low == high else f"{low} to {high}{unit}"


def _memory(sweep: Sweep) -> list[tuple[str, str]]:
    memory = sweep.memory
    if memory is None:
        return []
    bound = sweep.oom_bound
    forecast = (f"{_largest(memory)} ({format_value(memory.hbm, 'B')} "
                f"per core: {memory.hbm_source.removeprefix('HBM per core: ')}; assumes linear growth)")
    if bound is not None and bound.verdict == CONTRADICTED:  # the forecast's largest is past what failed
        largest = (f"below {bound.label}, which ran {bound.failure.phrase()}: the forecast, {forecast}, does "
                   "not hold there")
    else:
        largest = forecast + (f"; {bound.short()}" if bound else "")
    return [("device memory", f"{format_value(memory.fixed, 'B')} + {format_value(memory.per_sample, 'B')} x batch "
             f"(least squares, {len(memory.batches)} points, R² {_r2(memory.r2)})"),
            ("largest batch", largest)]


def _largest(memory: fits.MemoryForecast) -> str:
    """``b118 as profiled, b143 without the profiler's 2.443 GiB of buffers``; ``none`` where not
    even b1 fits; one figure when the table holds no profiler buffers."""
    def batch(value: int | None) -> str:
        return f"b{value}" if value is not None else "none (not even b1 fits)"

    if not memory.profiler_buffers:
        return f"{batch(memory.largest_profiled)} (the memory table holds no profiler buffers)"
    return (f"{batch(memory.largest_profiled)} as profiled, {batch(memory.largest_unprofiled)} without the "
            f"profiler's {format_value(memory.profiler_buffers, 'B')} of buffers")


def _spill(sweep: Sweep) -> list[tuple[str, str]]:
    spill = sweep.spill
    if spill is None:
        return []
    if len(sweep.points) == 1:  # one profile: above the threshold or not, no trend
        where = "above" if spill.above_share else "at or below"
        return [("spill", f"reload {where} {percent(fits.SPILL_SHARE)} of HBM reads at {sweep.points[0].label}")]
    above = ("at every batch size measured" if spill.everywhere else f"first at b{spill.above_share}") \
        if spill.above_share else "at no batch size"
    return [("spill", f"reload above {percent(fits.SPILL_SHARE)} of HBM reads {above}{spill_trend_text(spill)}")]


def spill_trend_text(spill: fits.SpillOnset) -> str:
    """``; per sample lowest at b48, growing after``: only what the values show (ties, zeros)."""
    kind, lowest = spill.trend()
    at = " and ".join(f"b{b}" for b in lowest) + (" (equal)" if len(lowest) > 1 else "")
    first = spill.per_sample[0][1] if spill.per_sample else 0.0
    return {"": "", "none": "; no spill reload at any batch size (0 B per sample)",
            "flat": f"; per sample the same at every batch size ({format_value(first, 'B')})",
            "rising": f"; per sample lowest at {at}, growing after",
            "higher": f"; per sample lowest at {at}, higher after (not steadily)",
            "falling": "; per sample falling at every step up", "lowest": f"; per sample lowest at {at}"}[kind]


OVERLAP = "each impact is an upper bound on its own; they overlap, so do not add them up"
EVIDENCE_SHOWN = 6  # per finding in the terminal; a finding on many anomalies has one per anomaly


def evidence_text(evidence: Evidence) -> str:
    """``spill_reload_share at b64 = 86.21 % (threshold 25 %)``; text evidence after a colon."""
    value = evidence.value
    shown = format_value(value, evidence.unit) if isinstance(value, (int, float)) and evidence.unit \
        and evidence.unit != "batch" else str(value)
    joiner = ": " if isinstance(value, str) else " = "
    where = "the sweep's fit" if evidence.where == "fit" else evidence.where
    return f"{evidence.metric} at {where}{joiner}{shown}" + (f" ({evidence.note})" if evidence.note else "")


def finding_facts(finding: Finding, shown: int | None = None) -> list[tuple[str, str]]:
    """(label, text) of a finding under its title, for every format: its impact (when estimated), its
    evidence (the first ``shown``, and how many more), where it fires, the action."""
    evidence = [evidence_text(e) for e in finding.evidence[:shown]]
    if shown is not None and len(finding.evidence) > shown:
        evidence.append(f"... ({len(finding.evidence) - shown} more: --format json lists every one)")
    impact = [("impact", impact_text(finding.impact))] if finding.impact is not None else []
    return [*impact, ("evidence", "; ".join(evidence)), ("fires at", where_text(finding)), ("action", finding.action)]


def heading_text(sweep: Sweep) -> list[str]:
    """The title, the axis, and what is not on it."""
    points = sweep.points
    span = f"{len(points)} batch sizes ({points[0].batch_size} to {points[-1].batch_size})" if len(points) > 1 \
        else f"one batch size ({points[0].batch_size})"
    out = [f"neuroncmp sweep: {span}"
           + (f" on {sweep.instance_type}" if sweep.instance_type else "") + failed_count(sweep),
           "axis: " + ", ".join(f"{p.label}" + (f" (b{p.batch_size}*)" if p.inferred else "") for p in points)
           + "".join(f"; {failed.axis_text()}" for failed in sweep.failed)]
    if sweep.axis.alternatives:
        alt = ", ".join(f"{s.label} (batch {s.batch_size})" for s in sweep.axis.alternatives)
        out.append(f"other configurations, not on the axis: {alt}")
    if sweep.axis.unknown:
        out.append(f"left out, batch size unknown: {', '.join(sweep.axis.unknown)}")
    return out


def failed_count(sweep: Sweep) -> str:
    """``; 1 batch size failed at capture: b64``: how many the run folder's capture could not
    profile, and which ('' when none)."""
    if not sweep.failed:
        return ""
    many = len(sweep.failed)
    names = ", ".join(failed.label for failed in sweep.failed)
    return f"; {many} batch size{'s' * (many > 1)} failed at capture: {names}"
