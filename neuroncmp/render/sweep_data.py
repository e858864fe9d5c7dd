"""A sweep as plain data (schema ``neuroncmp.sweep/1``): every number the other formats show, in base
units, with the formulas beside them. The JSON format prints it; frames are built from it."""

from __future__ import annotations

from typing import Any

from ..analysis import fits, gaps, table
from ..analysis.bounds import LEVEL_NAMES, Bound, Bounds, Missing, Shift
from ..analysis.capture_bound import OomBound
from ..analysis.sweep import Sweep
from ..analysis.table import TableRow

SCHEMA = "neuroncmp.sweep/1"


def sweep_dict(sweep: Sweep) -> dict[str, Any]:
    return {
        "schema": SCHEMA,
        "instance_type": sweep.instance_type,
        "axis": [{"batch_size": p.batch_size, "labels": list(p.labels), "inferred": p.inferred}
                 for p in sweep.points],
        "alternatives": [{"label": s.label, "batch_size": s.batch_size} for s in sweep.axis.alternatives],
        "unknown_batch_size": list(sweep.axis.unknown),
        "failed": [dict(plain(f), phrase=f.phrase()) for f in sweep.failed],
        "oom_bound": _bound(sweep.oom_bound),
        "columns": [column.documented() for column in table.COLUMNS],
        "table": [table_row(row) for row in sweep.table],
        "models": _models(sweep),
        "roof": plain(sweep.roof),
        "roofline": [dict(plain(r), of_attainable=r.of_attainable) for r in sweep.roofline],
        "bounds": {"points": [dict(bounds_dict(b), batch_size=p.batch_size, label=p.label)
                              for p, b in zip(sweep.points, sweep.bounds, strict=True)],
                   "shifts": [shift_dict(s) for s in sweep.shifts], "roof": roof_dict(sweep.bounds),
                   "formula": BOUNDS_FORMULA},
        "recommendation": plain(sweep.recommendation) if sweep.recommendation else None,
        "findings": [plain(f) for f in sweep.findings],
        "passed": [plain(p) for p in sweep.passed],
        "not_run": [plain(n) for n in sweep.not_run],
        "price_per_hour": sweep.price_per_hour,
        "notes": list(sweep.notes),
    }


# The order neuroncmp.sweep/1 has written a table row's keys in since it was published (the order the
# table once computed them in, not the declaration's), kept so the document stays the same byte for
# byte; a column declared later follows them, in ``COLUMNS`` order.
ROW_KEYS = ("step_time", "device_throughput", "e2e_throughput", "mfu", "mbu", "tensor", "vector", "scalar", "gpsimd",
            "dma", "device_memory", "collectives", "speedup", "efficiency", "marginal", "marginal_memory", "batch",
            "time_per_sample", "spill_per_sample", "hbm_per_sample", "throttled", "bound", "cost_device", "cost_e2e",
            "next", "bn_speedup")


def table_row(row: TableRow) -> dict[str, Any]:
    """One row of the table: every column's value (base units), then its label, inference, bottleneck and
    the next one."""
    values = row.values
    ordered = {name: values[name] for name in ROW_KEYS if name in values}
    return dict(ordered, **values, label=row.label, inferred=row.inferred, bottleneck=row.bottleneck,
                next_bound=row.next_bound)


def _models(sweep: Sweep) -> dict[str, Any]:
    fit = sweep.step_fit
    return {
        "step_time": dict(plain(fit), asymptote=fit.asymptote,
                          fitted=[{"batch_size": p.batch_size, "total_time": fit.step_time(p.batch_size),
                                   "device_throughput": fit.throughput(p.batch_size)} for p in sweep.points],
                          formula="total_time = fixed + per_sample x batch (least squares)") if fit else None,
        "knee": dict(plain(sweep.knee), method="Kneedle on device throughput vs batch size") if sweep.knee else None,
        "memory": _memory(sweep.memory),
        "intensity": dict(plain(sweep.intensity), formula="flops_per_sample x batch / (bytes_fixed + "
                          "bytes_per_sample x batch)") if sweep.intensity else None,
        "spill": plain(sweep.spill) if sweep.spill else None,
    }


def _memory(memory: fits.MemoryForecast | None) -> dict[str, Any] | None:
    if memory is None:
        return None
    return dict(plain(memory), formula="device_memory_total = fixed + per_sample x batch (least squares); "
                "largest = floor((hbm - fixed [- profiler_buffers]) / per_sample)")


def _bound(bound: OomBound | None) -> dict[str, Any] | None:
    """The smallest batch size out of memory at capture, the forecast's word on it (``verdict``:
    compiler, no-forecast, contradicted, may-fit, agrees) and the sentence the finding states."""
    if bound is None:
        return None
    return {"batch_size": bound.batch_size, "label": bound.label, "verdict": bound.verdict,
            "forecast_profiled": bound.profiled, "forecast_unprofiled": bound.unprofiled, "hbm": bound.hbm,
            "profiler_buffers": bound.profiler, "margin": bound.margin, "sentence": bound.sentence()}


BOUNDS_FORMULA = ("bottleneck = the largest of: hardware_flops / peak FLOP/s, (hbm_read_bytes + hbm_write_bytes) / "
                  "HBM bandwidth, DMA bytes / DMA bandwidth, each <engine>_engine_active_time and dma_active_time; "
                  "gap = total_time / bottleneck")
