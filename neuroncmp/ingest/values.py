"""Raw and display values to catalogued Metrics: the one place parsers turn input into the model."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from functools import lru_cache
from itertools import repeat
from typing import Any, NamedTuple

from .. import catalog
from .. import units as u
from ..errors import ParseError
from ..model import Anomaly, Metric, Profile, Skipped
from .decode import repeated

_NUMERIC_TYPES = (int, float)
# A plain number as tools print it; one way to match each string, so matching is linear.
_NUMBER = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?", re.ASCII)
_SPECIAL = {f"{sign}{word}": float(f"{sign}{word}") for sign in ("", "+", "-")
            for word in ("nan", "inf", "infinity")}
MAX_DIGITS = 300  # longer integers are beyond a float's range: read as an infinity (and flagged)
# Raw -> canonical conversions that are a division by a power of ten a float holds exactly
# (``ns`` -> ``s``): for whole numbers a float holds exactly (up to 2**53) the float quotient is
# the conversion's result (``_from_raw_unit``); other values take the exact Decimal route.
_EXACT_DIVISORS = {("ns", u.SECOND): 1e9}
_EXACT_INT = 2**53
# Metric's own ``__new__`` is a Python function around this call: made directly, the record is
# the same at a fraction of the cost (a summary-json holds some 80 values per profile).
_new = tuple.__new__


def number(text: str) -> int | float | None:
    """``12``, ``-3.5e-4``, ``nan``, ``inf`` as printed -> a number; None for anything else.

    Integers keep their exact value up to ``MAX_DIGITS`` digits; longer ones (and ``1e400``)
    become an infinity, which validation flags, rather than a number nothing can format.
    """
    text = text.strip()
    if _NUMBER.fullmatch(text) is None:
        return _SPECIAL.get(text.lower())
    if text.lstrip("+-").isdigit():
        return int(text) if len(text) <= MAX_DIGITS else float(text)
    return float(text)


def whole(text: str) -> int | None:
    """An ASCII whole number of at most 18 digits (an index, a batch size), else None."""
    text = text.strip()
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 18 else None


def raw_metric(path: str, where: str, key: str, value: Any, group: str | None = None) -> Metric:
    """A Metric from a summary-json style raw value (base units, ``*_percent`` as 0-1 fractions).

    A numeric metric given text, or a text metric given a list, is bad input: it raises
    ``ParseError`` naming the key rather than guessing.
    """
    kind = type(value)
    if kind is float or kind is int:
        plain = _plain(key)
        if plain is not None:  # the common case, decided by one cached test
            name, unit, spec_group = plain
            return _new(Metric, (name, value, unit, repr(value), group or spec_group))
    spec = catalog.lookup(key)
    name, group = spec.name, group or spec.group
    if spec.unit == u.TEXT or (isinstance(value, bool) and not spec.catalogued):
        return _text_metric(path, where, key, spec, value, group)
    if isinstance(value, str) and not spec.catalogued:
        return Metric(name, value, u.TEXT, value, group)
    if not isinstance(value, _NUMERIC_TYPES) or isinstance(value, bool):
        raise ParseError(path, f"{where}, key '{key}'", f"a number ({spec.kind}, {spec.raw_unit})",
                         f"{type(value).__name__} {value!r:.40}")
    return Metric(name, _from_raw_unit(value, spec.raw_unit, spec.unit), spec.unit, repr(value), group)


@lru_cache(maxsize=4096)
def _plain(key: str) -> tuple[str, str, str] | None:
    """(name, unit, group) when ``key``'s numbers are kept as read: a numeric metric whose raw
    unit is its unit and whose name is not blank. Only for exact ``int`` and ``float`` values
    (``raw_metric`` checks): bools, numpy scalars and text take the full checks."""
    spec = catalog.lookup(key)
    if spec.unit == u.TEXT or spec.raw_unit != spec.unit or not spec.name.strip():
        return None
    return spec.name, spec.unit, spec.group


@lru_cache(maxsize=4096)
def _plain_text(key: str) -> tuple[str, str] | None:
    """(name, group) when a ``str`` value of ``key`` is kept as read (what ``raw_metric`` does
    with text for a text metric, or for an uncatalogued one) and the name is not blank."""
    spec = catalog.lookup(key)
    if (spec.unit != u.TEXT and spec.catalogued) or not spec.name.strip():
        return None
    return spec.name, spec.group


def _text_metric(path: str, where: str, key: str, spec: catalog.MetricSpec, value: Any,
                 group: str) -> Metric:
    if isinstance(value, (dict, list)):
        raise ParseError(path, f"{where}, key '{key}'", "a text or number value",
                         type(value).__name__)
    text = str(value).lower() if isinstance(value, bool) else str(value)
    return Metric(spec.name, text, u.TEXT, text, group)


def _from_raw_unit(value: int | float, raw_unit: str, unit: str) -> int | float:
    if raw_unit == unit or (isinstance(value, float) and not math.isfinite(value)):
        return value
    divisor = _EXACT_DIVISORS.get((raw_unit, unit))
    if divisor is not None and type(value) is int and -_EXACT_INT <= value <= _EXACT_INT:
        # Both operands are exact floats, so the quotient is the correctly rounded value of
        # value / 10**k: the same float the Decimal product below gives, without Decimal.
        return value / divisor
    converted = u.to_canonical(repr(value), raw_unit)
    if converted is None or converted[1] != unit:
        raise ValueError(f"catalog raw unit {raw_unit!r} does not convert to {unit!r}")
    return converted[0]


def display_metric(path: str, where: str, key: str, text: str, group: str | None = None,
                   *, binary_si: bool = False) -> Metric:
    """A Metric from a display-formatted value (``"53.78 ms"``, ``"85.22 %"``, ``"2.28.27 ()"``)."""
    spec = catalog.lookup(key)
    group = group or spec.group
    if spec.unit == u.TEXT:
        return Metric(spec.name, text, u.TEXT, text, group)
    parsed = u.parse_display(text, binary_si=binary_si)
    if parsed is None:
        if not spec.catalogued:
            return Metric(spec.name, text, u.TEXT, text, group)
        raise ParseError(path, f"{where}, metric '{key}'",
                         f"a number with a {spec.kind} unit ({spec.unit})", repr(text))
    value, unit = parsed
    return Metric(spec.name, value, _agree(path, where, key, spec, unit, text), text, group)


def _agree(path: str, where: str, key: str, spec: catalog.MetricSpec, unit: str, text: str) -> str:
    """The unit to keep: the catalog's, unless the display says otherwise for an unknown metric."""
    if unit == spec.unit or unit == u.COUNT:
        return spec.unit  # a bare number is in the catalog's unit (the UI omits it for ratios)
    if not spec.catalogued:
        return unit  # a shown unit beats a guess from the name's suffix
    raise ParseError(path, f"{where}, metric '{key}'", f"a {spec.kind} value ({spec.unit})", repr(text))


