"""A finding rule's threshold lives in its constant; the messages read it (change the constant and the
message follows), and no message restates a number of its own."""

from __future__ import annotations

import ast
import json
import re
import shutil
from pathlib import Path

from conftest import RUN

import neuroncmp
from neuroncmp.analysis.findings import pointwise, scaling
from neuroncmp.analysis.sweep import sweep
from neuroncmp.catalog import catalog
from neuroncmp.choices import BETTER_WAYS
from neuroncmp.units import percent

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
    assert (percent(0.25), percent(0.1), percent(0.05), percent(0.9)) == \
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


def sweep_without(tmp_path: Path, gone: set[str]) -> dict[str, list[str]]:
    """The bundled sweep with the metrics ``gone`` taken out of each profile file: the metrics of each
    finding's evidence, by rule (a metric with no value written "name=None")."""
    run = tmp_path / "run"
    shutil.copytree(RUN, run)
    for path in run.glob("b*.json"):
        if not path.name.endswith(".all_results.json"):
            document = json.loads(path.read_text())
            path.write_text(json.dumps({title: {k: v for k, v in block.items() if k not in gone}
                                        for title, block in document.items()}))
    return {f.rule: [e.metric if e.value is not None else f"{e.metric}=None" for e in f.evidence]
            for f in sweep(neuroncmp.load(run)).findings}


def test_spill_evidence_leaves_out_a_save_count_the_profile_lacks(tmp_path):
    # spill_save_bytes is not one of the rule's needs: a point without it once gave evidence of None
    assert sweep_without(tmp_path, set())["spill"] == ["spill_reload_share", "spill_reload_bytes", "spill_save_bytes"]
    assert sweep_without(tmp_path / "2", {"spill_save_bytes"})["spill"] == ["spill_reload_share", "spill_reload_bytes"]


def test_memory_bound_evidence_leaves_out_engine_shares_the_profile_lacks(tmp_path):
    gone = {"dma_active_time_percent", "tensor_engine_active_time_percent"}
    assert sweep_without(tmp_path, gone)["memory-bound"] == ["mm_arithmetic_intensity"]
