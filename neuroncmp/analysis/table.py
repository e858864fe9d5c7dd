"""The sweep table: one row per batch size, each column a formula over that point's values.

Columns are declared once here (name, title, unit, formula) for every output; a value that cannot be
computed (its inputs are missing) is None and shows as ``-``. ``b0`` is the smallest batch on the
axis and ``prev`` the next smaller one.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import NamedTuple

from .. import units as u
from ..records import record
from .bounds import Bounds
from .series import Point


@record
class Column(NamedTuple):
    name: str
    title: str
    unit: str
    formula: str


COLUMNS = (
    Column("batch", "batch", u.COUNT, "batch size"),
    Column("step_time", "step", u.SECOND, "total_time"),
    Column("time_per_sample", "per sample", u.SECOND, "total_time / batch"),
    Column("device_throughput", "device/s", u.SAMPLE_RATE, "batch / total_time"),
    Column("e2e_throughput", "e2e/s", u.SAMPLE_RATE, "train_samples_per_second (Trainer, end to end)"),
    Column("speedup", "speed-up", u.DIMENSIONLESS, "device_throughput / device_throughput at b0"),
    Column("efficiency", "scaling", u.FRACTION,
           "speed-up / (batch / b0) = total_time at b0 / total_time: the share of linear scaling kept"),
    Column("marginal", "marginal", u.FRACTION, "device_throughput / device_throughput at prev - 1"),
    Column("marginal_memory", "+memory", u.BYTE, "device_memory_total - device_memory_total at prev"),
    Column("mfu", "MFU", u.FRACTION, "mfu_estimated_percent"),
    Column("mbu", "MBU", u.FRACTION, "mbu_estimated_percent"),
    Column("tensor", "tensor", u.FRACTION, "tensor_engine_active_time_percent"),
    Column("vector", "vector", u.FRACTION, "vector_engine_active_time_percent"),
    Column("scalar", "scalar", u.FRACTION, "scalar_engine_active_time_percent"),
    Column("gpsimd", "gpsimd", u.FRACTION, "gpsimd_engine_active_time_percent"),
    Column("dma", "DMA", u.FRACTION, "dma_active_time_percent"),
    Column("bound", "bound by", u.DIMENSIONLESS,
           "the largest of: hardware_flops / peak, HBM bytes / bandwidth, each engine's and DMA's active time "
           "(the bottleneck, named); the value is total_time / that time (analysis/bounds.py)"),
    Column("spill_per_sample", "spill/sample", u.BYTE, "spill_reload_bytes / batch"),
    Column("hbm_per_sample", "HBM/sample", u.BYTE, "(hbm_read_bytes + hbm_write_bytes) / batch"),
    Column("device_memory", "memory", u.BYTE, "device_memory_total (the memory table's Total, else the sum "
           "of its rows; from any memory source)"),
    Column("collectives", "collectives", u.FRACTION, "cc_op_active_time_percent"),
    Column("throttled", "throttled", u.FRACTION,
           "max over cores of throttle_active_nc<N>_time_ns / total_time"),
    Column("cost_device", "$/M device", "USD",  # per million samples; a currency, not a pint unit
           "price_per_hour / 3600 / device_throughput x 1e6 (needs --price-per-hour)"),
    Column("cost_e2e", "$/M e2e", "USD",
           "price_per_hour / 3600 / e2e_throughput x 1e6 (needs --price-per-hour)"),
)
COPIED = {"step_time": "total_time", "device_throughput": "device_throughput",
          "e2e_throughput": "train_samples_per_second", "mfu": "mfu_estimated_percent",
          "mbu": "mbu_estimated_percent", "tensor": "tensor_engine_active_time_percent",
          "vector": "vector_engine_active_time_percent", "scalar": "scalar_engine_active_time_percent",
          "gpsimd": "gpsimd_engine_active_time_percent", "dma": "dma_active_time_percent",
          "device_memory": "device_memory_total", "collectives": "cc_op_active_time_percent"}


@record
class TableRow(NamedTuple):
    label: str
    batch_size: int
    inferred: bool
    values: Mapping[str, float | None]   # column name -> value (base units)
    bottleneck: str | None = None        # the "bound" column's name: what bounds the step ("DMA")

    def get(self, column: str) -> float | None:
        """The value of ``column`` (see ``COLUMNS``), None when it could not be computed."""
        return self.values.get(column)


def _ratio(top: float | None, bottom: float | None) -> float | None:
    """``top / bottom``, None when either is missing or the ratio is not finite."""
    if top is None or not bottom:
        return None
    ratio = top / bottom
    return ratio if math.isfinite(ratio) else None


def _trusted(point: Point, name: str) -> float | None:
    """A value to compute with: None when an input anomaly makes it suspect (it is shown as
    read in its own column; a ratio of it would pass the doubt on unmarked)."""
    return None if name in point.suspects else point.get(name)


def throttled_share(point: Point) -> float | None:
    """The most throttled core's throttled time as a share of the step."""
    times = [value for name, value in point.values.items()
             if name.startswith("throttle_active_nc") and name.endswith("_time_ns")]
    return _ratio(max(times), _trusted(point, "total_time")) if times else None


def rows(points: tuple[Point, ...], price_per_hour: float | None,
         bounds: tuple[Bounds, ...] = ()) -> tuple[TableRow, ...]:
    """The table (see ``COLUMNS`` for every formula); ``bounds`` per point, when known."""
    out = []
    for index, point in enumerate(points):
        found = bounds[index] if bounds else None
        first, previous = points[0], points[index - 1] if index else None
        values: dict[str, float | None] = {name: point.get(metric) for name, metric in COPIED.items()}
        values.update(_relative(point, first, previous))
        values.update(batch=float(point.batch_size), time_per_sample=point.per_sample("total_time"),
                      spill_per_sample=point.per_sample("spill_reload_bytes"),
                      hbm_per_sample=point.per_sample("hbm_traffic_bytes"),
                      throttled=throttled_share(point), bound=found.gap if found else None)
        values.update(_costs(values, price_per_hour))
        top = found.bottleneck if found else None
        out.append(TableRow(point.label, point.batch_size, point.inferred, values, top.label if top else None))
    return tuple(out)


def _relative(point: Point, first: Point, previous: Point | None) -> dict[str, float | None]:
    speedup = _ratio(_trusted(point, "device_throughput"), _trusted(first, "device_throughput"))
    step_up = _ratio(_trusted(point, "device_throughput"), _trusted(previous, "device_throughput")) \
        if previous else None
    memory = point.get("device_memory_total")
    before = previous.get("device_memory_total") if previous else None
    return {"speedup": speedup,
            "efficiency": _ratio(_trusted(first, "total_time"), _trusted(point, "total_time")),
            "marginal": step_up - 1 if step_up is not None else None,
            "marginal_memory": memory - before if memory is not None and before is not None else None}


def _costs(values: Mapping[str, float | None], price: float | None) -> dict[str, float | None]:
    def cost(rate: float | None) -> float | None:
        return price / 3600 / rate * 1e6 if price is not None and rate else None

    return {"cost_device": cost(values.get("device_throughput")), "cost_e2e": cost(values.get("e2e_throughput"))}

