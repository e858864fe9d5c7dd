"""Raw and display values to catalogued Metrics: the one place parsers turn input into the model."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from .. import catalog
from .. import units as u
from ..errors import ParseError
from ..model import Anomaly, Metric, Profile, Skipped
from .decode import repeated

_SPECIAL = {f"{sign}{word}": float(f"{sign}{word}") for sign in ("", "+", "-")
            for word in ("nan", "inf", "infinity")}


def number(text: str) -> int | float | None:
    """``12``, ``-3.5e-4``, ``nan``, ``inf`` as printed -> a number (``units.plain_number``); None
    for anything else."""
    text = text.strip()
    if u.NUMBER.fullmatch(text) is None:
        return _SPECIAL.get(text.lower())
    return u.plain_number(text)


def whole(text: str) -> int | None:
    """An ASCII whole number of at most 18 digits (an index, a batch size), else None."""
    text = text.strip()
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 18 else None


def raw_metric(path: str, where: str, key: str, value: Any, group: str | None = None) -> Metric:
    """A Metric from a summary-json style raw value (base units, ``*_percent`` as 0-1 fractions).

    A numeric metric given text, or a text metric given a list, is bad input: it raises
    ``ParseError`` naming the key rather than guessing.
    """
    spec = catalog.lookup(key)
    name, group = spec.name, group or spec.group
    if spec.unit == u.TEXT or (isinstance(value, bool) and not spec.catalogued):
        return _text_metric(path, where, key, spec, value, group)
    if isinstance(value, str) and not spec.catalogued:
        return Metric(name, value, u.TEXT, value, group)
    if not u.is_number(value):
        raise ParseError(path, f"{where}, key '{key}'", f"a number ({spec.kind}, {spec.raw_unit})",
                         f"{type(value).__name__} {value!r:.40}")
    return Metric(name, _from_raw_unit(value, spec.raw_unit, spec.unit), spec.unit, repr(value), group)


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
    JSON object, in order; a nested value or a null is not a metric (recorded as skipped)."""
    for key, value in block.items():
        if isinstance(value, (dict, list)):
            profile.skipped.append(Skipped(f"{where}, key '{key}'", repr(value)[:60], "nested value, not a metric"))
        elif value is None:
            profile.skipped.append(Skipped(f"{where}, key '{key}'", "null", "no value"))
        else:
            add_metric(profile, raw_metric(path, where, key, value), where)


def add_metric(profile: Profile, metric: Metric, where: str, into: dict[str, Metric] | None = None) -> None:
    """Store a metric in ``profile.metrics`` (or ``into``: ``profile.training``); a repeated name
    keeps the first value and records an anomaly; a blank name is not a metric (recorded as skipped)."""
    if not metric.name.strip():
        profile.skipped.append(Skipped(where, f"{metric.raw:.60}", "no metric name"))
        return
    metrics = profile.metrics if into is None else into
    existing = metrics.get(metric.name)
    if existing is not None:
        if existing.value != metric.value:
            profile.anomalies.append(Anomaly(
                "duplicate-metric", f"{metric.name} appears twice ({existing.raw:.40} and {metric.raw:.40}, "
                f"{where}); the first is kept", metric.name))
        return
    metrics[metric.name] = metric
