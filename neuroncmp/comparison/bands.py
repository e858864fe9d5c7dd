"""Noise bands: how big a change must be before it is called better or worse, per metric kind (a relative
band and an absolute floor; fractions in points AND relative), and the ``--threshold`` overrides. The
bands, their floors, their reasoning and the overrides' syntax: docs/judging.md ("Noise bands",
"Fractions"), docs/commands/diff.md (``--threshold``). Every threshold's number, here and in the gates
(``gates.py``, ``analysis/rank_runs.py``), is read by ``OPTION_NUMBER`` and checked by
``threshold_number`` (docs/limits.md): a wider band would call every change noise, so no verdict and no
gate could ever fire."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import NamedTuple

from .. import units as u
from ..catalog import MetricSpec, catalog, lookup, resolve_metric, suggestion
from ..choices import BETTER, UNCHANGED, WORSE, Verdict
from ..errors import RuleError
from ..escape import clip


class Band(NamedTuple):
    """A noise band: a change inside the relative band or under the floor is "unchanged"."""

    value: float          # a relative fraction (0.02 = 2 %) or percentage points
    points: bool = False  # True: absolute percentage points (fractions only)
    floor: float = 0.0    # absolute change in the base unit at or under which nothing changed
    floor_unit: str = ""  # the base unit of the floor (for display)
    relative: float | None = None  # points bands: the relative band a change must ALSO be inside
    level: float = 0.0    # points bands: both values at or under it (a fraction) are never scored

    def __str__(self) -> str:
        if self.points:
            text = f"{self.value:g}pp" + (f" and {self.relative * 100:g}%" if self.relative is not None else "")
            return text + (f" (both under {u.percent(self.level)}: not scored)" if self.level else "")
        relative = f"{self.value * 100:g}%"
        return f"{relative} or {setting(self.floor, self.floor_unit)}" if self.floor else relative

    def width(self) -> float:
        """The band's size on the scale changes are tested on: pp, or ln(1 + relative band)."""
        return self.value if self.points else math.log1p(self.value)

    def size(self, b: float, v: float) -> float:
        """The change ``b`` -> ``v`` in bands, a unit-free size (1 is the band's edge; docs/judging.md,
        "Ranking by change"); a change from or to zero, or across it, is infinite."""
        if b == v or self._under_level(b, v):
            return 0.0
        if not self.points:
            return _bands(_log_change(b, v), self.width())
        points = _bands(abs(v - b) * 100, self.value)
        if self.relative is None:
            return points
        return max(points, _bands(_log_change(b, v), math.log1p(self.relative)))

    def inside(self, b: float, v: float) -> bool:
        """Whether ``b`` -> ``v`` is noise: equal, under the absolute floor, or inside the band (for a
        fraction: under its level, or inside both its bands). No division, so an integer beyond a
        float's range never overflows; a NaN is outside."""
        if b == v or (self.floor and abs(v - b) <= self.floor) or self._under_level(b, v):
            return True
        if self.points and not abs(v - b) * 100 <= self.value:
            return False
        relative = self.relative if self.points else self.value
        return relative is None or _log_change(b, v) <= math.log1p(relative)

    def time_verdict(self, b: float, v: float) -> Verdict:
        """A time's verdict: unchanged inside the band, else better when lower."""
        return UNCHANGED if self.inside(b, v) else BETTER if v < b else WORSE

    def edges(self, b: float) -> tuple[float, float]:
        """The values ``v`` with ``b`` -> ``v`` inside the band, as an interval (for a chart drawn
        against it): the relative band's ``b / (1 + r)`` to ``b (1 + r)`` (ends swapped for a
        negative ``b``; for a fraction also within its points), widened to the floor. The level
        (fractions too small to score) is left out: a chart's band is the one around its values."""
        relative = self.relative if self.points else self.value
        if relative is None:
            low, high = -math.inf, math.inf
        else:
            low, high = sorted((b / (1 + relative), b * (1 + relative)))
        if self.points:
            low, high = max(low, b - self.value / 100), min(high, b + self.value / 100)
        return min(low, b - self.floor), max(high, b + self.floor)

    def _under_level(self, b: float, v: float) -> bool:
        return bool(self.points and self.level) and max(abs(b), abs(v)) <= self.level


