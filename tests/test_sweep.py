"""The sweep analysis on the bundled trn1.2xlarge sweep, every number recomputed here from the raw
files (summary-json, memory sidecars, Trainer results) with the formulas docs/commands/sweep.md states."""

from __future__ import annotations

import dataclasses
import json
import math
import re

import pytest
from click.testing import CliRunner
from conftest import RUN

import neuroncmp
from neuroncmp.analysis.sweep import sweep
from neuroncmp.cli import cli

BATCH = {"b2": 2, "b4": 4, "baseline": 8, "b16": 16, "b32": 32, "b48": 48, "b64": 64}
GIB = 2**30


def raw(label):
    return next(iter(json.loads((RUN / f"{label}.json").read_text()).values()))


def trainer(label):
    path = RUN / f"{label}.all_results.json"
    return json.loads(path.read_text()) if path.exists() else None


def memory_rows(label):
    """``usage type -> bytes`` from the markdown sidecar, by a regex of this test's own."""
    path = RUN / f"{label}.memory.md"
    if not path.exists():
        return None
    units = {"B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30}
    rows = re.findall(r"^\|[^|]*\|[^|]*\|\s*([^|]+?)\s*\|\s*([\d.]+)\s*\**(B|KiB|MiB|GiB)\**\s*\|$",
                      path.read_text(), re.M)
    return {label.strip(): float(number) * units[unit] for label, number, unit in rows}


def least_squares(xs, ys):
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)
    intercept = my - slope * mx
    fitted = [intercept + slope * x for x in xs]
    r2 = 1 - sum((y - f) ** 2 for y, f in zip(ys, fitted, strict=True)) / sum((y - my) ** 2 for y in ys)
    return intercept, slope, r2


@pytest.fixture(scope="module")
def result():
    return sweep(neuroncmp.load(RUN))


def test_the_axis_is_the_seven_batch_sizes_and_cc_optim_is_an_alternative(result):
    assert [(p.batch_size, p.label) for p in result.points] == [
        (b, label) for label, b in sorted(BATCH.items(), key=lambda i: i[1])]
    assert [s.label for s in result.axis.alternatives] == ["b32-cc-optim"]


def test_step_time_fit(result):
    xs = [float(b) for b in BATCH.values()]
    ys = [raw(label)["total_time"] for label in BATCH]
    fixed, per_sample, r2 = least_squares(xs, ys)
    assert (round(fixed * 1e3, 1), round(per_sample * 1e3, 2)) == (33.2, 2.55) and r2 > 0.999
    fit = result.step_fit
    assert fit.fixed == pytest.approx(fixed) and fit.per_sample == pytest.approx(per_sample)
    assert fit.r2 == pytest.approx(r2) and fit.asymptote == pytest.approx(1 / per_sample)
    assert round(1 / per_sample) == 392
    assert [round(r, 12) for r in fit.residuals] == [round(y - (fixed + per_sample * x), 12)
                                                     for x, y in zip(xs, ys, strict=True)]


def test_throughput_and_mfu_along_the_sweep(result):
    table = {row.batch_size: row for row in result.table}
    assert round(table[2].get("device_throughput"), 1) == round(2 / raw("b2")["total_time"], 1) == 50.3
    assert round(table[64].get("device_throughput"), 1) == round(64 / raw("b64")["total_time"], 1) == 325.8  # 196.44 ms
    assert (table[2].get("mfu"), table[64].get("mfu")) == (0.0367, 0.2381)
    assert table[64].get("e2e_throughput") == trainer("b64")["train_samples_per_second"]
    assert table[64].get("efficiency") == pytest.approx(raw("b2")["total_time"] / raw("b64")["total_time"])


