"""The sweep table: one row per batch size, each column declared once in ``COLUMNS`` with everything
every output needs (docs/code.md, "Adding a sweep column"; the formulas: docs/commands/sweep.md, "The
table"). A value that cannot be computed (its inputs are missing) is None and shows as ``-``."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from .. import units as u
from . import gaps
from .bounds import Bounds
from .series import Point


class Inputs(NamedTuple):
    """What a computed column reads: its point, the axis' first (``b0``) and previous (``prev``)
    points, what bounds the point's step, and the price per hour (None when not given)."""

    point: Point
    first: Point
    previous: Point | None
    bounds: Bounds | None
    price: float | None


Compute = Callable[[Inputs], float | None]

# The printed blocks (plain names here; the renderers give them headings and order them):
THROUGHPUT, ENGINES, MOVEMENT = "throughput", "engines", "movement"
EVERY = "every"  # the row's key (the batch size): first in every block
USD = "USD"  # the cost columns' unit (per million samples): a currency, not a pint unit


class Column(NamedTuple):
    name: str
    title: str
    unit: str
    formula: str
    value: str | Compute   # a metric copied as read (its name), or computed from the point's ``Inputs``
    block: str             # the printed block it is in: THROUGHPUT, ENGINES, MOVEMENT (EVERY: the key)
    cell: str = ""         # how its cell is written when not as a plain value (render/sweep_text.py CELLS)
    ends_block: bool = False  # printed after its block's other columns

    def documented(self) -> dict[str, Any]:
        """What the JSON's ``columns`` says of it: name, title, unit, formula."""
        return {"name": self.name, "title": self.title, "unit": self.unit, "formula": self.formula}

    def of(self, inputs: Inputs) -> float | None:
        """Its value at ``inputs.point``."""
        return inputs.point.get(self.value) if isinstance(self.value, str) else self.value(inputs)


def _ratio(top: float | None, bottom: float | None) -> float | None:
    """``top / bottom``, None when either is missing or the ratio is not finite."""
    if top is None or not bottom:
        return None
    ratio = top / bottom
    return ratio if math.isfinite(ratio) else None


def _trusted(point: Point | None, name: str) -> float | None:
    """A value to compute with: None when an input anomaly makes it suspect (it is shown as
    read in its own column; a ratio of it would pass the doubt on unmarked)."""
    return None if point is None or name in point.suspects else point.get(name)


def throttled_share(point: Point) -> float | None:
    """The most throttled core's throttled time as a share of the step."""
    times = [value for name, value in point.values.items()
             if name.startswith("throttle_active_nc") and name.endswith("_time_ns")]
    return _ratio(max(times), _trusted(point, "total_time")) if times else None


def _speedup(at: Inputs) -> float | None:
    return _ratio(_trusted(at.point, "device_throughput"), _trusted(at.first, "device_throughput"))


def _marginal(at: Inputs) -> float | None:
    step_up = _ratio(_trusted(at.point, "device_throughput"), _trusted(at.previous, "device_throughput"))
    return step_up - 1 if step_up is not None else None


def _memory_growth(at: Inputs) -> float | None:
    memory = at.point.get("device_memory_total")
    before = at.previous.get("device_memory_total") if at.previous else None
    return memory - before if memory is not None and before is not None else None


def _cost(rate_metric: str) -> Compute:
    """The price of a million samples at the rate ``rate_metric`` (samples/s)."""
    def cost(at: Inputs) -> float | None:
        rate = at.point.get(rate_metric)
        return at.price / 3600 / rate * 1e6 if at.price is not None and rate else None

    return cost


def _next(at: Inputs) -> tuple[str | None, float | None]:
    found = gaps.next_bottleneck(at.bounds) if at.bounds else None
    return (gaps.short_name(found.bound.name), found.share) if found else (None, None)


def _bn_speedup(at: Inputs) -> float | None:
    """The estimate where it is reachable (``gaps.REACHABLE``); a value beyond it is left out, never shown
    as a large multiple."""
    found = gaps.speedup(at.bounds) if at.bounds else None
    return found.factor if isinstance(found, gaps.Speedup) and found.reachable else None


