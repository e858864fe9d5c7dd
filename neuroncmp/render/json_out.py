"""Strict JSON out: every document neuroncmp writes parses with any JSON parser.

Python's ``json`` writes ``NaN`` and ``Infinity`` for non-finite floats, which are not JSON.
Here a non-finite value becomes ``null``, and the object holding it gets a ``non_finite`` member
naming the field and what it was: ``{"value": null, "non_finite": {"value": "Infinity"}}`` (a
list element is named by its index: ``"spread_variant[1]"``). Values JSON has no type for
(bytes, dates from a Parquet table) are written as text.
"""

from __future__ import annotations

import json
import math
from typing import Any

NON_FINITE = "non_finite"


def dumps(data: Any, **options: Any) -> str:
    """``json.dumps`` that never writes ``NaN`` or ``Infinity`` (see the module docstring)."""
    try:  # the common case: nothing to replace, no walk over the data
        return json.dumps(data, allow_nan=False, default=_text, **options)
    except ValueError:
        return json.dumps(finite(data), allow_nan=False, default=_text, **options)


def finite(data: Any) -> Any:
    """``data`` with every non-finite float replaced as the module docstring says."""
    cleaned, _ = _clean(data)
    return cleaned


def _clean(value: Any) -> tuple[Any, dict[str, str]]:
    """(the value without NaN or infinities, what was replaced, for the enclosing object)."""
    if isinstance(value, float):
        return (value, {}) if math.isfinite(value) else (None, {"": _name(value)})
    if isinstance(value, dict):
        out: dict[Any, Any] = {}
        replaced: dict[str, str] = {}
        for key, item in value.items():
            out[key], found = _clean(item)
            replaced.update({f"{key}{path}": what for path, what in found.items()})
        if replaced:
            out[NON_FINITE] = {**out.get(NON_FINITE, {}), **replaced} \
                if isinstance(out.get(NON_FINITE), dict) else replaced
        return out, {}
    if isinstance(value, (list, tuple)):
        items, replaced = [], {}
        for index, item in enumerate(value):
            cleaned, found = _clean(item)
            items.append(cleaned)
            replaced.update({f"[{index}]{path}": what for path, what in found.items()})
        return items, replaced
    return value, {}


def _name(number: float) -> str:
    return "NaN" if number != number else "Infinity" if number > 0 else "-Infinity"


def _text(value: Any) -> str:
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", errors="replace")
    return str(value)
