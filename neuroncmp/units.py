"""Units: display-string parsing, human formatting and the package's one pint registry.

Values are stored as plain magnitudes in a canonical unit (``"s"``, ``"B"``, ``"FLOP"``, ...);
pint is imported only when a caller asks for a Quantity (``registry()``), because importing
pint (and numpy with it) costs ten times Python's own start-up and the CLI must feel instant.
The conversion tables below are checked against the pint registry in ``tests/test_units.py``.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any, TypeGuard

if TYPE_CHECKING:
    from decimal import Decimal

# Canonical units used by the catalog. Each is a pint expression valid in ``registry()``.
SECOND, BYTE, FLOP, CYCLE, COUNT, FRACTION = "s", "B", "FLOP", "cycle", "count", "fraction"
INTENSITY, FLOP_RATE, BYTE_RATE, SAMPLE_RATE, STEP_RATE = (
    "FLOP/B", "FLOP/s", "B/s", "sample/s", "step/s")
HERTZ, DIMENSIONLESS, TEXT = "Hz", "dimensionless", "text"
NUMERIC_UNITS = (SECOND, BYTE, FLOP, CYCLE, COUNT, FRACTION, INTENSITY, FLOP_RATE, BYTE_RATE,
                 SAMPLE_RATE, STEP_RATE, HERTZ, DIMENSIONLESS)

_KI = 1024
# Display token -> (canonical unit, factor as a Decimal string, pint expression of the token).
# "GFLOPS" in profiler exports is a FLOP *count* (model_flops), not a rate: see formats.md 5.
DISPLAY_UNITS: dict[str, tuple[str, str, str]] = {
    "ns": (SECOND, "1e-9", "ns"), "us": (SECOND, "1e-6", "us"), "µs": (SECOND, "1e-6", "us"),
    "ms": (SECOND, "1e-3", "ms"), "s": (SECOND, "1", "s"), "min": (SECOND, "60", "min"),
    "h": (SECOND, "3600", "hour"),
    "B": (BYTE, "1", "B"), "KiB": (BYTE, str(_KI), "KiB"), "MiB": (BYTE, str(_KI**2), "MiB"),
    "GiB": (BYTE, str(_KI**3), "GiB"), "TiB": (BYTE, str(_KI**4), "TiB"),
    "kB": (BYTE, "1e3", "kB"), "KB": (BYTE, "1e3", "kB"), "MB": (BYTE, "1e6", "MB"),
    "GB": (BYTE, "1e9", "GB"), "TB": (BYTE, "1e12", "TB"),
    "FLOP": (FLOP, "1", "FLOP"), "FLOPS": (FLOP, "1", "FLOP"),
    "KFLOPS": (FLOP, "1e3", "kFLOP"), "MFLOPS": (FLOP, "1e6", "MFLOP"),
    "GFLOPS": (FLOP, "1e9", "GFLOP"), "TFLOPS": (FLOP, "1e12", "TFLOP"),
    "PFLOPS": (FLOP, "1e15", "PFLOP"),
    "%": (FRACTION, "0.01", "percent"),
    "flops/byte": (INTENSITY, "1", "FLOP/B"), "FLOP/B": (INTENSITY, "1", "FLOP/B"),
    "cycles": (CYCLE, "1", "clock_cycle"),
}
# neuron-top and runtime logs print KB/MB/GB for binary multiples (formats.md 6).
_BINARY_SI = {"KB": "KiB", "kB": "KiB", "MB": "MiB", "GB": "GiB", "TB": "TiB"}

# One way to match each number, so matching is linear in the text (no backtracking blow-up).
NUMBER = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?", re.ASCII)
_WHOLE_UNITS = (BYTE, FLOP, CYCLE, COUNT)  # whole by nature: a display rounding leaves a fraction we drop
FLOAT_DIGITS = 308  # a float ends near 1.8e308: larger magnitudes are read as an infinity


def to_canonical(number: str, token: str | None, *, binary_si: bool = False) -> tuple[int | float, str] | None:
    """Convert ``number`` in display unit ``token`` to (magnitude, canonical unit), or None.

    Decimal arithmetic keeps ``114.7 ms`` exactly ``0.1147`` s; byte, FLOP, cycle and count
    magnitudes that come out whole are returned as ``int``.
    """
    if token is None or token == "":
        return plain_number(number), COUNT
    if binary_si and token in _BINARY_SI:
        token = _BINARY_SI[token]
    entry = DISPLAY_UNITS.get(token)
    if entry is None:
        return None
    unit, factor, _ = entry
    from decimal import Decimal, InvalidOperation  # here: a cold start that reads no display unit skips it

    try:
        value = Decimal(number)
    except InvalidOperation:
        return None
    scale = Decimal(factor)
    if value.is_finite() and value and value.adjusted() + scale.adjusted() >= FLOAT_DIGITS:
        return (math.inf if value > 0 else -math.inf), unit  # beyond a float; Decimal would take seconds
    return _tidy(value * scale, unit), unit


def plain_number(number: str) -> int | float:
    """A number's text (as ``NUMBER`` matches it, or a JSON integer's) as a number: an integer of up
    to 300 characters as an int, its exact value; a longer one, like any other number, as a float
    (an infinity beyond a float's range, flagged by validation) rather than a number no formatter
    or ratio can handle."""
    if number.lstrip("+-").isdigit() and len(number) <= FLOAT_DIGITS - 8:
        return int(number)
    return float(number)


def _tidy(value: Decimal, unit: str) -> int | float:
    if not value.is_finite() or (value and value.adjusted() >= FLOAT_DIGITS):
        return float(value) if value.is_nan() else math.inf if value > 0 else -math.inf
    # Bytes, FLOPs and cycles are whole by nature; a display rounding leaves a fraction we drop.
    if unit in _WHOLE_UNITS:
        return int(value.to_integral_value())
    return float(value)


def parse_display(text: str, *, binary_si: bool = False) -> tuple[int | float, str] | None:
    """A display-formatted value (``"3.979 GiB"``, ``"4.9GB"``, a bare ``"12"``) as (magnitude,
    canonical unit); None for anything else."""
    text = text.strip()
    match = NUMBER.match(text)
    if not match:
        return None
    unit = text[match.end():].lstrip()
    if unit[:1].isdecimal():
        return None  # "12 34": two numbers, not a number and a unit
    return to_canonical(match.group(), unit or None, binary_si=binary_si)


# ---- human formatting (no pint: this runs on the CLI's terminal path) -------------------------

_SCALES: dict[str, list[tuple[float, str]]] = {
    SECOND: [(1e-9, "ns"), (1e-6, "us"), (1e-3, "ms"), (1.0, "s")],
    BYTE: [(1.0, "B"), (_KI, "KiB"), (_KI**2, "MiB"), (_KI**3, "GiB"), (_KI**4, "TiB")],
    FLOP: [(1.0, "FLOP"), (1e3, "KFLOP"), (1e6, "MFLOP"), (1e9, "GFLOP"), (1e12, "TFLOP"),
           (1e15, "PFLOP")],
    FLOP_RATE: [(1.0, "FLOP/s"), (1e9, "GFLOP/s"), (1e12, "TFLOP/s")],
    BYTE_RATE: [(1.0, "B/s"), (1e9, "GB/s")],
    HERTZ: [(1.0, "Hz"), (1e6, "MHz"), (1e9, "GHz")],
}
_PERCENT = (0.01, "%")  # a fraction's scale
_SHORT_UNITS = (COUNT, CYCLE, DIMENSIONLESS)  # written short (``160.6M``) from 100,000
_SUFFIX = {FRACTION: "%", INTENSITY: "FLOP/B", SAMPLE_RATE: "samples/s", STEP_RATE: "steps/s",
           CYCLE: "cycles"}


def pick_scale(value: float, unit: str) -> tuple[float, str]:
    """The (factor, label) a column of ``unit`` should use, chosen from a reference ``value``."""
    if unit == FRACTION:
        return _PERCENT
    scales = _SCALES.get(unit)
    if not scales:
        return 1.0, _SUFFIX.get(unit, "")
    return next((scale for scale in reversed(scales) if abs(value) >= scale[0]), scales[0])  # the largest reached


def significant(number: float, digits: int = 4) -> str:
    """``114.7``, ``279.0``, ``20.39``, ``0.5000``: ``digits`` significant figures, trailing zeros
    kept (a column reads at one precision), no exponent below 1e15; whole numbers of more digits
    than ``digits`` in full (``61105``)."""
    if number == 0:
        return "0"
    if not is_finite(number):
        return non_finite(as_float(number))
    text = f"{number:#.{digits}g}"
    if "e" in text:  # expanded between 1e-9 and 1e15; beyond, an exponent beats 20 zeros
        text = _expand(number, digits) if 1e-9 <= abs(number) < 1e15 else f"{number:.{max(digits - 1, 0)}e}"
    return text.removesuffix(".")  # "2551." -> "2551"


def percent(share: float) -> str:
    """A threshold or a setting as its messages print it: ``0.25`` -> ``25 %`` (the constant is the one
    place the number lives; a message reads it through this, never restates it)."""
    return f"{share * 100:g} %"


def counted(number: int, noun: str) -> str:
    """``no ops``, ``1 op``, ``14 ops``: a count of things in words (a noun whose plural adds an s)."""
    return f"no {noun}s" if number == 0 else f"{number} {noun}{'' if number == 1 else 's'}"


def _expand(number: float, digits: int) -> str:
    exponent = int(f"{abs(number):e}".split("e")[1])
    decimals = max(digits - 1 - exponent, 0)
    return f"{number:.{decimals}f}"


def is_finite(number: float) -> bool:
    """``math.isfinite`` that says False, not OverflowError, for an integer beyond a float's range."""
    try:
        return math.isfinite(number)
    except OverflowError:  # an integer beyond a float's range
        return False


def is_number(value: object) -> TypeGuard[int | float]:
    """A number as read: an int or a float, not a bool (True is no measurement); NaN, infinities and
    integers beyond a float's range included (``finite_number`` leaves them out)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def text_or_none(value: object) -> str | None:
    """A text as read (a manifest's or a metric's string), else None."""
    return value if isinstance(value, str) else None


def finite_number(value: object) -> TypeGuard[int | float]:
    """A number a sum, a ratio, a median or a fit can use: ``is_number``, neither NaN nor an
    infinity nor an integer beyond a float's range (each an anomaly the profile shows)."""
    return is_number(value) and is_finite(value)


def positive_number(value: object) -> TypeGuard[int | float]:
    """A finite number above zero: the only kind an estimate, a rate or a roof can be built from (0 or
    an infinity, from 1e400 or from dividing by 5e-324, would put a zero or an infinity in it)."""
    return finite_number(value) and value > 0


def as_float(number: float) -> float:
    """``number`` as a float; an integer beyond a float's range becomes an infinity of its sign."""
    try:
        return float(number)
    except OverflowError:
        return math.inf if number > 0 else -math.inf


def non_finite(number: float) -> str:
    """``NaN``, ``inf`` or ``-inf``: how every view writes a value that is not a finite number."""
    return "NaN" if number != number else "inf" if number > 0 else "-inf"


def format_value(value: Any, unit: str, scale: tuple[float, str] | None = None, *,
                 with_unit: bool = True) -> str:
    """Human text for a canonical magnitude, the one formatter of every view (show and diff alike).

    ``0.1147, "s"`` -> ``"114.7 ms"``; 4 significant figures in the scale ``pick_scale`` chooses
    (or ``scale``, so a column reads in one unit); counts, cycles and plain ratios of 100,000 or
    more in short form (``160.6M``); ``with_unit=False`` leaves the unit to a column title.
    """
    if value is None:
        return "-"
    if isinstance(value, str) or unit == TEXT:
        return str(value)
    if not is_finite(value):
        return non_finite(as_float(value))
    if unit in _SHORT_UNITS and abs(value) >= 1e5:
        return compact(value)
    factor, label = scale or (_PERCENT if unit == FRACTION else pick_scale(value, unit))
    whole = isinstance(value, int) and factor == 1 and abs(value) < 1e15
    text = str(value) if whole else significant(value / factor)
    return f"{text} {label}" if with_unit and label else text


def compact(value: float) -> str:
    """``2489194`` -> ``2.489M``: large counts in narrow columns."""
    for factor, suffix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= factor:
            return significant(value / factor) + suffix
    return significant(value)


# ---- pint, on demand ---------------------------------------------------------------------------

_DEFINITIONS = (
    "FLOP = [flop] = flop",
    "clock_cycle = [clock_cycle] = cycle_count",
    "sample = [sample]",
    "step = [step]",
    "fraction = 1 = frac",
)


@lru_cache(maxsize=1)
def registry() -> Any:
    """The package's single pint UnitRegistry, built on first use (pint's docs: create it once).

    pint ships ``bit = []`` (dimensionless), so bytes could be added to a percent. We load
    pint's own definitions with ``bit`` given an ``[information]`` dimension instead.
    """
    from importlib import resources

    import pint

    package = resources.files("pint")
    text = package.joinpath("default_en.txt").read_text(encoding="utf-8")
    constants = package.joinpath("constants_en.txt").read_text(encoding="utf-8")
    text = text.replace("\nbit = []\n", "\nbit = [information]\n")
    text = text.replace("@import constants_en.txt", constants)
    ureg: Any = pint.UnitRegistry(None, cache_folder=None)
    ureg.load_definitions(text.splitlines())
    for definition in _DEFINITIONS:
        ureg.define(definition)
    return ureg


def pint_unit(unit: str) -> str:
    """The pint expression of a canonical unit name (``cycle`` clashes with pint's angle)."""
    return {CYCLE: "clock_cycle", TEXT: "dimensionless"}.get(unit, unit)


def quantity(value: float, unit: str) -> Any:
    """A pint Quantity for a canonical magnitude."""
    ureg = registry()
    return ureg.Quantity(value, pint_unit(unit))
