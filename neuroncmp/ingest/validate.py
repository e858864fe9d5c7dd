"""Validation of values: every number a profile holds, against the range its kind may take.

The parsers check shapes and types as they read (a ``ParseError`` names file, place, expected
and found); this module checks what they produced, the same way for every format, against the
catalog's ranges (``catalog.KIND_RANGES``): times, bytes, counts, cycles, FLOPs, rates and
intensities are never negative, fractions lie in [0, 1] (throttle "percents" excepted), values
are finite. A value outside is kept as read and flagged with an anomaly naming its metric, so
what is shown is what the file said and nothing downstream mistakes it for a measurement:

| code | what |
|---|---|
| ``nan-value`` | NaN |
| ``non-finite-value`` | an infinity (``Infinity``, ``1e400``, an integer beyond a float's range) |
| ``negative-value`` | below zero where the kind cannot be |
| ``out-of-range`` | outside the kind's range otherwise (a fraction above 1, an index not whole) |
| ``percent-over-100`` | a throttle "percent" above 100 % (documented; kept, never clamped) |
| ``bad-batch-size`` | a batch size that is not a whole number >= 1 (not used) |
"""

from __future__ import annotations

import math
from functools import lru_cache
from itertools import repeat
from typing import Any, NamedTuple

from .. import catalog, model
from ..model import Anomaly, Columns, MemoryRow, Metric, Picker, Profile, picker
from ..units import TEXT, as_float, format_value, non_finite

_LARGEST = 1.7976931348623157e308  # the largest float
CODES = ("nan-value", "non-finite-value", "negative-value", "out-of-range", "percent-over-100")
_QUIET: dict[str, tuple[str, float, float]] = {}  # name -> what ``_unremarkable`` says of it


def findings(profile: Profile, columns: Columns | None = None) -> list[Anomaly]:
    """An anomaly for every value of ``profile`` outside its kind's range (metrics, Trainer
    metrics and memory rows); ``columns``: the profile's own (``model.columns``), when the caller
    has them."""
    if columns is None:
        columns = model.columns(profile)  # None for fewer than two (or a key not its metric's name)
    if columns is None:
        metrics = (*profile.metrics.values(), *profile.training.values())
        found = None
    else:
        metrics = columns.records
        found = _quick(metrics, columns.names, columns.values, columns.units)
    if found is None:
        found = [anomaly for metric in metrics if not _quiet(metric) and (anomaly := metric_anomaly(metric))]
    found += [a for row in profile.memory if (a := _row_anomaly(row)) is not None]
    return found


def _quiet(metric: Metric) -> bool:
    """Whether an int or float value lies where ``metric_anomaly`` passes it (one comparison)."""
    value = metric.value
    if type(value) is not float and type(value) is not int:
        return False
    quiet = _QUIET.get(metric.name)
    if quiet is None or quiet[0] != metric.unit:
        quiet = _unremarkable(metric.name, metric.unit)
    return quiet[1] <= value <= quiet[2]


def _quick(metrics: tuple[Metric, ...], names: tuple[str, ...], values: tuple[Any, ...],
           units: tuple[str, ...]) -> list[Anomaly] | None:
    """The anomalies of ``metrics`` (``names``, ``values``, ``units``: their columns) from their
    layout (``_Places``): each range's values told quiet at once (``_calm``), only those of a range
    that is not searched one by one; None when the layout does not fit the values (then each value
    is checked on its own)."""
    places = _places(names, units)
    if places is None or not all(map(isinstance, places.texts(values), repeat(str))):
        return None
    flagged = [index for index in places.each if not _quiet_index(values[index])]
    try:
        groups = [(group, picked) for group in places.groups if not _calm(group, picked := group.pick(values))]
        for (group_places, _, low, high), picked in groups:  # the values outside it: a few, in a range or two
            flagged += [place for place, value in zip(group_places, picked) if not low <= value <= high]
    except (TypeError, OverflowError):  # text where a number belongs; an int beyond a float's range
        return None
    if not flagged:
        return []
    return [anomaly for index in sorted(set(flagged)) if (anomaly := metric_anomaly(metrics[index]))]


def _calm(group: _Group, picked: tuple[Any, ...]) -> bool:
    """Whether all ``picked`` values lie in ``group``'s range, told by a sum and a min or max, not
    a comparison each (a variant's findings: 12.8 -> ~5 us). The float sum of values >= 0 is at
    least each of them (rounding is monotonic; an int beyond a float's range rounds to the largest
    float, or raises), so a sum below the largest float bounds them all; NaN or an infinity makes
    the sum so. Raises TypeError for a value that is no number."""
    if not picked:
        return True
    total = sum(picked, 0.0)
    if group.low == 0 and group.high == _LARGEST:
        return total < _LARGEST and min(picked) >= 0
    return total - total == 0.0 and group.low <= min(picked) and max(picked) <= group.high


def _quiet_index(value: Any) -> bool:
    """Whether ``metric_anomaly`` passes ``value`` as an index: an int in a float's range, >= 0."""
    return type(value) is int and 0 <= value <= _LARGEST


class _Group(NamedTuple):
    """The places of a layout's values that one range (of ``_unremarkable``) holds quiet."""

    places: tuple[int, ...]
    pick: Picker
    low: float
    high: float


class _Places(NamedTuple):
    """Of a layout of metrics (names and units): its values' places by quiet range (``groups``),
    the places checked each on its own (an index: a float one must be whole) and those of the text
    values (a str each, or the layout does not fit)."""

    groups: tuple[_Group, ...]
    each: tuple[int, ...]
    texts: Picker


# (names, units) -> their places, or None where every value is checked on its own. A run's
# profiles share one layout (remembered for 256: names come from input files): a summary-json's 90
# values then take a few C loops instead of a Python loop (a variant's findings: 205k -> 160k
# instructions, callgrind).
@lru_cache(maxsize=256)
def _places(names: tuple[str, ...], units: tuple[str, ...]) -> _Places | None:
    ranges: dict[tuple[float, float], list[int]] = {}
    each, texts = [], []
    for index, (name, unit) in enumerate(zip(names, units)):
        if unit == TEXT:
            texts.append(index)
            continue
        _, low, high = _unremarkable(name, unit)
        if low <= high:
            ranges.setdefault((low, high), []).append(index)
        else:
            each.append(index)
    if sum(map(len, ranges.values())) < 2:
        return None
    groups = tuple(_Group(tuple(places), picker(places), low, high) for (low, high), places in ranges.items())
    return _Places(groups, tuple(each), picker(texts))


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
        return Anomaly("out-of-range", f"{name:.80} is {format_value(value, metric.unit)}, above "
                       f"{format_value(high, metric.unit)} (kept as read)", name)
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


def _unremarkable(name: str, unit: str) -> tuple[str, float, float]:
    """(unit, low, high): the int and float values of ``name`` in ``unit`` that ``metric_anomaly``
    passes, the kind's range within a float's, at most 1 for a fraction; none for an index (a
    float index must be whole). NaN and integers beyond a float's range fall outside, as they
    should. Remembered by name in ``_QUIET`` (a dict lookup: a profile has some 80 values)."""
    kind, low, high = _range(name, unit)
    if kind == "index":
        quiet = (unit, math.inf, -math.inf)
    else:
        low = -_LARGEST if low is None else max(low, -_LARGEST)
        high = _LARGEST if high is None else min(high, _LARGEST)
        quiet = (unit, low, min(high, 1) if kind == "fraction" else high)
    if len(_QUIET) >= 4096:  # names come from input files: keep the memory bounded
        _QUIET.clear()
    _QUIET[name] = quiet
    return quiet


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
