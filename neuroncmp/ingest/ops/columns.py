"""The ``Instruction`` table's columns checked as ``checks.py`` checks one value, column-wise (pyarrow
and numpy, no loop over rows); the first row that fails is one ``ParseError`` naming the file, the table,
the row (counted from 0 in that file) and the column. Nothing is cast before it is checked, so numpy
never warns (a NaN cast to int64 did, and made a 2.3-billion-second operator).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ...errors import ParseError
from .checks import AMOUNT, MAX_NS, TIME

# A row of the batch -> (its file, its row in that file): errors name the row where it is stored.
Locate = Callable[[int], tuple[Path, int]]
TABLE = "Instruction"


def _error(locate: Locate, at: int, column: str, expected: str, found: str) -> ParseError:
    path, row = locate(at)
    return ParseError(str(path), f"table {TABLE}, row {row}, {column}", expected, found)


def _numeric(column: Any) -> bool:
    import pyarrow as pa

    kind = column.type.value_type if pa.types.is_dictionary(column.type) else column.type
    return bool(pa.types.is_integer(kind) or pa.types.is_floating(kind))


def _first(mask: Any) -> int | None:
    hits = np.flatnonzero(mask)
    return int(hits[0]) if hits.size else None


def _checked(batch: Any, name: str, expected: str, locate: Locate, high: float) -> tuple[Any, Any]:
    """The column's values (float64, nulls as 0) and its null mask; a ``ParseError`` at the first
    value of the wrong type, NaN, infinite, negative or above ``high``."""
    column = batch.column(name)
    if not _numeric(column):
        at = _first(~np.asarray(column.is_null().to_numpy(zero_copy_only=False), dtype=bool))
        found = "null" if at is None else f"{column.type} {column[at].as_py()!r:.40}"
        raise _error(locate, at or 0, name, expected, found)
    nulls = np.asarray(column.is_null().to_numpy(zero_copy_only=False), dtype=bool)
    values = np.asarray((column.fill_null(0) if column.null_count else column).to_numpy(zero_copy_only=False))
    with np.errstate(invalid="ignore"):
        bad = ~((values >= 0) & (values <= high))  # NaN fails both comparisons
    if (at := _first(bad)) is not None:
        raise _error(locate, at, name, expected, f"{values[at].item()!r}")
    return values, nulls


def times(batch: Any, locate: Locate) -> tuple[Any, Any]:
    """``start_ts`` and ``end_ts`` as int64 ns: none null, each from 0 to 2^62, each end at or after
    its start."""
    start, start_nulls = _checked(batch, "start_ts", TIME, locate, MAX_NS)
    end, end_nulls = _checked(batch, "end_ts", TIME, locate, MAX_NS)
    for name, nulls in (("start_ts", start_nulls), ("end_ts", end_nulls)):
        if (at := _first(nulls)) is not None:
            raise _error(locate, at, name, TIME, "null")
    if (at := _first(end < start)) is not None:
        raise _error(locate, at, "end_ts", "an end at or after start_ts",
                     f"end_ts {end[at].item()!r} before start_ts {start[at].item()!r}")
    return start.astype(np.int64), end.astype(np.int64)


def amounts(batch: Any, name: str, locate: Locate) -> tuple[Any, Any]:
    """A bytes or FLOP column (float64, nulls as 0) and its null mask; all zeros when absent."""
    if name not in batch.schema.names:
        return np.zeros(batch.num_rows), np.zeros(batch.num_rows, dtype=bool)
    return _checked(batch, name, AMOUNT, locate, np.finfo(np.float64).max)


def text(batch: Any, name: str, locate: Locate) -> Any:
    """A name column (engine, opcode, HLO op, layer, source line): text (null when the whole column
    is); a number is never made a name ("3.0", "nan")."""
    import pyarrow as pa

    column = batch.column(name)
    kind = column.type.value_type if pa.types.is_dictionary(column.type) else column.type
    if not (pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_null(kind)):
        at = _first(~np.asarray(column.is_null().to_numpy(zero_copy_only=False), dtype=bool)) or 0
        raise _error(locate, at, name, _WHAT[name], f"{column.type} {column[at].as_py()!r:.40}")
    return column


def named(codes: Any, names: list[str], none: str, name: str, locate: Locate) -> None:
    """A ``ParseError`` at the first row of a name column every instruction needs (engine, opcode)
    that has none (null or empty: ``union.codes`` made it ``none``)."""
    if (at := _first(np.array([n == none for n in names], dtype=bool)[codes])) is not None:
        raise _error(locate, at, name, _WHAT[name], "null" if codes[at] == len(names) - 1 else "empty text")


_WHAT = {"engine": "an engine (text)", "opcode": "an opcode (text)",
         "hlo_name": "an HLO op name (text, or null for none)", "layer": "a layer name (text, or null for none)",
         "nki_source_location": "an NKI source line (text, or null for none)"}