def _log_change(b: float, v: float) -> float:
    """|ln|v| - ln|b||, infinite from or to zero and across it. Not ln(v / b): the ratio of
    5e-324 and 1e308 underflows to 0 (and math.log takes integers beyond a float's range)."""
    if b == v:
        return 0.0
    if not b or not v or (b < 0) != (v < 0):
        return math.inf
    return abs(math.log(abs(v)) - math.log(abs(b)))


def _bands(change: float, width: float) -> float:
    """``change / width``, infinite where the quotient is beyond a float."""
    try:
        return float(change) / (width or 1e-12)
    except OverflowError:
        return math.inf


def setting(value: float, unit: str) -> str:
    """A floor as a setting is written: ``1 MiB``, ``1 us``, ``0.5`` (no padding zeros)."""
    factor, label = u.pick_scale(value, unit)
    return f"{value / factor:g} {label}".strip()


# Times: 2 % or 50 ns, the floor above every move of the operators real NKI kernels run unchanged
# (docs/commands/ops.md, "The noise rule"; tests/test_band_rule.py holds it to those files).
# Fractions: 0.5 percentage points AND 5 % relative; never scored when both sides are at or under
# 0.001 % (docs/judging.md, "Fractions": the reasoning on real small-kernel profiles).
FRACTION_RELATIVE, FRACTION_LEVEL = 0.05, 1e-5
TIME_FLOOR = 50e-9
DEFAULT_BANDS: dict[str, Band] = {
    "time": Band(0.02, floor=TIME_FLOOR, floor_unit=u.SECOND), "cycles": Band(0.02),
    "bytes": Band(0.01, floor=1024, floor_unit=u.BYTE),
    "count": Band(0.01, floor=0.5, floor_unit=u.COUNT), "flop": Band(0.01),
    "fraction": Band(0.5, points=True, relative=FRACTION_RELATIVE, level=FRACTION_LEVEL),
    "intensity": Band(0.02), "rate": Band(0.02),
    "ratio": Band(0.01), "index": Band(0.0), "text": Band(0.0),
}
# Memory capacity (GiB-scale tables) moves in MiB steps: a 64 B -> 72 B row or a 0.19 MiB ring
# buffer change is noise there, while traffic per sample (KiB-scale) keeps the kind's 1 KiB floor.
_MiB = 2**20
DEFAULT_GLOB_FLOORS: dict[str, tuple[float, str]] = {
    "memory.*": (_MiB, u.BYTE), "device_memory_total": (_MiB, u.BYTE), "device_memory_workload*": (_MiB, u.BYTE),
    "host_used_memory_*": (_MiB, u.BYTE), "device_used_memory_*": (_MiB, u.BYTE)}
KINDS = tuple(DEFAULT_BANDS)
KIND_UNITS = {"time": u.SECOND, "bytes": u.BYTE, "count": u.COUNT, "cycles": u.CYCLE, "flop": u.FLOP}
# A number as a threshold or a gate writes it. Its digits are any script's decimal digits (\d), as
# float() and click's number options read them (--width 120 in Arabic-Indic digits is 120); a sign,
# an infinity and NaN are matched so that ``threshold_number`` refuses them naming the range it accepts.
OPTION_NUMBER = r"[-+]?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|(?i:inf(?:inity)?|nan))"
_SPEC = re.compile(rf"^(?:(?P<key>[^=]+)=)?\s*(?P<num>{OPTION_NUMBER})\s*(?P<unit>\S*)$")


class Override(NamedTuple):
    """One ``--threshold``: a relative band or a floor, for a kind, a metric glob or everything."""

    key: str | None
    band: Band | None = None   # a relative / points band
    floor: float | None = None  # an absolute floor in the base unit
    floor_unit: str = ""

    def __str__(self) -> str:
        return str(self.band) if self.band is not None else "floor " + setting(self.floor or 0.0, self.floor_unit)


