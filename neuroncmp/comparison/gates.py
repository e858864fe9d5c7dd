"""``--fail-on`` rules for CI: ``mfu_estimated_percent<-2pp``, ``spill_reload_bytes>+10%``,
``total_time/sample>+5%``, ``hbm_read_bytes>=1.5x``.

A rule is METRIC-GLOB[/step|/sample] OP NUMBER UNIT with OP one of < <= > >= and UNIT one of
``%`` (relative change), ``pp`` (percentage points, fractions only), ``x`` (ratio variant/baseline)
or nothing (absolute change in the metric's base unit: seconds, bytes, ...). It trips when any
variant's change satisfies it. A malformed rule, or one that matches no metric, is a RuleError.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Iterable
from fnmatch import fnmatchcase

from ..catalog import closest
from ..choices import SAMPLE, SHOWN_BASES, ShownBasis, check
from ..errors import RuleError
from ..records import NamedTuple, record
from .bands import threshold_number
from .result import Cell, Comparison, Delta, Row

_RULE = re.compile(r"^\s*(?P<metric>[A-Za-z0-9_.*?\[\]-]+?)(?:/(?P<basis>step|sample))?\s*"
                   r"(?P<op><=|>=|<|>)\s*(?P<num>[+-]?(?:\d+\.?\d*|\.\d+))\s*(?P<unit>%|pp|x)?\s*$")
_OPS: dict[str, Callable[[float, float], bool]] = {
    "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


@record
class Rule(NamedTuple):
    """A parsed ``--fail-on`` rule."""

    text: str
    metric: str
    basis: ShownBasis | None
    op: str
    threshold: float
    unit: str

    def measure(self, delta: Delta) -> float | None:
        """The number this rule compares: relative %, points, ratio or absolute change."""
        if self.unit == "%":
            return None if delta.relative is None else delta.relative * 100
        if self.unit == "pp":
            return delta.points
        if self.unit == "x":
            return delta.ratio
        return delta.delta


@record
class Hit(NamedTuple):
    """One metric x variant x basis where a rule tripped, with the measured change."""

    metric: str
    variant: str
    basis: ShownBasis
    value: float
    unit: str

    def __str__(self) -> str:
        basis = "/sample" if self.basis == SAMPLE else ""
        return f"{self.metric}{basis} {self.variant}: {self.value:+.4g}{self.unit}"


@record
class GateResult(NamedTuple):
    """One rule's outcome: every metric x variant x basis where it tripped."""

    rule: Rule
    hits: tuple[Hit, ...] = ()
    skipped: tuple[str, ...] = ()  # "metric variant: why" for suspect values the rule did not judge

    @property
    def tripped(self) -> bool:
        return bool(self.hits)

    @property
    def line(self) -> str:
        """``passed --fail-on RULE`` or ``FAILED --fail-on RULE: hit; hit``, and what was not judged."""
        head = f"FAILED --fail-on {self.rule.text}: " + "; ".join(map(str, self.hits)) if self.tripped \
            else f"passed --fail-on {self.rule.text}"
        if self.skipped:
            head += f" (not evaluated, suspect input: {'; '.join(self.skipped)})"
        return head



def parse_rule(text: str) -> Rule:
    match = _RULE.match(text)
    if match is None:
        raise RuleError(f"--fail-on '{text}': expected METRIC[/sample] OP NUMBER[%|pp|x], "
                        "e.g. 'mfu_estimated_percent<-2pp' or 'total_time/sample>+5%'")
    basis = check("basis", match["basis"], SHOWN_BASES) if match["basis"] else None  # the pattern's words
    unit = match["unit"] or ""
    return Rule(text.strip(), match["metric"], basis, match["op"],
                threshold_number("--fail-on", text.strip(), match["num"], unit), unit)


def evaluate(comparison: Comparison, rules: Iterable[Rule]) -> tuple[GateResult, ...]:
    """Check every rule against every variant (over all rows, whatever a view shows)."""
    results = []
    for rule in rules:
        rows = [r for r in comparison.rows if fnmatchcase(r.name, rule.metric)]
        if not rows:
            close = closest(rule.metric, [row.name for row in comparison.rows])
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise RuleError(f"--fail-on '{rule.text}': no metric matches '{rule.metric}'{hint}")
        for row in rows:
            _check_units(rule, row)
        hits = tuple(hit for row in rows for hit in _hits(rule, row, comparison.basis))
        skipped = tuple(f"{row.name} {variant}: {suspect}" for row in rows
                        for variant, suspect in zip(row.variants, row.suspect, strict=True) if suspect is not None)
        results.append(GateResult(rule, hits, skipped))
    return tuple(results)


def _check_units(rule: Rule, row: Row) -> None:
    """pp only for percentages; a percentage's threshold must say pp or % (a bare -2 would be
    read as -200 percentage points and never trip)."""
    if rule.unit == "pp" and row.spec.kind != "fraction":
        raise RuleError(f"--fail-on '{rule.text}': pp applies to percentages only; "
                        f"{row.name} is {row.spec.kind}, use % or an absolute change")
    if rule.unit == "" and row.spec.kind == "fraction":
        raise RuleError(f"--fail-on '{rule.text}': {row.name} is a percentage: give the threshold in "
                        f"pp (percentage points, e.g. <-2pp) or % (relative change, e.g. <-5%)")


def _hits(rule: Rule, row: Row, default_basis: ShownBasis) -> list[Hit]:
    """Where the rule trips (values flagged as suspect are never judged)."""
    hits = []
    for cell in row.cells:
        if cell.suspect is not None:
            continue
        delta = _pick(cell, rule.basis or default_basis, rule)
        value = None if delta is None else rule.measure(delta)
        if delta is not None and value is not None and _OPS[rule.op](value, rule.threshold):
            hits.append(Hit(row.name, cell.variant, delta.basis, value, rule.unit))
    return hits


def _pick(cell: Cell, basis: ShownBasis, rule: Rule) -> Delta | None:
    if rule.basis == SAMPLE:
        return cell.sample  # None when the metric is intensive or batch sizes unknown
    return cell.shown(basis) if rule.basis is None else cell.step