COLUMNS = (
    Column("batch", "batch", u.COUNT, "batch size", lambda at: float(at.point.batch_size), EVERY, "batch"),
    Column("step_time", "step", u.SECOND, "total_time", "total_time", THROUGHPUT),
    Column("time_per_sample", "per sample", u.SECOND, "total_time / batch",
           lambda at: at.point.per_sample("total_time"), THROUGHPUT),
    Column("device_throughput", "device/s", u.SAMPLE_RATE, "batch / total_time", "device_throughput", THROUGHPUT),
    Column("e2e_throughput", "e2e/s", u.SAMPLE_RATE, "train_samples_per_second (Trainer, end to end)",
           "train_samples_per_second", THROUGHPUT),
    Column("speedup", "speed-up", u.DIMENSIONLESS, "device_throughput / device_throughput at b0", _speedup,
           THROUGHPUT, "times"),
    Column("efficiency", "scaling", u.FRACTION,
           "speed-up / (batch / b0) = total_time at b0 / total_time: the share of linear scaling kept",
           lambda at: _ratio(_trusted(at.first, "total_time"), _trusted(at.point, "total_time")), THROUGHPUT),
    Column("marginal", "marginal", u.FRACTION, "device_throughput / device_throughput at prev - 1", _marginal,
           THROUGHPUT, "change"),
    Column("marginal_memory", "+memory", u.BYTE, "device_memory_total - device_memory_total at prev",
           _memory_growth, MOVEMENT, "growth", ends_block=True),
    Column("mfu", "MFU", u.FRACTION, "mfu_estimated_percent", "mfu_estimated_percent", ENGINES),
    Column("mbu", "MBU", u.FRACTION, "mbu_estimated_percent", "mbu_estimated_percent", ENGINES),
    *(Column(engine, engine, u.FRACTION, f"{engine}_engine_active_time_percent",
             f"{engine}_engine_active_time_percent", ENGINES) for engine in ("tensor", "vector", "scalar", "gpsimd")),
    Column("dma", "DMA", u.FRACTION, "dma_active_time_percent", "dma_active_time_percent", ENGINES),
    Column("bound", "bound by", u.DIMENSIONLESS,
           "the largest of: hardware_flops / peak, HBM bytes / bandwidth, each engine's and DMA's active time "
           "(the bottleneck, named); the value is total_time / that time (analysis/bounds.py)",
           lambda at: at.bounds.gap if at.bounds else None, ENGINES, "bottleneck", ends_block=True),
    Column("next", "next", u.DIMENSIONLESS, "the next bottleneck's active time / the bottleneck's (the largest "
           "of another engine or the DMA, named; analysis/gaps.py)", lambda at: _next(at)[1], ENGINES, "next",
           ends_block=True),
    Column("bn_speedup", "if ideal", u.DIMENSIONLESS, "AWS's bn_speedup at the bottleneck family's deepest ideal "
           f"bound: total_time / max(that bound, the other engines' largest active time), none where above "
           f"{gaps.REACHABLE:g}x: not reachable (analysis/gaps.py)",
           _bn_speedup, ENGINES, "times", ends_block=True),
    Column("spill_per_sample", "spill/sample", u.BYTE, "spill_reload_bytes / batch",
           lambda at: at.point.per_sample("spill_reload_bytes"), MOVEMENT),
    Column("hbm_per_sample", "HBM/sample", u.BYTE, "(hbm_read_bytes + hbm_write_bytes) / batch",
           lambda at: at.point.per_sample("hbm_traffic_bytes"), MOVEMENT),
    Column("device_memory", "memory", u.BYTE, "device_memory_total (the memory table's Total, else the sum "
           "of its rows; from any memory source)", "device_memory_total", MOVEMENT),
    Column("collectives", "collectives", u.FRACTION, "cc_op_active_time_percent", "cc_op_active_time_percent",
           ENGINES),
    Column("throttled", "throttled", u.FRACTION, "max over cores of throttle_active_nc<N>_time_ns / total_time",
           lambda at: throttled_share(at.point), ENGINES),
    Column("cost_device", "$/M device", USD,
           "price_per_hour / 3600 / device_throughput x 1e6 (needs --price-per-hour)", _cost("device_throughput"),
           THROUGHPUT, "dollars"),
    Column("cost_e2e", "$/M e2e", USD,
           "price_per_hour / 3600 / e2e_throughput x 1e6 (needs --price-per-hour)",
           _cost("train_samples_per_second"), THROUGHPUT, "dollars"),
)


class TableRow(NamedTuple):
    label: str
    batch_size: int
    inferred: bool
    values: Mapping[str, float | None]   # column name -> value (base units), in ``COLUMNS`` order
    bottleneck: str | None = None        # the "bound" column's name: what bounds the step ("DMA")
    next_bound: str | None = None        # the "next" column's name: the next bottleneck ("vector")

    def get(self, column: str) -> float | None:
        """The value of ``column`` (see ``COLUMNS``), None when it could not be computed."""
        return self.values.get(column)


def rows(points: tuple[Point, ...], price_per_hour: float | None,
         bounds: tuple[Bounds, ...] = ()) -> tuple[TableRow, ...]:
    """The table (see ``COLUMNS`` for every formula); ``bounds`` per point, when known."""
    out = []
    for index, point in enumerate(points):
        found = bounds[index] if bounds else None
        inputs = Inputs(point, points[0], points[index - 1] if index else None, found, price_per_hour)
        values = {column.name: column.of(inputs) for column in COLUMNS}
        top = found.bottleneck if found else None
        out.append(TableRow(point.label, point.batch_size, point.inferred, values, top.label if top else None,
                            _next(inputs)[0]))
    return tuple(out)
