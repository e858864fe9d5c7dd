"""A sweep as plain data (schema ``neuroncmp.sweep/1``): every number the other formats show, in base
units, with the formulas beside them. The JSON format prints it; frames are built from it."""

from __future__ import annotations

from typing import Any

from ..analysis import fits
from ..analysis.findings.base import Finding
from ..analysis.sweep import Sweep
from ..analysis.table import COLUMNS
from ..records import plain

SCHEMA = "neuroncmp.sweep/1"


def sweep_dict(sweep: Sweep) -> dict[str, Any]:
    return {
        "schema": SCHEMA,
        "instance_type": sweep.instance_type,
        "axis": [{"batch_size": p.batch_size, "labels": list(p.labels), "inferred": p.inferred}
                 for p in sweep.points],
        "alternatives": [{"label": s.label, "batch_size": s.batch_size} for s in sweep.axis.alternatives],
        "unknown_batch_size": list(sweep.axis.unknown),
        "columns": [plain(column) for column in COLUMNS],
        "table": [dict(row.values, label=row.label, inferred=row.inferred) for row in sweep.table],
        "models": _models(sweep),
        "roof": plain(sweep.roof),
        "roofline": [dict(plain(r), of_attainable=r.of_attainable) for r in sweep.roofline],
        "recommendation": plain(sweep.recommendation) if sweep.recommendation else None,
        "findings": [finding_dict(f) for f in sweep.findings],
        "passed": [plain(p) for p in sweep.passed],
        "not_run": [plain(n) for n in sweep.not_run],
        "price_per_hour": sweep.price_per_hour,
        "notes": list(sweep.notes),
    }


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


def finding_dict(finding: Finding) -> dict[str, Any]:
    return plain(finding)