def note_repeated(profile: Profile, obj: Any, where: str,
                  name_of: Callable[[str], str | None] = catalog.canonical_name) -> None:
    """A ``duplicate-metric`` anomaly for each key a JSON object gave twice with different values
    (the decoder kept the first); ``name_of`` maps the key to the metric it feeds (None: the key
    is not a metric, the anomaly is a ``duplicate-key``)."""
    for key, kept, ignored in repeated(obj):
        name = name_of(key)
        profile.anomalies.append(Anomaly(
            "duplicate-metric" if name else "duplicate-key",
            f"{key:.80} appears twice ({kept!r:.40} and {ignored!r:.40}, {where}); the first is kept", name))


def add_raw_block(profile: Profile, path: str, where: str, block: dict[str, Any]) -> None:
    """``add_metric(profile, raw_metric(path, where, key, value), where)`` for each pair of a flat
    JSON object, in order; a nested value or a null is not a metric (recorded as skipped).

    A block of plain numbers and text only (most of a summary-json, some 80 values a profile)
    whose keys and value types were seen before is added in one step (``_Layout``), with the same
    result; a plain value whose metric the profile does not have yet is added directly.
    """
    metrics = profile.metrics
    if not metrics:
        values = tuple(block.values())
        layout = _layout(tuple(block), tuple(map(type, values)))
        if layout is not None:
            # str() of an int or a float is its repr, of a str the str itself: the raw text as below
            made = list(map(_new, repeat(Metric), zip(layout.names, values, layout.units, map(str, values),
                                                      layout.groups)))
            for index in layout.converted:  # a unit to convert (``_ns``): the full way
                made[index] = raw_metric(path, where, layout.keys[index], values[index])
            metrics.update(zip(layout.names, made))
            return
    for key, value in block.items():
        kind = type(value)
        if kind is float or kind is int:
            plain = _plain(key)
            if plain is not None and plain[0] not in metrics:
                name, unit, group = plain
                metrics[name] = _new(Metric, (name, value, unit, repr(value), group))
                continue
        elif kind is str:  # versions, instance type: a few a profile, each ~2 us the full way
            named = _plain_text(key)
            if named is not None and named[0] not in metrics:
                metrics[named[0]] = _new(Metric, (named[0], value, u.TEXT, value, named[1]))
                continue
        if isinstance(value, (dict, list)):
            profile.skipped.append(Skipped(f"{where}, key '{key}'", repr(value)[:60],
                                           "nested value, not a metric"))
        elif value is None:
            profile.skipped.append(Skipped(f"{where}, key '{key}'", "null", "no value"))
        else:
            add_metric(profile, raw_metric(path, where, key, value), where)


