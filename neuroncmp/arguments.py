"""Checks of option values and API arguments: one set, used by the CLI and the library alike.

Each check takes the argument's name as the caller knows it (``--peak-tflops`` on the command
line, ``peak_flops`` in Python), returns the value in its plain type, and raises ``UsageError``
naming the argument and what it accepts. They run before anything is read or written, so a bad
value never reaches the arithmetic (NaN passes every ``> 0`` test; ``1e308`` squared overflows) or
a file (a tag of the wrong type used to fail in the Parquet write, after the copies were made).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from datetime import datetime
from os import PathLike
from typing import Any

from .errors import UsageError
from .escape import clip


def shown(name: str, value: Any) -> str:
    """``--width '80'`` for an option, ``width='80'`` for an argument (escaped, cut short)."""
    text = clip(repr(value), 60)
    return f"{name} {text}" if name.startswith("-") else f"{name}={text}"


def _kind(value: Any) -> str:
    return type(value).__name__


# The hardware numbers a user may give (per NeuronCore, base units): (above, at most, unit). The top is
# far beyond any instance, yet small enough that no product or square the models take of them can
# overflow a float; the floor of the peaks is a millionth of any instance's (0.001 TFLOP/s, 0.001 GB/s):
# below it an ideal time is hours of a real step's work (1e-300 made every ideal time infinite).
OVERRIDES = {"price_per_hour": (0.0, 1e6, " USD"), "hbm_per_core": (0.0, 2.0 ** 50, " bytes"),
             "peak_flops": (1e9, 1e18, " FLOP/s"), "hbm_bandwidth": (1e6, 1e15, " bytes/s"),
             "dma_bandwidth": (1e6, 1e15, " bytes/s")}
TEXT_WIDTHS = (40, 400)  # a terminal text's width in columns: --width, and text(width=) in Python


def override(name: str, value: Any, shown_as: str | None = None, scale: float = 1.0, unit: str | None = None) -> float:
    """One of ``OVERRIDES`` checked by ``number``, returned as given: ``shown_as`` the option's name,
    ``scale`` base units per unit given and ``unit`` its name (``1e12``, `` TFLOP/s`` for ``--peak-tflops``)."""
    low, high, base = OVERRIDES[name]
    return number(shown_as or name, value, low / scale, high / scale, base if unit is None else unit)


def number(name: str, value: Any, low: float, high: float, unit: str = "") -> float:
    """A finite real number in ``(low, high]`` (``low`` excluded: 0 is never a size or a rate)."""
    result = _real(name, value)
    if not (low < result <= high):  # NaN fails both comparisons
        raise UsageError(f"{shown(name, value)}: expected a number above {low:g}{unit if low else ''} and at "
                         f"most {high:g}{unit}")
    return result


def fraction_floor(name: str, value: Any, high: float) -> float:
    """A finite number in ``[0, high]`` (a threshold that may be zero: ``--min-change 0``)."""
    result = _real(name, value)
    if not (0 <= result <= high):
        raise UsageError(f"{shown(name, value)}: expected a number from 0 to {high:g}")
    return result


def _real(name: str, value: Any) -> float:
    """A real number (not a bool) as a float; an integer beyond a float's range is an infinity."""
    from numbers import Real  # here: a diff checks no number

    if isinstance(value, bool) or not isinstance(value, Real):
        raise UsageError(f"{shown(name, value)}: expected a number, found {_kind(value)}")
    try:
        return float(value)
    except (OverflowError, ValueError):
        return math.inf


def integer(name: str, value: Any, low: int, high: int) -> int:
    """A whole number (not a bool, not a float, not a string) in ``[low, high]``."""
    from numbers import Integral

    if isinstance(value, bool) or not isinstance(value, Integral):
        raise UsageError(f"{shown(name, value)}: expected a whole number, found {_kind(value)}")
    if not low <= int(value) <= high:
        raise UsageError(f"{shown(name, value)}: expected a whole number from {low} to {high}")
    return int(value)


def choice(name: str, value: Any, allowed: Iterable[str]) -> str:
    """One of ``allowed``; a misspelling names the closest (``basis='smaple'``: did you mean 'sample'?)."""
    options = list(allowed)
    if isinstance(value, str) and value in options:
        return value
    hint = ""
    if isinstance(value, str):
        from difflib import get_close_matches

        near = get_close_matches(value, options, n=1)
        hint = f" (did you mean {near[0]!r}?)" if near else ""
    raise UsageError(f"{shown(name, value)}: expected one of {', '.join(options)}{hint}")


def optional_text(name: str, value: Any) -> str | None:
    if value is not None and not isinstance(value, str):
        raise UsageError(f"{shown(name, value)}: expected a string or None, found {_kind(value)}")
    return value


def flag(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise UsageError(f"{shown(name, value)}: expected True or False, found {_kind(value)}")
    return value


def texts(name: str, value: Any) -> tuple[str, ...]:
    """Strings: a list (or any iterable) of them; one string alone counts as one."""
    if isinstance(value, str):
        return (value,)
    if isinstance(value, (bytes, Mapping)) or not isinstance(value, Iterable):
        raise UsageError(f"{shown(name, value)}: expected a list of strings, found {_kind(value)}")
    items = tuple(value)
    for index, item in enumerate(items):
        if not isinstance(item, str):
            raise UsageError(f"{shown(f'{name}[{index}]', item)}: expected a string, found {_kind(item)}")
    return items


def string_map(name: str, value: Any) -> dict[str, str]:
    """A mapping of non-empty string keys to string values (tags, ``where``)."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise UsageError(f"{shown(name, value)}: expected a mapping of strings to strings, "
                         f"found {_kind(value)}")
    for key, item in value.items():
        if not isinstance(key, str) or not key.strip():
            raise UsageError(f"{shown(name, key)}: expected each key to be a non-empty string")
        if not isinstance(item, str):
            raise UsageError(f"{shown(f'{name}[{key!r}]', item)}: expected a string, found {_kind(item)}")
    return dict(value)


def path(name: str, value: Any) -> Any:
    """A non-empty ``str`` or ``os.PathLike`` (a ``Path``)."""
    if not isinstance(value, (str, PathLike)) or not str(value):
        raise UsageError(f"{shown(name, value)}: expected a path (a non-empty str or Path), "
                         f"found {_kind(value)}")
    return value


def moment(name: str, value: Any) -> str | datetime | None:
    """None, an ISO 8601 string or a ``datetime`` (parsed by the store's ``times``)."""
    if value is not None and not isinstance(value, (str, datetime)):
        raise UsageError(f"{shown(name, value)}: expected an ISO 8601 time (2024-05-01T02:00:00Z) "
                         f"or a datetime, found {_kind(value)}")
    return value