# The widest threshold of each form: far beyond any use, and finite. "1e400%" was read as an infinite
# band (no change and no gate could fire) where "inf%" was refused. %: a relative change (10,000 %
# is a 101x ratio); pp: percentage points (a fraction spans 100); x: a ratio.
LIMITS = {"%": 10_000.0, "pp": 100.0, "x": 10_000.0}
# A floor in its kind's base unit: an hour, a pebibyte, 1e15 counts or cycles, 1e21 FLOP.
FLOOR_LIMITS = {u.SECOND: 3600.0, u.BYTE: float(2**50), u.COUNT: 1e15, u.CYCLE: 1e15, u.FLOP: 1e21}


def threshold_number(option: str, text: str, number: str | float, unit: str, signed: bool = False) -> float:
    """The number of a threshold (``--threshold``, ``--fail-on``, ``thresholds=``) as a float from 0
    (``signed``, a gate's: from minus the limit, its sign being its direction) to ``LIMITS[unit]`` (a
    floor in a base unit: ``FLOOR_LIMITS``). Anything else, NaN, an infinity and ``1e400`` included, is
    one ``RuleError`` naming the option, the text and the accepted range."""
    try:
        value = float(number)
    except OverflowError:  # an integer of 400 digits
        value = math.inf
    limit = LIMITS.get(unit, FLOOR_LIMITS.get(unit, math.inf))
    if math.isfinite(value) and abs(value) <= limit and (signed or value >= 0):
        return value
    raise RuleError(f"{option} '{clip(text, 60)}': expected {accepted(unit, signed)}")


def accepted(unit: str, signed: bool = False) -> str:
    """The numbers a threshold in ``unit`` takes, as its error says them."""
    limit = LIMITS.get(unit, FLOOR_LIMITS.get(unit, math.inf))
    if math.isinf(limit):
        return "a finite number"
    def shown(bound: float) -> str:
        return f"{bound:g}{unit}" if unit in LIMITS else setting(bound, unit)
    if signed:  # a gate: its sign is its direction
        return f"a number from -{shown(limit)} to {shown(limit)} (a gate wider than that could never trip)"
    return f"a number from {shown(0.0)} to {shown(limit)} (a wider band would call every change noise)"


def parse_band(text: str) -> Override:
    """``"5%"``, ``"fraction=1pp"``, ``"bytes=1MiB"``, ``"time=1us"``, ``"spill_*=0.5%"``."""
    match = _SPEC.match(text.strip())
    if match is None:
        raise RuleError(f"--threshold '{text}': expected [KIND|METRIC-GLOB=]NUMBER% or NUMBERpp, "
                        f"or a floor such as bytes=1MiB or time=1us (kinds: {', '.join(KINDS)})")
    key, number, unit = match.group("key"), match.group("num"), match.group("unit")
    key = key.strip() if key else None
    if key is not None and key not in KINDS:
        key = resolve_metric(key)  # an alias or a prefix, as every option that takes a metric name
    kinds = _kinds_of(key, text)
    if unit == "%":
        return Override(key, band=Band(threshold_number(_OPTION, text, number, "%") / 100))
    if unit == "pp":
        _require(kinds <= {"fraction"}, text, _points_misused(key, number))
        return Override(key, band=Band(threshold_number(_OPTION, text, number, "pp"), points=True))
    value, base = _floor(number, unit, kinds, text)
    return Override(key, floor=threshold_number(_OPTION, text, value, base), floor_unit=base)


_OPTION = "--threshold"


def _points_misused(key: str | None, number: str) -> str:
    """Why ``KEY=Npp`` is refused, naming a metric of another kind when ``key`` is a glob."""
    why = "pp (percentage points) is for fractions only"
    if key in KINDS:
        return f"{why}; give {key} a relative band such as '{key}={number}%'"
    wrong = next((spec for name, spec in catalog().items() if fnmatchcase(name, key or "")
                  and spec.kind != "fraction"), None) or lookup(key or "")
    return f"{why}, and {wrong.name} is a {wrong.kind} value; use %"


