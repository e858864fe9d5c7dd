"""Findings: rules with evidence, an estimated impact and an action, ranked by impact, children capped at
their parent's share. Each module's ``RULES`` (``pointwise``: at every batch size; ``scaling``: the sweep
as a whole; ``bottleneck``; ``quality``: the inputs) holds its rules: docs/findings.md, and
docs/code.md ("Adding a finding rule")."""

from __future__ import annotations

from . import bottleneck, pointwise, quality, scaling
from .base import BATCH, PERFORMANCE, Context, Finding, NotRun, Passed, Rule

RULES: tuple[Rule, ...] = (*pointwise.RULES, *scaling.RULES, *bottleneck.RULES, *quality.RULES)
ORDER = {PERFORMANCE: 0, BATCH: 1}  # data quality last


def run_rules(context: Context) -> tuple[tuple[Finding, ...], tuple[Passed, ...], tuple[NotRun, ...]]:
    """Every rule's outcome: findings ranked by impact (children capped at their parent's share)."""
    outcomes = [(rule, rule.apply(context)) for rule in RULES]
    findings = [o._replace(parent=getattr(rule, "parent", None)) for rule, o in outcomes if isinstance(o, Finding)]
    findings = _capped(findings)
    ranked = sorted(findings, key=lambda f: (ORDER.get(f.category, 2), -(f.impact.share if f.impact else -1)))
    return (tuple(ranked), tuple(o for _, o in outcomes if isinstance(o, Passed)),
            tuple(o for _, o in outcomes if isinstance(o, NotRun)))


def _capped(findings: list[Finding]) -> list[Finding]:
    """A child's impact never exceeds its parent's share (Nsight Compute's rule tree)."""
    shares = {f.rule: f.impact.share for f in findings if f.impact is not None}
    out = []
    for finding in findings:
        cap = shares.get(finding.parent or "")
        if cap is not None and finding.impact is not None and finding.impact.share > cap:
            impact = finding.impact._replace(share=cap, amount=finding.impact.amount * cap / finding.impact.share,
                             formula=finding.impact.formula + f"; capped at its parent {finding.parent}'s {cap:.1%}")
            finding = finding._replace(impact=impact)
        out.append(finding)
    return out