def test_knee_by_kneedle_on_device_throughput(result):
    xs = list(BATCH.values())
    ys = [b / raw(label)["total_time"] for label, b in BATCH.items()]
    gaps = [(y - min(ys)) / (max(ys) - min(ys)) - (x - xs[0]) / (xs[-1] - xs[0]) for x, y in zip(xs, ys, strict=True)]
    assert result.knee.batch_size == xs[gaps.index(max(gaps))] == 16


def test_memory_forecast_with_and_without_profiler_buffers(result):
    labels = [label for label in BATCH if memory_rows(label)]
    totals = [memory_rows(label)["Total"] for label in labels]
    assert (round(totals[0] / GIB, 2), round(totals[-1] / GIB, 2)) == (5.47, 10.7)   # b8 -> b64
    fixed, per_sample, _ = least_squares([float(BATCH[label]) for label in labels], totals)
    buffers = memory_rows("b64")["profiler buffers"]
    memory = result.memory
    assert memory.per_sample == pytest.approx(per_sample, rel=1e-3)
    assert memory.largest_profiled == math.floor((16 * GIB - fixed) / per_sample) == 118
    assert memory.largest_unprofiled == math.floor((16 * GIB - fixed + buffers) / per_sample) == 143
    assert memory.hbm == 16 * GIB and "trn1" in memory.hbm_source


def test_trainer_step_is_about_twice_the_device_step(result):
    for label in ("b32", "b64"):
        share = raw(label)["total_time"] * trainer(label)["train_steps_per_second"]
        assert 0.45 < share < 0.55
        assert result.points[list(BATCH).index(label)].get("device_share_of_step") == pytest.approx(share)


def test_the_time_outside_the_graph_is_split_into_per_step_and_per_run_parts(result):
    """train_runtime - steps x total_time against steps (steps = runtime x steps/s), by least squares
    over the batch sizes with Trainer metrics (b16 to b64): about 40 s a run and 69 ms a step."""
    labels = [label for label in BATCH if trainer(label)]
    steps = [trainer(label)["train_runtime"] * trainer(label)["train_steps_per_second"] for label in labels]
    gaps = [trainer(label)["train_runtime"] - n * raw(label)["total_time"]
            for label, n in zip(labels, steps, strict=True)]
    per_run, per_step, r2 = least_squares(steps, gaps)
    assert [round(n) for n in steps] == [1500, 750, 501, 375] and 40 < per_run < 41 and 0.068 < per_step < 0.069
    found = {e.metric: e for e in _finding(result, "outside-graph").evidence}
    assert found["outside_graph_per_step"].value == pytest.approx(per_step)
    assert found["outside_graph_per_run"].value == pytest.approx(per_run)
    assert f"R² {r2:.3f}" in found["outside_graph_per_step"].note
    steady = per_step / (raw("b64")["total_time"] + per_step)
    assert f"{per_step * 1e3:.1f} ms of it recurs every step ({steady:.0%} of a steady step)" in \
        _finding(result, "outside-graph").title


def test_a_sweep_without_three_step_counts_does_not_split_the_outside_time():
    found = sweep(_profiles("b16", "b32", "b2", "b4"))
    assert "split" not in _finding(found, "outside-graph").title
    assert {e.metric for e in _finding(found, "outside-graph").evidence} == {
        "total_time", "train_steps_per_second", "device_share_of_step"}


