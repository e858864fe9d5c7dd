"""Shape checks for decoded input: the parsers' half of validation (values are checked in ``validate``).

A parser that reads a nested document (neuron-monitor, a manifest, Parquet rows) asks here for
an object, a list or an index at a named place; anything else is a ``ParseError`` naming the
file, the place, what was expected and what was found, never a ``KeyError`` or ``TypeError``.
Fields a parser does not know are listed with ``unknown`` so they are counted, not dropped.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..errors import ParseError
from ..model import Skipped
from .values import whole


def found(value: Any) -> str:
    """How a message names a value it did not expect: its type and the start of its text."""
    return "nothing" if value is None else f"{type(value).__name__} {value!r:.50}"


def obj(value: Any, path: str, where: str, what: str = "an object") -> dict[str, Any]:
    """``value`` if it is a JSON object; missing or null reads as empty."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ParseError(path, where, what, found(value))
    return value


def items(value: Any, path: str, where: str, what: str = "a list") -> list[Any]:
    """``value`` if it is a JSON list; missing or null reads as empty."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise ParseError(path, where, what, found(value))
    return value


def index(value: Any, path: str, where: str, what: str = "a core or device index") -> int:
    """A device or core index: a whole number >= 0, given as a number or as digits (``"0"``)."""
    if type(value) is int and 0 <= value < 10**9:
        return value
    if isinstance(value, float) and value.is_integer() and 0 <= value < 1e9:
        return int(value)
    number = whole(value) if isinstance(value, str) else None
    if number is None or number >= 10**9:
        raise ParseError(path, where, f"{what} (a whole number)", found(value))
    return number


def unknown(mapping: dict[str, Any], known: Iterable[str], where: str) -> list[Skipped]:
    """A ``Skipped`` entry per field of ``mapping`` that is not in ``known``."""
    names = set(known)
    return [Skipped(f"{where}, key '{key}'", f"{value!r:.60}", "field not read by neuroncmp")
            for key, value in mapping.items() if key not in names]
