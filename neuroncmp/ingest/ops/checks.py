"""What an op table's numbers must be, checked as they are read, value by value (the view JSON, the
Explorer summary tables; ``columns.py`` checks the ``Instruction`` table column-wise by the same rule).

The rule: docs/commands/ops.md ("Bad op tables"). Anything else is one ``ParseError`` naming the file,
the place and what was found: a table that fails is never read as plausible numbers (a null start read
as 0 made an operator 188 % slower; a NaN one, 2.3 billion seconds long; a float opcode became an
operator "3.0", a NaN HLO name one called "nan").
"""

from __future__ import annotations

import sys
from typing import Any

from ...errors import ParseError
from ...units import is_number
from ..shapes import found
from .table import NONE

MAX_NS = 2**62  # 146 years: an interval's end stays inside int64, the column-wise union's type
TIME = "a number of nanoseconds from 0 to 2^62"
AMOUNT = "a number >= 0 (or null)"
_LARGEST = sys.float_info.max


def nanoseconds(value: Any, path: str, where: str) -> int | float:
    """``value`` as a time in ns, or a ``ParseError`` (NaN fails both comparisons)."""
    if not is_number(value) or not 0 <= value <= MAX_NS:
        raise ParseError(path, where, TIME, found(value))
    time: int | float = value
    return time


def interval(start: Any, end: Any, path: str, where: str) -> tuple[float, float]:
    """``[start, end]`` in ns: both times, the end at or after the start."""
    low, high = nanoseconds(start, path, where), nanoseconds(end, path, where)
    if high < low:
        raise ParseError(path, where, "an interval that ends at or after its start", f"[{start!r:.20}, {end!r:.20}]")
    return float(low), float(high)


def amount(value: Any, path: str, where: str) -> float | None:
    """Bytes, FLOPs or a count: None when absent, else a finite number >= 0."""
    if value is None:
        return None
    if not is_number(value) or not 0 <= value <= _LARGEST:
        raise ParseError(path, where, AMOUNT, found(value))
    return float(value)


def count(value: Any, path: str, where: str) -> int:
    """An instruction count: a whole number >= 0 (a float that is whole, as Parquet may store it)."""
    if not is_number(value) or not 0 <= value <= MAX_NS or value != int(value):  # NaN stops at the range
        raise ParseError(path, where, "a whole number of instructions >= 0", found(value))
    return int(value)


def name(value: Any, path: str, where: str, what: str, required: bool) -> str:
    """An operator's name (``what``: "an engine", "an HLO op name"): text. Null or empty is ``NONE``
    where ``required`` is False (an instruction of no HLO op, layer or source line), refused where it
    is True (every instruction has an engine and an opcode); a number is never made a name."""
    if isinstance(value, str) and value:
        return value
    if not required and (value is None or value == ""):
        return NONE
    expected = f"{what} (text)" if required else f"{what} (text, or null for none)"
    raise ParseError(path, where, expected, "null" if value is None else "empty text" if value == "" else found(value))
