"""Gates say what they judged, and every place that takes a metric name resolves it one way.

The numbers are read from the raw summary-json files here, not from the comparison: baseline
``total_time`` 0.05378 s at batch 8 (inferred), b32 0.1147 s at batch 32. Per step the step grew
0.1147 / 0.05378 - 1 = +113.3 %; per sample it shrank (0.1147 / 32) / (0.05378 / 8) - 1 = -46.7 %.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from conftest import RUN

import neuroncmp as nc
from neuroncmp.cli import cli

BASE, B32 = str(RUN / "baseline.json"), str(RUN / "b32.json")


def _raw(path):
    return next(iter(json.loads(open(path).read()).values()))


def _run(*args):
    return CliRunner().invoke(cli, ["diff", BASE, B32, "--no-color", "--width", "200", *args])


def _per_step_growth():
    return (_raw(B32)["total_time"] / _raw(BASE)["total_time"] - 1) * 100


def test_a_gate_whose_basis_was_chosen_names_it_and_the_rule_per_step():
    step = _per_step_growth()
    assert f"{step:+.1f}" == "+113.3"
    result = _run("--fail-on", "total_time>+5%", "--summary")
    assert result.exit_code == 0  # judged per sample, -46.7 %: the rule as written passes
    line = next(text for text in result.output.splitlines() if "--fail-on total_time>+5%" in text)
    assert "judged per sample, as batch sizes differ" in line
    assert f"'total_time/step>+5%', it trips: total_time/step b32: {step:+.4g}%" in line


def test_the_json_gate_records_the_basis_and_the_rule_per_step():
    result = _run("--fail-on", "total_time>+5%", "--format", "json")
    (gate,) = json.loads(result.output)["gates"]
    assert gate["judged"] == {"total_time": "sample"} and gate["basis_chosen"] == "batch sizes differ"
    assert gate["tripped"] is False and gate["per_step"]["tripped"] is True
    assert gate["per_step"]["rule"] == "total_time/step>+5%"
    assert gate["per_step"]["hits"][0]["value"] == pytest.approx(_per_step_growth())
    assert "judged per sample" in gate["line"]


def test_markdown_gates_say_the_basis():
    result = _run("--fail-on", "total_time>+5%", "--format", "md")
    assert "judged per sample, as batch sizes differ" in result.output


def test_a_rule_that_names_its_basis_is_judged_in_it_and_says_so():
    result = _run("--fail-on", "total_time/step>+5%", "--summary")
    assert result.exit_code == 3
    assert "FAILED --fail-on total_time/step>+5%: total_time/step b32: +113.3% (judged per step)" in result.output


def test_a_glob_over_both_kinds_of_metric_counts_each_basis():
    """``*_bytes`` matches extensive traffic (per sample across batch sizes) and intensive sizes
    such as ``dma_transfer_average_bytes`` (one value per transfer: per step)."""
    result = _run("--fail-on", "*_bytes>+1000%", "--format", "json")
    (gate,) = json.loads(result.output)["gates"]
    assert gate["judged"]["hbm_read_bytes"] == "sample"
    assert gate["judged"]["dma_transfer_average_bytes"] == "step"
    assert "per sample for" in gate["line"] and "per step for" in gate["line"]


# ---- one name resolver: --metric, --fail-on, --threshold KEY=, history, the API --------------------

def test_fail_on_takes_the_names_metric_takes():
    """``mfu`` is ``mfu_estimated_percent`` for ``--metric``; so for ``--fail-on``. MFU moves
    10.87 % -> 20.39 % (+9.52pp, from the raw files), so ``mfu>+5pp`` trips."""
    mfu = (_raw(BASE)["mfu_estimated_percent"], _raw(B32)["mfu_estimated_percent"])
    points = (mfu[1] - mfu[0]) * 100
    assert f"{points:+.2f}" == "+9.52"
    result = _run("--fail-on", "mfu>+5pp", "--summary")
    assert result.exit_code == 3, result.output
    assert f"mfu_estimated_percent b32: {points:+.4g}pp" in result.output
    assert "judged mfu_estimated_percent per step" in result.output
    assert _run("--fail-on", "mfu<-2pp", "--summary").exit_code == 0


def test_a_misspelt_gate_metric_names_the_closest():
    result = _run("--fail-on", "total_tme>+5%")
    assert result.exit_code == 2 and "did you mean total_time" in result.output


def test_threshold_keys_take_the_same_names():
    """``--threshold mfu=10pp`` and ``mfu=100%`` put +9.52pp (x1.88, ln 1.88 = 0.63 <= ln 2)
    inside both of the fraction's bands: MFU reads unchanged."""
    result = _run("--threshold", "mfu=10pp", "--threshold", "mfu=100%", "--metric", "mfu")
    assert result.exit_code == 0, result.output
    row = next(text for text in result.output.splitlines() if text.startswith("mfu_estimated_percent"))
    assert row.rstrip().endswith("+9.52pp=")


def test_the_api_takes_the_same_names():
    comparison = nc.compare(nc.load(BASE), nc.load(B32))
    assert comparison.row("mfu").name == "mfu_estimated_percent"
    assert comparison.cell("mfu", "b32").step.points == pytest.approx(9.52, abs=0.005)
    with pytest.raises(KeyError, match="did you mean total_time"):
        comparison.row("total_tme")


def test_a_basis_after_the_name_is_read_by_the_one_resolver_everywhere(tmp_path):
    """``cmp.row('total_time/step')`` was a KeyError, ``history spill_reload_bytes/sample`` "no metric",
    and a malformed gate's error named ``METRIC[/sample]`` only. The API takes the basis after the name;
    history takes ``/step`` (the store keeps values per step: b32's spill reload, 9,215,926,075 B, is
    8.583 GiB) and refuses ``/sample`` saying so; the gate's error lists both bases."""
    comparison = nc.compare(nc.load(BASE), nc.load(B32))
    assert comparison.row("total_time/step") is comparison.row("total_time")
    assert comparison.row("spill_reload_bytes/sample").values("sample") == [_raw(B32)["spill_reload_bytes"] / 32]
    assert comparison.row("mfu/step").name == "mfu_estimated_percent"  # an alias and a basis
    with pytest.raises(KeyError, match="total_time/steps"):
        comparison.row("total_time/steps")
    error = _run("--fail-on", "total_time/step>>5%").output
    assert "METRIC[/step|/sample]" in error
    from neuroncmp.store import Store

    store = tmp_path / "store"
    Store(store).add(B32, tags={"model": "bert"})
    plain = CliRunner().invoke(cli, ["history", "spill_reload_bytes", "--store", str(store)])
    step = CliRunner().invoke(cli, ["history", "spill_reload_bytes/step", "--store", str(store)])
    assert plain.exit_code == step.exit_code == 0 and step.output == plain.output
    assert f"{_raw(B32)['spill_reload_bytes'] / 2**30:#.4g}" in step.output.splitlines()[-1]
    sample = CliRunner().invoke(cli, ["history", "spill_reload_bytes/sample", "--store", str(store)])
    assert sample.exit_code == 2 and "per step" in sample.output and "Traceback" not in sample.output