class _Layout(NamedTuple):
    """What ``add_raw_block`` makes of a block's keys, given their values' types: the metrics'
    names, units and groups, in order, and the places of the numbers whose unit is converted."""

    keys: tuple[str, ...]
    names: tuple[str, ...]
    units: tuple[str, ...]
    groups: tuple[str, ...]
    converted: tuple[int, ...]


# (keys, value types) -> their layout, or None where a key takes the full checks (a nested value, a
# null, a bool, a name given twice). A run's blocks share keys and types: decided once (remembered for
# 256 layouts: keys come from input files), a block's metrics are then made in C loops (a variant's
# block: 611k -> 545k instructions, callgrind; most of the rest is repr of each number, the raw text).
@lru_cache(maxsize=256)
def _layout(keys: tuple[str, ...], types: tuple[type, ...]) -> _Layout | None:
    names, units, groups, converted = [], [], [], []
    for index, (key, kind) in enumerate(zip(keys, types)):
        if kind is float or kind is int:
            plain = _plain(key) or _converted(key)
            if plain is not None and plain[1] == "":
                converted.append(index)
        elif kind is str:
            text = _plain_text(key)
            plain = None if text is None else (text[0], u.TEXT, text[1])
        else:
            return None
        if plain is None:
            return None
        names.append(plain[0])
        units.append(plain[1])
        groups.append(plain[2])
    if len(set(names)) < len(names):
        return None
    return _Layout(keys, tuple(names), tuple(units), tuple(groups), tuple(converted))


def _converted(key: str) -> tuple[str, str, str] | None:
    """(name, "", group) when ``raw_metric`` converts ``key``'s numbers to the catalog's unit
    (``_ns`` -> s) and adds them under a name that is not blank."""
    spec = catalog.lookup(key)
    if spec.unit == u.TEXT or spec.raw_unit == spec.unit or not spec.name.strip():
        return None
    return spec.name, "", spec.group


def add_metric(profile: Profile, metric: Metric, where: str) -> None:
    """Store a metric; a repeated name keeps the first value and records an anomaly; a blank
    name is not a metric (recorded as skipped)."""
    if not metric.name.strip():
        profile.skipped.append(Skipped(where, f"{metric.raw:.60}", "no metric name"))
        return
    existing = profile.metrics.get(metric.name)
    if existing is not None:
        if existing.value != metric.value:
            profile.anomalies.append(Anomaly(
                "duplicate-metric", f"{metric.name} appears twice ({existing.raw:.40} and {metric.raw:.40}, "
                f"{where}); the first is kept", metric.name))
        return
    profile.metrics[metric.name] = metric
