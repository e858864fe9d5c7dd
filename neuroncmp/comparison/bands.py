"""Noise bands: how big a change must be before it is called better or worse.

Defaults per metric kind (documented in the README); ``--threshold`` overrides them globally
(``5%``), per kind (``time=2%``, ``fraction=1pp``) or per metric glob (``spill_*=0.5%``).
Relative bands are tested on |ln(variant / baseline)| so swapping the sides never moves a row
across the band; fraction bands are absolute percentage points.
"""

from __future__ import annotations

import re
from fnmatch import fnmatchcase
from dataclasses import dataclass
from typing import Iterable

from ..catalog import MetricSpec
from ..errors import RuleError


@dataclass(frozen=True, slots=True)
class Band:
    """A noise band: a change inside it is "unchanged"."""

    value: float        # a relative fraction (0.02 = 2 %) or percentage points
    points: bool = False  # True: absolute percentage points (fractions only)

    def __str__(self) -> str:
        return f"{self.value:g}pp" if self.points else f"{self.value * 100:g}%"


DEFAULT_BANDS: dict[str, Band] = {
    "time": Band(0.02), "cycles": Band(0.02), "bytes": Band(0.01), "count": Band(0.01),
    "flop": Band(0.01), "fraction": Band(0.5, points=True), "intensity": Band(0.02),
    "rate": Band(0.02), "ratio": Band(0.01), "index": Band(0.0), "text": Band(0.0),
}
KINDS = tuple(DEFAULT_BANDS)
_SPEC = re.compile(r"^(?:(?P<key>[^=]+)=)?(?P<num>[0-9]+(?:\.[0-9]*)?|\.[0-9]+)\s*(?P<unit>%|pp)$")


def parse_band(text: str) -> tuple[str | None, Band]:
    """``"5%"`` -> (None, 5 %); ``"fraction=1pp"`` -> ("fraction", 1 pp)."""
    match = _SPEC.match(text.strip())
    if match is None:
        raise RuleError(f"--threshold '{text}': expected [KIND|METRIC-GLOB=]NUMBER% or NUMBERpp "
                        f"(kinds: {', '.join(KINDS)})")
    value = float(match.group("num"))
    band = Band(value, points=True) if match.group("unit") == "pp" else Band(value / 100)
    key = match.group("key")
    if key in KINDS and band.points and key != "fraction":
        raise RuleError(f"--threshold '{text}': pp (percentage points) is for fractions only; "
                        f"give {key} a relative band such as '{key}={value:g}%'")
    return key, band


class Bands:
    """Band lookup: metric glob overrides, then kind overrides, then a global one, then defaults."""

    def __init__(self, specs: Iterable[str] = ()) -> None:
        self.by_glob: dict[str, Band] = {}
        self.by_kind: dict[str, Band] = {}
        self.everywhere: Band | None = None
        for text in specs:
            key, band = parse_band(text)
            if key is None:
                self.everywhere = band
            elif key in KINDS:
                self.by_kind[key] = band
            else:
                self.by_glob[key] = band

    def band(self, spec: MetricSpec) -> Band:
        for glob, band in self.by_glob.items():
            if fnmatchcase(spec.name, glob):
                return band
        return self.for_kind(spec.kind)

    def for_kind(self, kind: str) -> Band:
        if kind in self.by_kind:
            return self.by_kind[kind]
        if self.everywhere is not None and _fits(self.everywhere, kind):
            return self.everywhere
        return DEFAULT_BANDS.get(kind, Band(0.01))

    def check(self, specs: Iterable[MetricSpec]) -> None:
        """Refuse ``--threshold`` globs that match no metric of the comparison (a typo such as
        ``tme=5%`` would otherwise change nothing, silently), and pp bands on metrics that are
        not fractions."""
        specs = list(specs)
        for glob, band in self.by_glob.items():
            matched = [spec for spec in specs if fnmatchcase(spec.name, glob)]
            if not matched:
                raise RuleError(f"--threshold '{glob}={band}': '{glob}' is neither a kind "
                                f"({', '.join(KINDS)}) nor a glob matching a metric being compared")
            wrong = next((spec for spec in matched if band.points and spec.kind != "fraction"), None)
            if wrong is not None:
                raise RuleError(f"--threshold '{glob}={band}': pp (percentage points) is for fractions "
                                f"only, and {wrong.name} is a {wrong.kind} value; use %")

    def describe(self) -> dict[str, str]:
        """The band in force per kind, then per metric glob (shown in every output's footer)."""
        out = {kind: str(self.for_kind(kind)) for kind in KINDS if kind not in ("text", "index")}
        out.update({glob: str(band) for glob, band in self.by_glob.items()})
        return out


def _fits(band: Band, kind: str) -> bool:
    """A global band applies where its kind fits: pp to fractions, % to everything else."""
    return band.points == (kind == "fraction")
