"""Validation of values: every number a profile holds, against the range its kind may take.

The parsers check shapes and types as they read; this module checks what they produced, the same way
for every format, against the catalog's ranges (``catalog.KIND_RANGES``). A value outside is kept as
read and flagged with an anomaly naming its metric (codes: docs/profile-json.md, "Anomaly codes").
"""

from __future__ import annotations

from functools import lru_cache

from .. import catalog
from ..model import Anomaly, MemoryRow, Metric, Profile
from ..units import as_float, format_value, non_finite

_LARGEST = 1.7976931348623157e308  # the largest float
CODES = ("nan-value", "non-finite-value", "negative-value", "out-of-range", "percent-over-100")


def findings(profile: Profile) -> list[Anomaly]:
    """An anomaly for every value of ``profile`` outside its kind's range (metrics, Trainer
    metrics and memory rows)."""
    found = [anomaly for metric in (*profile.metrics.values(), *profile.training.values())
             if (anomaly := metric_anomaly(metric))]
    return found + [anomaly for row in profile.memory if (anomaly := _row_anomaly(row)) is not None]


def metric_anomaly(metric: Metric) -> Anomaly | None:
    """The anomaly of one metric's value, or None when it lies in its kind's range."""
    value, name = metric.value, metric.name
    if isinstance(value, (str, bool)):
        return None
    if not -_LARGEST <= value <= _LARGEST:  # NaN fails both tests; so does an integer beyond a float
        code = "nan-value" if value != value else "non-finite-value"
        return Anomaly(code, f"{name:.80} is {non_finite(as_float(value))} in the input", name)
    kind, low, high = _range(name, metric.unit)
    if low is not None and value < low:
        return Anomaly("negative-value" if low == 0 else "out-of-range",
                       f"{name:.80} is {format_value(value, metric.unit)}: a {kind} value cannot be "
                       f"{'negative' if low == 0 else f'below {low}'} (kept as read)", name)
    if high is not None and value > high:
        beyond = " (kept as read)" if kind == "fraction" else ", more than any NeuronCore can reach (kept as read)"
        return Anomaly("out-of-range", f"{name:.80} is {format_value(value, metric.unit)}, above "
                       f"{format_value(high, metric.unit)}{beyond}", name)
    if kind == "fraction" and value > 1:
        return Anomaly("percent-over-100", f"{name:.80} is {format_value(value, metric.unit)}, above 100 % "
                       "(kept as read, not clamped)", name)
    if kind == "index" and isinstance(value, float) and not value.is_integer():
        return Anomaly("out-of-range", f"{name:.80} is {value!r}: an index is a whole number", name)
    return None


@lru_cache(maxsize=4096)
def _range(name: str, unit: str) -> tuple[str, float | None, float | None]:
    spec = catalog.lookup(name)
    if unit != spec.unit:  # a unit the input showed beats the one guessed from the name
        spec = catalog.MetricSpec(name, spec.group, unit)
    return (spec.kind, *catalog.value_range(spec))


def _row_anomaly(row: MemoryRow) -> Anomaly | None:
    if row.bytes >= 0:
        return None
    name = "device_memory_total" if row.usage_type == "total" else f"memory.{row.usage_type}"
    return Anomaly("negative-value", f"memory row '{row.label:.80}' (nd {row.device}, nc {row.core}) is "
                   f"{format_value(row.bytes, 'B')}: bytes cannot be negative (kept as read)", name)


def batch_size(profile: Profile) -> None:
    """Refuse a batch size that is not a whole number >= 1: dropped, with a ``bad-batch-size``
    anomaly (a whole float such as ``8.0`` is taken as the integer)."""
    size = profile.params.get("batch_size")
    if size is None or (type(size) is int and size >= 1):
        return
    if type(size) is float and size.is_integer() and size >= 1:
        profile.params["batch_size"] = int(size)
        return
    source = profile.params.pop("batch_size_source", None)
    del profile.params["batch_size"]
    profile.anomalies.append(Anomaly("bad-batch-size", f"batch size {size!r:.40} (from {source or 'input'}) "
                                     "is not a whole number >= 1; not used"))
