"""Two runs of one distributed step compared by their distributions across ranks, not their means,
and tail gates on them (``p90>+5%``): docs/commands/ranks.md ("Two runs")."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..comparison.bands import OPTION_NUMBER, Band, threshold_number
from ..errors import RuleError
from .ranks import COLLECTIVES, OUTSIDE, STEP, RanksAnalysis

STATS = ("median", "p90", "max")
QUANTITIES = {"step": STEP, "collectives": COLLECTIVES, "outside": OUTSIDE}
_GATE = re.compile(rf"^\s*(?:(?P<quantity>[a-z]+)\.)?(?P<stat>[a-z0-9]+)\s*>\s*(?P<num>{OPTION_NUMBER})\s*%\s*$")


@dataclass(frozen=True, slots=True)
class StatChange:
    """One statistic of one quantity, baseline run -> variant run."""

    quantity: str
    stat: str
    baseline: float
    variant: float
    verdict: str

    @property
    def relative(self) -> float | None:
        return self.variant / self.baseline - 1 if self.baseline else None


@dataclass(frozen=True, slots=True)
class TailGate:
    """A parsed tail gate: ``text`` as given, the quantity, the statistic and the limit (a fraction)."""

    text: str
    quantity: str
    stat: str
    limit: float


@dataclass(frozen=True, slots=True)
class GateOutcome:
    gate: TailGate
    change: StatChange | None   # None: the quantity is in neither run (not judged)

    @property
    def tripped(self) -> bool:
        relative = None if self.change is None else self.change.relative
        return relative is not None and relative > self.gate.limit


@dataclass(frozen=True, slots=True)
class RunsComparison:
    """The baseline run's and the variant run's ranks, and the statistics' changes."""

    baseline: RanksAnalysis
    variant: RanksAnalysis
    changes: tuple[StatChange, ...]
    band: Band

    def change(self, quantity: str, stat: str) -> StatChange | None:
        return next((c for c in self.changes if c.quantity == quantity and c.stat == stat), None)


def compare_runs(baseline: RanksAnalysis, variant: RanksAnalysis, band: Band) -> RunsComparison:
    changes = []
    for quantity in (STEP, COLLECTIVES, OUTSIDE):
        before, after = baseline.spreads.get(quantity), variant.spreads.get(quantity)
        if before is None or after is None:
            continue
        for stat in STATS:
            b, v = getattr(before, stat), getattr(after, stat)  # STATS are Spread's fields
            changes.append(StatChange(quantity, stat, b, v, band.time_verdict(b, v)))
    return RunsComparison(baseline, variant, tuple(changes), band)


def parse_gate(text: str) -> TailGate:
    match = _GATE.match(text)
    quantity = (match["quantity"] or "step") if match else ""
    if match is None or match["stat"] not in STATS or quantity not in QUANTITIES:
        raise RuleError(f"--fail-on {text!r}: expected [QUANTITY.]STAT>+N% with STAT one of "
                        f"{', '.join(STATS)} and QUANTITY one of {', '.join(QUANTITIES)} "
                        "(e.g. 'p90>+5%', 'collectives.max>+10%')")
    limit = threshold_number("--fail-on", text.strip(), match["num"], "%", signed=True) / 100
    return TailGate(text.strip(), QUANTITIES[quantity], match["stat"], limit)


def judge(comparison: RunsComparison, gates: tuple[TailGate, ...]) -> tuple[GateOutcome, ...]:
    return tuple(GateOutcome(gate, comparison.change(gate.quantity, gate.stat)) for gate in gates)