AWS_FORMULA = ("AWS's performance-bounds.md: levels memory_bound = dma_active_time -> memory_bound_ideal = DMA bytes / "
               "DMA bandwidth -> memory_bound_ideal_no_reloads = inputs_outputs_weights_size_bytes / DMA bandwidth; "
               "compute_bound = tensor_engine_active_time -> compute_bound_ideal_flops = hardware_flops / peak -> "
               "compute_bound_ideal_useful_flops = (hardware_flops - transpose_flops) / peak; each gap the difference "
               "of consecutive levels (from total_time for the first), share = gap / total_time")


def bounds_dict(found: Bounds) -> dict[str, Any]:
    """A step's bounds as plain data: the bottleneck, the gap, each bound's time and formula (its inputs
    are the step's own metrics, but for the peak and bandwidth: ``peaks``), what is missing, and AWS's
    reading (``aws``: its family levels, gaps, speedups, next bottleneck and achieved rates)."""
    top = found.bottleneck
    return {"total_time": found.step, "bottleneck": top.name if top else None, "gap": found.gap,
            "seconds": {b.name: b.seconds for b in found.bounds},
            "formulas": {b.name: b.formula for b in found.bounds},
            "missing": {m.name: m.reason for m in found.missing},
            "peaks": _peaks(found), "aws": aws_dict(found)}


def _peaks(found: Bounds) -> dict[str, Any] | None:
    peaks = found.peaks
    if peaks is None:
        return None
    lnc, flops, dma, hbm = peaks.sources
    return {"basis": peaks.basis, "cores": {"tensor": peaks.flops_cores, "dma": peaks.dma_cores},
            "lnc": {"value": peaks.lnc, "source": lnc}, "peak_flops": {"value": peaks.peak_flops, "source": flops},
            "dma_bandwidth": {"value": peaks.dma_bandwidth, "source": dma},
            "hbm_bandwidth": {"value": peaks.hbm_bandwidth, "source": hbm}}


def _level(found: Bound | Missing) -> dict[str, Any]:
    if isinstance(found, Missing):
        return {"missing": found.reason}
    return {"name": found.name, "seconds": found.seconds, "formula": found.formula, "inputs": dict(found.inputs)}


def aws_dict(found: Bounds) -> dict[str, Any]:
    """AWS's reading of one step (``analysis/gaps.py``), every value with its formula or why it is missing."""
    top = gaps.speedup(found)
    following = gaps.next_bottleneck(found)
    return {"levels": {name: _level(level) for name, level in zip(LEVEL_NAMES, found.levels, strict=False)},
            "perfect_pipeline": _level(gaps.perfect_pipeline(found)),
            "gaps": {g.name: {"missing": g.reason} if isinstance(g, Missing) else plain(g)
                     for g in gaps.gaps(found)},
            "speedups": {name: _speedup(s) for name, s in gaps.speedups(found).items()},
            "speedup": _speedup(top), "speedup_assumes": gaps.ASSUMES,
            "next": None if following is None else {"name": following.bound.name, "label": following.bound.label,
                                                     "seconds": following.bound.seconds, "share": following.share},
            "achieved": {r.name: {"missing": r.reason} if isinstance(r, Missing) else plain(r)
                         for r in gaps.achieved(found)},
            "formula": AWS_FORMULA}


def _speedup(found: gaps.Speedup | Missing) -> dict[str, Any]:
    if isinstance(found, Missing):
        return {"missing": found.reason}
    return {"level": found.level, "factor": found.factor, "then": found.then.name, "reachable": found.reachable,
            "formula": "total_time / max(level, the other engines' and DMA's largest active time)"}


def changes_dict(before: Bounds, after: Bounds) -> dict[str, Any]:
    """Each time of AWS's tables from one step to another: delta (s) and ratio (before / after)."""
    return {c.name: {"before": c.before, "after": c.after, "delta": c.delta, "ratio": c.ratio}
            for c in gaps.changes(before, after)}


def roof_dict(found: tuple[Bounds, ...]) -> dict[str, Any]:
    """The peak and bandwidths the ideal times used and where they came from, when every step used the
    same; else ``{"per_side": ...}`` (each step has its own: its ``peaks``)."""
    assumed: dict[str, set[tuple[float, str]]] = {}
    for bounds in found:
        for b in bounds.bounds:
            for name, value in b.inputs if b.source else ():
                if name in ("peak FLOP/s", "HBM bandwidth B/s", "DMA bandwidth B/s"):
                    assumed.setdefault(name, set()).add((value, b.source))
    return {name: {"value": next(iter(seen))[0], "source": next(iter(seen))[1]} if len(seen) == 1 else
            {"per_side": "each step's own (its peaks)"} for name, seen in assumed.items()}


def shift_dict(found: Shift) -> dict[str, Any]:
    return {**plain(found), "sentence": found.sentence}


def plain(value: Any) -> Any:
    """Records (and dataclasses, mappings, sequences) as plain dicts and lists, recursively (for JSON)."""
    if hasattr(value, "_asdict"):
        return {key: plain(item) for key, item in value._asdict().items()}
    if hasattr(value, "__dataclass_fields__"):
        return {name: plain(getattr(value, name)) for name in value.__dataclass_fields__}
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    return value