def test_roofline_and_intensity_limit(result):
    base = raw("b32")
    peak = base["model_flops"] / (base["mfu_estimated_percent"] * base["total_time"])
    assert result.roof.ridge == pytest.approx(base["peak_flops_bandwidth_ratio"])
    assert result.roof.peak_flops == pytest.approx(peak, rel=2e-3)   # a median over the points
    assert {r.bound for r in result.roofline} == {"memory"}
    # the limit: FLOPs per sample (the profile's intensity numerator, the median across the points, as
    # batch-size inference takes it) over the fitted HBM bytes per sample
    flops = sorted((raw(label)["hardware_flops"] - raw(label)["transpose_flops"]) / b for label, b in BATCH.items())
    traffic = [float(raw(label)["hbm_read_bytes"] + raw(label)["hbm_write_bytes"]) for label in BATCH]
    _, bytes_per_sample, _ = least_squares([float(b) for b in BATCH.values()], traffic)
    middle = flops[len(flops) // 2] if len(flops) % 2 else (flops[len(flops) // 2 - 1] + flops[len(flops) // 2]) / 2
    assert result.intensity.limit == pytest.approx(middle / bytes_per_sample)
    assert round(result.intensity.limit, 1) == 142.5 < result.roof.ridge and result.intensity.crossing is None


def test_recommendation_is_the_best_end_to_end_throughput(result):
    best = max((trainer(label)["train_samples_per_second"], label) for label in BATCH if trainer(label))
    assert (result.recommendation.label, result.recommendation.value) == (best[1], best[0]) == ("b64", 168.351)
    assert "learning rate" in result.recommendation.caveat


def _finding(result, rule):
    return next(f for f in result.findings if f.rule == rule)


def test_performance_findings_and_their_impacts(result):
    b64, t64 = raw("b64"), trainer("b64")
    share = b64["total_time"] * t64["train_steps_per_second"]
    assert _finding(result, "outside-graph").impact.share == pytest.approx(1 - share)
    gap = _finding(result, "mfu-gap").impact
    assert gap.share == pytest.approx(1 - b64["mfu_estimated_percent"] / b64["mfu_max_achievable_estimated_percent"])
    assert _finding(result, "memory-bound").impact.share == pytest.approx(
        1 - b64["mfu_max_achievable_estimated_percent"])
    bandwidth = result.roof.peak_flops / b64["peak_flops_bandwidth_ratio"]
    spill = (b64["spill_reload_bytes"] + b64["spill_save_bytes"]) / bandwidth / b64["total_time"]
    assert _finding(result, "spill").impact.share == pytest.approx(
        min(spill, 1 - b64["mfu_max_achievable_estimated_percent"]))
    assert b64["spill_reload_bytes"] / b64["hbm_read_bytes"] > 0.25
    transposes = b64["transpose_flops"] / result.roof.peak_flops / b64["total_time"]
    assert _finding(result, "transposes").impact.share == pytest.approx(transposes)
    assert _finding(result, "throttling").impact.share == pytest.approx(1 - b64["throttle_avg_util_limit_nc0_percent"])
    impacts = [f.impact.share for f in result.findings if f.category == "performance"]
    assert impacts == sorted(impacts, reverse=True) and len(result.findings) >= 5


def test_batch_size_findings(result):
    fit = result.step_fit
    returns = _finding(result, "diminishing-returns")
    assert returns.where == ("b32", "b48", "b64")
    assert returns.impact.share == pytest.approx(fit.asymptote / (64 / raw("b64")["total_time"]) - 1)
    headroom = _finding(result, "memory-headroom")
    assert "try b128" in headroom.title
    assert headroom.impact.share == pytest.approx(fit.throughput(128) / (64 / raw("b64")["total_time"]) - 1)


def test_data_quality_findings_and_rules_that_cleared(result):
    anomalies = _finding(result, "input-anomalies")
    assert anomalies.where == ("baseline",) and len(anomalies.evidence) == 2   # 109.67 % and 25300 %
    assert _finding(result, "inferred-batch").where == ("baseline",)
    assert {p.rule for p in result.passed} == {"collectives", "small-dma", "mixed-versions", "bottleneck-shift"}
    cc = [raw(label)["cc_op_time"] / b for label, b in BATCH.items()]
    assert cc[-1] < 0.9 * cc[0]   # collectives shrink per sample: that rule must not fire


def test_the_rules_tree_caps_children_at_their_parent():
    """At 100 GB/s, moving b64's spill would take longer than the step: its share is capped at the
    memory-bound parent's (1 - mfu_max_achievable), which it would otherwise exceed."""
    b64 = raw("b64")
    uncapped = (b64["spill_reload_bytes"] + b64["spill_save_bytes"]) / 100e9 / b64["total_time"]
    parent_share = 1 - b64["mfu_max_achievable_estimated_percent"]
    assert uncapped > parent_share
    result = sweep(neuroncmp.load(RUN), hbm_bandwidth=100e9)
    spill, parent = _finding(result, "spill"), _finding(result, "memory-bound")
    assert spill.parent == "memory-bound" and parent.impact.share == pytest.approx(parent_share)
    assert spill.impact.share == pytest.approx(parent_share) and "capped" in spill.impact.formula


# ---- edge cases ---------------------------------------------------------------------------------

def _profiles(*labels):
    return [neuroncmp.load(RUN / f"{label}.json")[0] for label in labels]


def test_one_variant():
    result = sweep(_profiles("b32"))
    assert [p.batch_size for p in result.points] == [32] and result.step_fit is None and result.knee is None
    assert any("three or more" in note for note in result.notes)
    assert {n.rule for n in result.not_run} >= {"diminishing-returns", "memory-headroom", "collectives"}


def test_two_variants_give_pointwise_findings_only():
    result = sweep(_profiles("b16", "b32"))
    assert result.step_fit is None and any(f.rule == "spill" for f in result.findings)
    assert "diminishing-returns" in {n.rule for n in result.not_run}


def test_equal_batch_sizes_on_the_axis_are_merged(tmp_path):
    """``baseline`` (its batch inferred from FLOPs: 32) and ``b32`` are one point; ``b32-run2`` names
    another configuration, so it is an alternative, not on the axis."""
    block = raw("b32")
    for name, total in (("b32.json", 0.1147), ("baseline.json", 0.1157), ("b32-run2.json", 0.1)):
        (tmp_path / name).write_text(json.dumps({"n": dict(block, total_time=total)}))
    files = [tmp_path / n for n in ("b32.json", "baseline.json", "b32-run2.json")] + [RUN / "b16.json"]
    result = sweep(neuroncmp.load_many(files))
    assert [(p.batch_size, p.labels) for p in result.points] == [(16, ("b16",)), (32, ("b32", "baseline"))]
    assert result.points[1].get("total_time") == pytest.approx(0.1152)   # median of the two
    assert any("merged" in note for note in result.notes)
    assert [s.label for s in result.axis.alternatives] == ["b32-run2"]


def test_unknown_batch_sizes(tmp_path):
    (tmp_path / "fast.json").write_text(json.dumps({"n": {"total_time": 0.1}}))
    with pytest.raises(neuroncmp.InputError, match="batch size"):
        sweep(neuroncmp.load(tmp_path / "fast.json"))
    result = sweep(neuroncmp.load_many([RUN / "b16.json", RUN / "b32.json", tmp_path / "fast.json"]))
    assert result.axis.unknown == ("fast",)


def test_a_sweep_where_nothing_improves(tmp_path):
    block = raw("b32")
    for batch in (8, 16, 32):  # the step grows exactly with the batch: throughput flat
        (tmp_path / f"b{batch}.json").write_text(json.dumps({"n": dict(block, total_time=0.004 * batch)}))
    result = sweep(neuroncmp.load_many(sorted(tmp_path.iterdir())))
    assert result.knee is None and "diminishing-returns" in {n.rule for n in result.not_run}
    assert result.step_fit.fixed == pytest.approx(0, abs=1e-12)


def test_a_rule_missing_its_metrics_says_it_could_not_run(tmp_path):
    block = {k: v for k, v in raw("b32").items() if not k.startswith("spill_")}
    for batch in (16, 32, 48):
        (tmp_path / f"b{batch}.json").write_text(json.dumps({"n": dict(block, total_time=0.03 + 0.0025 * batch)}))
    result = sweep(neuroncmp.load_many(sorted(tmp_path.iterdir())))
    reason = next(n.reason for n in result.not_run if n.rule == "spill")
    assert "spill_reload_bytes" in reason and "spill" not in {f.rule for f in result.findings}


def test_suspect_values_fire_no_rule(tmp_path):
    block = dict(raw("b32"), throttle_avg_util_limit_nc0_percent=1.2)   # flagged: above 100 %
    (tmp_path / "b32.json").write_text(json.dumps({"n": block}))
    result = sweep(neuroncmp.load(tmp_path / "b32.json"))
    assert "throttling" not in {f.rule for f in result.findings}
    assert "throttling" in {n.rule for n in result.not_run}


# ---- the command ----------------------------------------------------------------------------------

def test_cli_prints_table_fit_knee_forecast_and_findings():
    out = CliRunner().invoke(cli, ["sweep", str(RUN), "--no-color", "--width", "100"]).output
    for text in ("33.24 ms + 2.549 ms x batch", "392.3 samples/s", "knee            b16", "b118 as profiled",
                 "b143 without the profiler's 2.443 GiB of buffers", "recommendation: b64"):
        assert text in out, text
    assert len(re.findall(r"^\d+\. \[", out, re.M)) >= 5
    assert max(len(line) for line in out.splitlines()) <= 100


def test_json_carries_every_number_of_the_tables():
    """The JSON's table equals the raw files' numbers; the terminal shows the same numbers."""
    from neuroncmp.analysis.table import COLUMNS, TableRow
    from neuroncmp.render.sweep_words import cell

    runner = CliRunner()
    text = runner.invoke(cli, ["sweep", str(RUN), "--no-color", "--width", "200"]).output
    data = json.loads(runner.invoke(cli, ["sweep", str(RUN), "--format", "json"]).output)
    assert data["schema"] == "neuroncmp.sweep/1"
    for row in data["table"]:
        label, batch = row["label"], int(row["batch"])
        values = raw(label)
        assert row["step_time"] == values["total_time"] and row["mfu"] == values["mfu_estimated_percent"]
        assert row["device_throughput"] == pytest.approx(batch / values["total_time"])
        assert row["speedup"] == pytest.approx((batch / values["total_time"]) / (2 / raw("b2")["total_time"]))
        assert row["spill_per_sample"] == pytest.approx(values["spill_reload_bytes"] / batch)
        assert row["time_per_sample"] == pytest.approx(values["total_time"] / batch)
        rebuilt = TableRow(label, batch, row["inferred"], row, row["bottleneck"], row["next_bound"])
        for column in COLUMNS:
            assert cell(rebuilt, column) in text, (label, column.name)   # the terminal prints these numbers
    assert data["models"]["step_time"]["per_sample"] == pytest.approx(0.002549, rel=1e-3)
    fixed, per_sample, _ = least_squares([float(b) for b in BATCH.values()],
                                         [raw(label)["total_time"] for label in BATCH])
    for fitted in data["models"]["step_time"]["fitted"]:   # the bar chart's "fit" numbers
        batch = fitted["batch_size"]
        assert fitted["device_throughput"] == pytest.approx(batch / (fixed + per_sample * batch))
        assert f"fit {fitted['device_throughput']:.4g}" in text
    anomalies = next(f for f in data["findings"] if f["rule"] == "input-anomalies")["evidence"]
    assert {(e["metric"], e["value"]) for e in anomalies} == {
        ("throttle_avg_util_limit_nc0_percent", raw("baseline")["throttle_avg_util_limit_nc0_percent"]),
        ("throttle_periodic_avg_util_limit_nc0_percent",
         raw("baseline")["throttle_periodic_avg_util_limit_nc0_percent"])}
    assert len(data["findings"]) == len(re.findall(r"^\d+\. \[", text, re.M))


def test_price_gives_cost_per_million_samples():
    data = json.loads(CliRunner().invoke(cli, ["sweep", str(RUN), "--format", "json",
                                               "--price-per-hour", "1.34"]).output)
    row = next(r for r in data["table"] if r["label"] == "b64")
    assert row.get("cost_device") == pytest.approx(1.34 / 3600 / (64 / raw("b64")["total_time"]) * 1e6)
    assert row["cost_e2e"] == pytest.approx(1.34 / 3600 / trainer("b64")["train_samples_per_second"] * 1e6)


def test_hardware_overrides_change_the_forecast():
    data = json.loads(CliRunner().invoke(cli, ["sweep", str(RUN), "--format", "json",
                                               "--hbm-per-core", "24GiB"]).output)
    assert data["models"]["memory"]["hbm"] == 24 * GIB
    assert data["models"]["memory"]["largest_profiled"] > 118


def test_markdown_and_html():
    md = CliRunner().invoke(cli, ["sweep", str(RUN), "--format", "md"]).output
    assert md.startswith("## neuroncmp sweep") and "| 64 | 196.4 ms |" in md and "#### Findings" in md
    html = CliRunner().invoke(cli, ["sweep", str(RUN), "--format", "html"]).output
    assert html.startswith("<!DOCTYPE html>") and "recommendation: b64" in html


@pytest.mark.parametrize("fmt", ["term", "md", "json", "html"])
def test_a_flat_sweep_renders_in_every_format(tmp_path, fmt):
    """Nothing varies: R² does not exist, the slope is zero; every format says so without a crash."""
    block = raw("b32")
    for batch in (8, 16, 32):
        (tmp_path / f"b{batch}.json").write_text(json.dumps({"n": dict(block, total_time=0.125)}))
    result = CliRunner().invoke(cli, ["sweep", *sorted(map(str, tmp_path.iterdir())), "--format", fmt,
                                      "--width", "200"])
    assert result.exit_code == 0, result.output
    if fmt == "term":
        assert "R² n/a" in result.output and "125.0 ms + 0 ns x batch" in result.output


def test_the_sweep_fits_narrow_terminals():
    for width in (40, 60):
        out = CliRunner().invoke(cli, ["sweep", str(RUN), "--no-color", "--width", str(width)]).output
        assert max(len(line) for line in out.splitlines()) <= width


def test_spill_is_not_said_to_be_everywhere_when_one_point_is_below(tmp_path):
    block = raw("b32")
    for batch, share in ((16, 0.5), (32, 0.1), (48, 0.5)):
        reload = int(block["hbm_read_bytes"] * share)
        (tmp_path / f"b{batch}.json").write_text(json.dumps({"n": dict(block, spill_reload_bytes=reload)}))
    result = sweep(neuroncmp.load_many(sorted(tmp_path.iterdir())))
    assert not result.spill.everywhere and result.spill.above_share == 16
    assert "every batch size" not in _finding(result, "spill").title


def test_charts_are_written_and_a_point_log_axes_cannot_hold_is_left_out_with_a_note(tmp_path):
    """``--charts DIR`` writes the three PNGs; a roofline point of intensity 0 (the fuzzer's case)
    is not drawn, and matplotlib warns of nothing."""
    import warnings

    pytest.importorskip("matplotlib")
    from neuroncmp.render import charts

    result = CliRunner().invoke(cli, ["sweep", str(RUN), "--charts", str(tmp_path), "--no-color"])
    assert result.exit_code == 0, result.output
    for name in ("throughput", "roofline", "memory"):
        assert (tmp_path / f"{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    analysed = sweep(*neuroncmp.load(RUN))
    broken = analysed.roofline[0]._replace(intensity=0.0)
    analysed = dataclasses.replace(analysed, roofline=(broken, *analysed.roofline[1:]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        figure = charts.roofline_figure(analysed)
    texts = [t.get_text() for t in figure.axes[0].texts]
    assert f"not drawn (value not from 1e-100 to 1e100): b{broken.batch_size}" in texts