def _floor(number: str, unit: str, kinds: set[str], text: str) -> tuple[float, str]:
    """A floor in the base unit of the kinds it applies to (one base unit for them all)."""
    _require(bool(kinds), text, "expected [KIND|METRIC-GLOB=]NUMBER% or NUMBERpp; a floor needs a kind "
             "or metric: bytes=1MiB, time=1us, count=2")
    bases = {KIND_UNITS.get(kind) for kind in kinds}
    _require(len(bases) == 1 and None not in bases, text,
             f"{'/'.join(sorted(kinds))} takes a relative band (%) or points (pp), not a floor")
    base = bases.pop()
    converted = u.to_canonical(number, unit or None)
    if converted is None:
        raise RuleError(f"--threshold '{text}': unknown unit '{unit}'")
    value, canonical = converted
    _require(canonical == base or not unit, text, f"'{unit}' does not fit {'/'.join(sorted(kinds))} "
             f"(use {base}-based units, e.g. bytes=1MiB, time=1us)")
    return float(value), str(base)


def _require(condition: bool, text: str, why: str) -> None:
    if not condition:
        raise RuleError(f"--threshold '{text}': {why}")


def _kinds_of(key: str | None, text: str) -> set[str]:
    """The metric kinds ``key`` names: a kind, or the kinds of the metrics a glob matches."""
    if key is None:
        return set()
    if key in KINDS:
        return {key}
    specs = [spec for name, spec in catalog().items() if fnmatchcase(name, key)]
    if not specs and not any(char in key for char in "*?[") and lookup(key).catalogued:
        return {lookup(key).kind}  # a per-core or memory metric the catalog knows by pattern
    if not specs and key.startswith(("memory.", "throttle_")):
        return {"bytes"} if key.startswith("memory.") else {"time", "fraction"}
    if not specs:
        raise RuleError(f"--threshold '{text}': '{key}' is neither a kind ({', '.join(KINDS)}) nor "
                        f"a metric or glob matching one{suggestion(key, [*KINDS, *catalog()])}")
    return {spec.kind for spec in specs}


@dataclass(frozen=True, init=False)
class Bands:
    """Band lookup: metric glob overrides, then kind overrides, then a global one, then defaults.
    Immutable, like the comparison that holds it."""

    overrides: tuple[Override, ...]

    def __init__(self, specs: Iterable[str] = ()) -> None:
        object.__setattr__(self, "overrides", tuple(parse_band(text) for text in specs))

    def band(self, spec: MetricSpec) -> Band:
        band = self.for_kind(spec.kind)
        for glob, (floor, unit) in DEFAULT_GLOB_FLOORS.items():
            if fnmatchcase(spec.name, glob):
                band = band._replace(floor=floor, floor_unit=unit)
        for override in self.overrides:
            if override.key is not None and override.key not in KINDS and fnmatchcase(spec.name, override.key):
                band = _apply(band, override, spec.kind)
        return band

    def for_kind(self, kind: str) -> Band:
        band = DEFAULT_BANDS.get(kind, Band(0.01))
        for override in self.overrides:  # global first, then the kind's own, in order given
            if override.key is None and override.band is not None and _fits(override.band, kind):
                band = _apply(band, override, kind)
        for override in self.overrides:
            if override.key == kind:
                band = _apply(band, override, kind)
        return band

    def describe(self) -> dict[str, str]:
        """The bands in force per kind, then per metric glob (shown in every output's footer)."""
        out = {kind: str(self.for_kind(kind)) for kind in KINDS if kind not in ("text", "index")}
        for glob, (floor, unit) in DEFAULT_GLOB_FLOORS.items():
            out[glob] = f"floor {setting(floor, unit)}"
        for override in self.overrides:
            if override.key not in (None, *KINDS):
                out[str(override.key)] = str(override)
        return out


def _apply(band: Band, override: Override, kind: str) -> Band:
    """``band`` with the override's relative band or floor in place of its own. A fraction's band
    has two parts: ``pp`` replaces its points, ``%`` its relative band, the other part stays."""
    if override.band is not None and band.points:
        if override.band.points:
            return band._replace(value=override.band.value)
        return band._replace(relative=override.band.value)
    if override.band is not None:
        return override.band._replace(floor=band.floor, floor_unit=band.floor_unit)
    return band._replace(floor=override.floor or 0.0, floor_unit=override.floor_unit)


def _fits(band: Band, kind: str) -> bool:
    """A global band applies where its kind fits: pp to fractions, % to everything else."""
    return band.points == (kind == "fraction")
