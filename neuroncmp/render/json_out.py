"""Strict JSON out: every document neuroncmp writes parses with any JSON parser. Python's ``json``
writes ``NaN`` and ``Infinity``, which are not JSON; here a non-finite value becomes ``null`` with a
``non_finite`` member naming it (``docs/comparison-json.md``). Values JSON has no type for (bytes,
dates from a Parquet table) are written as text.
"""

from __future__ import annotations

import json
import math
from typing import Any

NON_FINITE = "non_finite"


def dumps(data: Any, **options: Any) -> str:
    """``json.dumps`` that never writes ``NaN`` or ``Infinity`` (see the module docstring)."""
    return json.dumps(finite(data), allow_nan=False, default=_text, **options)


def _text(value: Any) -> str:
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", errors="replace")
    return str(value)


# One encoder for the many values of a laid-out document (json.dumps builds one per call).
_COMPACT = json.JSONEncoder(allow_nan=False, default=_text, ensure_ascii=False)


def laid_out(data: Any, levels: int = 2) -> str:
    """``dumps(data, indent=2)`` down to ``levels`` deep, and each value below that on one compact
    line: readable at the top, a line per row, and written by json's C encoder (``indent`` runs its
    pure-Python one). Ends with a newline."""
    return _laid_out(finite(data), levels, "") + "\n"


def _laid_out(value: Any, levels: int, margin: str) -> str:
    if levels == 0 or not value or not isinstance(value, (dict, list, tuple)):
        return _COMPACT.encode(value)
    inner = margin + "  "
    if isinstance(value, dict):
        members = [f"{inner}{_key(key)}: {_laid_out(item, levels - 1, inner)}" for key, item in value.items()]
        return "{\n" + ",\n".join(members) + f"\n{margin}}}"
    items = [inner + _laid_out(item, levels - 1, inner) for item in value]
    return "[\n" + ",\n".join(items) + f"\n{margin}]"


def _key(key: Any) -> str:
    """A member name as json writes it: text as is, ``3``, ``true``, ``null`` as ``"3"``, ``"true"``, ``"null"``."""
    return _COMPACT.encode(key if isinstance(key, str) else json.dumps(key))


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
