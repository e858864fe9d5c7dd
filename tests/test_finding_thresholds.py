"""A finding rule's threshold lives in its constant; the messages read it (change the constant and the
message follows), and no message restates a number of its own."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from conftest import RUN

import neuroncmp
from neuroncmp.analysis.findings import base, pointwise, scaling
from neuroncmp.analysis.sweep import sweep
from neuroncmp.catalog import catalog
from neuroncmp.choices import BETTER_WAYS

FINDINGS = Path(pointwise.__file__).parent


def texts(value) -> list[str]:
    """Every string inside a finding (its title, its evidence's notes), however nested."""
    if isinstance(value, str):
        return [value]
    return [text for part in value for text in texts(part)] if isinstance(value, tuple) else []


def messages(rule: str) -> str:
    result = sweep(neuroncmp.load(RUN))
    return " | ".join(text for group in (result.findings, result.passed, result.not_run)
                      for item in group if item.rule == rule for text in texts(tuple(item)))


def test_percent_prints_a_share_as_the_messages_do():
    assert (base.percent(0.25), base.percent(0.1), base.percent(0.05), base.percent(0.9)) == \
        ("25 %", "10 %", "5 %", "90 %")


def test_the_transposes_message_reads_its_constant(monkeypatch):
    before = messages("transposes")
    assert "threshold 10 %" in before
    monkeypatch.setattr(pointwise, "TRANSPOSE_SHARE", 0.37)
    after = messages("transposes")
    assert "threshold 37 %" in after and "10 %" not in after


def test_the_collectives_evidence_reads_its_constant(monkeypatch):
    monkeypatch.setattr(scaling, "AMORTISED", 0.03)  # fires: 0.270 ms is 4 % of 6.780
    assert "fires at 3 % or more" in messages("collectives")


def test_no_finding_message_hard_codes_a_percent():
    """String literals in the rules with a number before `` %``: a threshold written twice."""
    restated = []
    for path in sorted(FINDINGS.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                    and re.search(r"\b(?!100 %)\d+(\.\d+)? %", node.value)):  # 100 % is a fact, not a threshold
                restated.append(f"{path.name}:{node.lineno}: {node.value!r}")
    # docstrings and comments are examples, not thresholds: allowed
    docstrings = {f"{path.name}:{n.body[0].lineno}" for path in FINDINGS.glob("*.py")
                  for n in ast.walk(ast.parse(path.read_text()))
                  if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef)) and n.body
                  and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    assert [r for r in restated if r.split(": ")[0] not in docstrings] == []


def test_every_catalog_direction_is_one_of_the_vocabulary():
    assert BETTER_WAYS == ("higher", "lower", "neutral")
    assert {spec.direction for spec in catalog().values()} <= set(BETTER_WAYS)


def _context(monkeypatch):
    """The context the bundled sweep's rules see."""
    from neuroncmp.analysis import sweep as module
    seen = []
    original = module.run_rules
    monkeypatch.setattr(module, "run_rules", lambda context: seen.append(context) or original(context))
    sweep(neuroncmp.load(RUN))
    return seen[0]


def test_spill_evidence_leaves_out_a_save_count_the_profile_lacks(monkeypatch):
    # spill_save_bytes is not one of the rule's needs: a point without it once gave evidence of None
    context = _context(monkeypatch)
    points = tuple(p._replace(values={k: v for k, v in p.values.items() if k != "spill_save_bytes"})
                   for p in context.points)
    focus = next(p for p in points if p.batch_size == context.focus.batch_size)
    finding = pointwise.Spill().apply(context._replace(points=points, focus=focus))
    assert isinstance(finding, base.Finding)
    assert [e.metric for e in finding.evidence] == ["spill_reload_share", "spill_reload_bytes"]
    assert all(e.value is not None for e in finding.evidence)


def test_memory_bound_evidence_leaves_out_engine_shares_the_profile_lacks(monkeypatch):
    context = _context(monkeypatch)
    gone = {"dma_active_time_percent", "tensor_engine_active_time_percent"}
    points = tuple(p._replace(values={k: v for k, v in p.values.items() if k not in gone}) for p in context.points)
    focus = next(p for p in points if p.batch_size == context.focus.batch_size)
    finding = pointwise.MemoryBound().apply(context._replace(points=points, focus=focus))
    assert isinstance(finding, base.Finding)
    assert [e.metric for e in finding.evidence] == ["mm_arithmetic_intensity"]
