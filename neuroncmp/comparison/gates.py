"""``--fail-on`` rules for CI (``mfu_estimated_percent<-2pp``, ``total_time/sample>+5%``): the form
METRIC-GLOB[/step|/sample] OP NUMBER UNIT and what each unit measures: docs/commands/diff.md ("Gates"). A
rule trips when any variant's change satisfies it; a malformed rule, or one that matches no metric, is a
RuleError."""

from __future__ import annotations

import operator
import re
from collections import Counter
from collections.abc import Callable, Iterable
from fnmatch import fnmatchcase
from typing import NamedTuple

from ..catalog import NAMED_FORM, resolve_metric, split_basis, suggestion
from ..choices import SAMPLE, SHOWN_BASES, STEP, ShownBasis
from ..errors import RuleError
from ..units import counted
from .bands import OPTION_NUMBER, threshold_number
from .result import Comparison, Delta, Row

_RULE = re.compile(r"^\s*(?P<metric>[A-Za-z0-9_.*?\[\]/-]+?)\s*"
                   rf"(?P<op><=|>=|<|>)\s*(?P<num>{OPTION_NUMBER})\s*(?P<unit>%|pp|x)?\s*$")
_OPS: dict[str, Callable[[float, float], bool]] = {
    "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


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
        return {"pp": delta.points, "x": delta.ratio}.get(self.unit, delta.delta)

    def per(self, basis: ShownBasis) -> Rule:
        """The same rule in ``basis``: ``total_time>+5%`` -> ``total_time/step>+5%``."""
        cut = len(self.metric)  # the text begins with the metric (stripped, the pattern anchored)
        return self._replace(text=f"{self.text[:cut]}/{basis}{self.text[cut:]}", basis=basis)


class Hit(NamedTuple):
    """One metric x variant x basis where a rule tripped, with the measured change."""

    metric: str
    variant: str
    basis: ShownBasis
    value: float
    unit: str
    extensive: bool = False  # the metric has a per-sample value too: its per-step hit says "/step"

    def __str__(self) -> str:
        basis = "/sample" if self.basis == SAMPLE else "/step" if self.extensive else ""
        return f"{self.metric}{basis} {self.variant}: {self.value:+.4g}{self.unit}"


HITS_SHOWN = 3  # of the rule per step beside a per-sample one: the first few (JSON lists every one)


class GateResult(NamedTuple):
    """One rule's outcome: every metric x variant x basis where it tripped, and the basis each metric
    was judged in. ``chosen``: why the comparison chose that basis when the rule named none and a
    metric was judged per sample (batch sizes differ); ``other`` is then the same rule per step
    (``METRIC/step``) and ``other_hits`` where it trips, said beside the outcome, never gating."""

    rule: Rule
    hits: tuple[Hit, ...] = ()
    skipped: tuple[str, ...] = ()  # "metric variant: why" for suspect values the rule did not judge
    judged: tuple[tuple[str, ShownBasis], ...] = ()  # each metric the rule matched, and its basis
    chosen: str = ""
    other: Rule | None = None
    other_hits: tuple[Hit, ...] = ()

    def __repr__(self) -> str:
        return f"<GateResult {self.rule.text}: {'tripped' if self.tripped else 'passed'}, judged {self.bases}>"

    @property
    def tripped(self) -> bool:
        return bool(self.hits)

    @property
    def bases(self) -> str:
        """``per sample``, ``per step``, or both with their counts of metrics."""
        counts = Counter(basis for _, basis in self.judged)
        if not counts:
            return "nothing"
        if len(counts) == 1:
            return f"per {next(iter(counts))}"
        return ", ".join(f"per {basis} for {counted(counts[basis], 'metric')}"
                         for basis in SHOWN_BASES[::-1] if basis in counts)

    @property
    def line(self) -> str:
        """``passed --fail-on RULE (judged per ...)`` or ``FAILED --fail-on RULE: hit; hit (judged
        per ...)``; the rule per step when the basis was chosen for the user, and what was not judged."""
        head = f"FAILED --fail-on {self.rule.text}: " + "; ".join(map(str, self.hits)) if self.tripped \
            else f"passed --fail-on {self.rule.text}"
        named = self.judged[0][0] if len(self.judged) == 1 and self.judged[0][0] != self.rule.metric else ""
        basis = f"judged {named + ' ' if named else ''}{self.bases}"  # the name an alias or prefix resolved to
        if self.other is not None:
            shown = "; ".join(map(str, self.other_hits[:HITS_SHOWN]))
            more = f"; ... ({len(self.other_hits) - HITS_SHOWN} more)" if len(self.other_hits) > HITS_SHOWN else ""
            outcome = f"it trips: {shown}{more}" if self.other_hits else "it passes"
            basis += f", as {self.chosen}; per step, '{self.other.text}', {outcome}"
        head += f" ({basis})"
        if self.skipped:
            head += f" (not evaluated, suspect input: {'; '.join(self.skipped)})"
        return head


def parse_rule(text: str) -> Rule:
    match = _RULE.match(text)
    if match is None:
        raise RuleError(f"--fail-on '{text}': expected {NAMED_FORM} OP NUMBER[%|pp|x], "
                        "e.g. 'mfu_estimated_percent<-2pp' or 'total_time/sample>+5%'")
    metric, basis = split_basis(match["metric"])  # the one reading of METRIC[/step|/sample]
    unit = match["unit"] or ""
    return Rule(text.strip(), metric, basis, match["op"],
                threshold_number("--fail-on", text.strip(), match["num"], unit, signed=True), unit)


def evaluate(comparison: Comparison, rules: Iterable[Rule]) -> tuple[GateResult, ...]:
    """Check every rule against every variant (over all rows, whatever a view shows)."""
    return tuple(_evaluated(comparison, rule) for rule in rules)


def _evaluated(comparison: Comparison, rule: Rule) -> GateResult:
    names = [row.name for row in comparison.rows]
    metric = resolve_metric(rule.metric, names)  # the one resolver: an alias or a prefix, as --metric takes it
    rows = [r for r in comparison.rows if fnmatchcase(r.name, metric)]
    if not rows:
        raise RuleError(f"--fail-on '{rule.text}': no metric matches '{rule.metric}'{suggestion(rule.metric, names)}")
    for row in rows:
        _check_units(rule, row)
    bases = [_judged_basis(rule, row, comparison.basis) for row in rows]
    hits = tuple(hit for row, basis in zip(rows, bases, strict=True) for hit in _hits(rule, row, basis))
    skipped = tuple(_skipped(rows, bases))
    judged = tuple((row.name, basis) for row, basis in zip(rows, bases, strict=True) if basis is not None)
    if rule.basis is not None or SAMPLE not in bases:
        return GateResult(rule, hits, skipped, judged)
    # the comparison chose per sample for the user (batch sizes differ): the same rule per step beside it
    other = rule.per(STEP)
    other_hits = tuple(hit for row in rows for hit in _hits(other, row, STEP))
    return GateResult(rule, hits, skipped, judged, "batch sizes differ", other, other_hits)


def _judged_basis(rule: Rule, row: Row, default_basis: ShownBasis) -> ShownBasis | None:
    """The basis ``rule`` judges ``row`` in: an intensive metric's one value (per step, the same per
    sample); an extensive metric's in the rule's basis, else in the basis the comparison shows it;
    None where the rule asks per sample and the row has no per-sample value (a batch size unknown)."""
    if not row.spec.extensive:
        return STEP
    if rule.basis is not None:
        return rule.basis if rule.basis == STEP or row.has_sample else None
    return row.basis(default_basis)


def _skipped(rows: list[Row], bases: list[ShownBasis | None]) -> list[str]:
    """"metric variant: why" of each value the rule could not judge: a suspect input, no per-sample value."""
    out = []
    for row, basis in zip(rows, bases, strict=True):
        for cell in row.cells:
            if cell.suspect is not None:
                out.append(f"{row.name} {cell.variant}: {cell.suspect}")
            elif basis == SAMPLE and cell.sample is None:
                out.append(f"{row.name} {cell.variant}: no per-sample value (a batch size is unknown)")
            elif basis is None:
                out.append(f"{row.name} {cell.variant}: no per-sample value (the baseline's batch size is unknown)")
    return out


def _check_units(rule: Rule, row: Row) -> None:
    """pp only for percentages; a percentage's threshold must say pp or % (a bare -2 would be
    read as -200 percentage points and never trip)."""
    if rule.unit == "pp" and row.spec.kind != "fraction":
        raise RuleError(f"--fail-on '{rule.text}': pp applies to percentages only; "
                        f"{row.name} is {row.spec.kind}, use % or an absolute change")
    if rule.unit == "" and row.spec.kind == "fraction":
        raise RuleError(f"--fail-on '{rule.text}': {row.name} is a percentage: give the threshold in "
                        f"pp (percentage points, e.g. <-2pp) or % (relative change, e.g. <-5%)")


def _hits(rule: Rule, row: Row, basis: ShownBasis | None) -> list[Hit]:
    """Where the rule trips, judged in ``basis`` (values flagged as suspect are never judged)."""
    if basis is None:
        return []
    hits = []
    for cell in row.cells:
        delta = cell.step if basis == STEP else cell.sample
        value = None if delta is None or cell.suspect is not None else rule.measure(delta)
        if value is not None and _OPS[rule.op](value, rule.threshold):
            hits.append(Hit(row.name, cell.variant, basis, value, rule.unit, row.spec.extensive))
    return hits
