"""`neuroncmp diff`: every option, every bad input, every exit code."""

from __future__ import annotations

import csv
import io
import json

import pytest
from click.testing import CliRunner
from conftest import RUN, SEED

from neuroncmp.cli import cli

BASE, B32, B64 = str(RUN / "baseline.json"), str(RUN / "b32.json"), str(RUN / "b64.json")


def run(*args):
    return CliRunner().invoke(cli, ["diff", *args])


def _raw(path):
    return next(iter(json.loads(open(path).read()).values()))


def test_acceptance_headline_first_screen():
    """Device throughput, MFU and time per sample within the first 25 lines, computed here from the
    raw summary-json (batch 8 is the inferred baseline size, 32 from the file's title)."""
    base, b32 = _raw(BASE), _raw(B32)
    throughput = (8 / base["total_time"], 32 / b32["total_time"])
    assert [f"{t:.1f}" for t in throughput] == ["148.8", "279.0"]
    first = "\n".join(run(BASE, B32, "--no-color", "--width", "100").output.splitlines()[:25])
    line = next(text for text in first.splitlines() if text.startswith("throughput (device)"))
    assert "148.8" in line and "279.0" in line
    assert f"{(throughput[1] / throughput[0] - 1) * 100:+.1f}%✔" in first          # +87.6%
    mfu = (base["mfu_estimated_percent"] * 100, b32["mfu_estimated_percent"] * 100)
    assert f"{mfu[0]:.2f}" in first and f"{mfu[1]:.2f}" in first                   # 10.87 -> 20.39
    assert f"{mfu[1] - mfu[0]:+.2f}pp✔" in first                                    # +9.52pp
    per_sample = (base["total_time"] / 8 * 1000, b32["total_time"] / 32 * 1000)
    assert f"{per_sample[0]:.3f}" in first and f"{per_sample[1]:.3f}" in first     # 6.723 -> 3.584


def test_acceptance_baseline_vs_b32():
    result = run(BASE, B32, "--no-color", "--width", "120", "--all")
    assert result.exit_code == 0
    out = result.output
    assert "mfu_estimated_percent [%]" in out and "10.87" in out and "20.39" in out and "+9.52pp✔" in out
    assert "spill_reload_bytes/sample [MiB]" in out and "-9.5%✔" in out   # per sample: better
    assert "cc_op_time/sample [ms]" in out and "-71.3%✔" in out
    assert "batch size 8 is inferred" in out
    step_lines = [text for text in out.splitlines() if text.lstrip().startswith("per step")]
    assert len(step_lines) > 30 and "+262%" in out and "+14.9%" in out     # per-step changes shown ...
    assert not any("✘" in text or "✔" in text for text in step_lines)     # ... as context, not scored


def test_suspect_values_decide_no_verdict_either_way():
    """The baseline's throttle cap of 109.67 % is flagged percent-over-100: no verdict on either side."""
    for args in ((BASE, B32), (B32, BASE), (str(SEED), "--baseline", "Batch 16")):
        data = json.loads(run(*args, "--format", "json").output)
        row = next(r for r in data["rows"] if r["metric"] == "throttle_avg_util_limit_nc0_percent")
        labels = [side["label"] for side in data["variants"]]
        flagged = [labels.index("baseline")] if "baseline" in labels else range(len(labels))
        for index in flagged:
            assert row["step"]["verdict"][index] == "suspect" and "percent-over-100" in row["suspect"][index]
            assert row["change"][index].endswith("!")


def test_gates_do_not_judge_suspect_values():
    result = run(BASE, B32, "--fail-on", "throttle_avg_util_limit_nc0_percent<-1pp", "--no-color", "--width", "400")
    assert result.exit_code == 0   # -10.9pp would trip, but the baseline's value is suspect
    assert "not evaluated, suspect input: throttle_avg_util_limit_nc0_percent b32" in result.output


def test_trivial_memory_changes_are_unchanged():
    data = json.loads(run(BASE, B32, "--format", "json", "--group", "memory").output)
    rows = {r["metric"]: r for r in data["rows"]}
    assert (rows["memory.io"]["baseline"]["step"], rows["memory.io"]["step"]["value"]) == (64, [72])
    assert rows["memory.io"]["step"]["in_band"] == [True]                   # 8 B: under the 1 MiB floor
    assert rows["memory.io"]["step"]["verdict"] == ["context"]              # b8 vs b32: memory not scored
    ring = rows["memory.dma_rings_io"]
    assert abs(ring["step"]["value"][0] - ring["baseline"]["step"]) < 2**20
    assert ring["step"]["verdict"] == ["context"] and ring["step"]["in_band"] == [True]  # not scored, inside
    # 1.5 -> 3.5 GiB is real, and what a 4x batch must use: shown, not scored.
    assert rows["memory.shared_scratchpad"]["step"]["verdict"] == ["context"]
    assert rows["memory.shared_scratchpad"]["step"]["in_band"] == [False]
    data = json.loads(run(B32, str(RUN / "b32-cc-optim.json"), "--format", "json", "--group", "memory").output)
    verdicts = {r["metric"]: r["step"]["verdict"][0] for r in data["rows"]}
    assert verdicts["memory.dma_rings_io"] == "unchanged"   # 1.654 -> 2.397 MiB: under the floor
    assert verdicts["memory.dma_rings_spill"] == "worse"    # 272.058 -> 291.131 MiB, same batch


def test_training_quality_is_shown_not_scored():
    data = json.loads(run(str(RUN / "b32.json"), str(RUN / "b32-cc-optim.json"), "--format", "json").output)
    verdicts = {r["metric"]: r["step"]["verdict"][0] for r in data["rows"]}
    assert verdicts["eval_loss"] == "neutral" and verdicts["train_loss"] == "neutral"


def test_eval_sets_of_different_size_get_a_warning():
    data = json.loads(run(str(RUN / "b16.json"), str(RUN / "b64.json"), "--format", "json").output)
    warning = next(w for w in data["warnings"] if w.startswith("eval sets differ"))
    b16, b64 = (json.loads((RUN / f"{n}.all_results.json").read_text()) for n in ("b16", "b64"))
    for label, values in (("b16", b16), ("b64", b64)):
        assert f"{label} ~{values['eval_samples_per_second'] * values['eval_runtime']:.0f}" in warning


def test_variants_in_batch_size_order_with_the_trend_along_it():
    data = json.loads(run(str(RUN), "--format", "json").output)
    assert [v["label"] for v in data["variants"]] == ["b2", "b4", "b16", "b32", "b32-cc-optim", "b48", "b64"]
    given = json.loads(run(str(RUN), "--format", "json", "--order", "given").output)
    assert [v["label"] for v in given["variants"]] == ["b16", "b32", "b32-cc-optim", "b48", "b64", "b4", "b2"]
    out = run(str(RUN), "--no-color", "--width", "100", "--metric", "total_time").output
    line = next(text for text in out.splitlines() if text.startswith("total_time/sample"))
    assert line.endswith("█▄▃▂▁▁▁▁")  # falls steadily from b2 to b64 (the baseline, b8, in its place)


@pytest.mark.parametrize("option, value, names", [
    ("--group", "tensor", "tensor_engine"),
    ("--metric", "mfu_estimted_percent", "mfu_estimated_percent")])  # 'mfu' alone resolves (test_vocabulary)
def test_filters_matching_nothing_are_usage_errors_naming_the_closest(option, value, names):
    result = run(BASE, B32, option, value)
    assert result.exit_code == 2 and names in result.output


def test_summary_shows_the_headline_only():
    out = run(BASE, B32, "--summary", "--no-color").output
    assert "throughput (device)" in out and "hbm_read_bytes" not in out and "headline only" in out


def test_an_object_with_no_known_metric_is_refused(tmp_path):
    alien = tmp_path / "b8.json"
    alien.write_text('{"foo": 1}')
    result = run(B32, str(alien))
    assert result.exit_code == 1 and "known Neuron metric" in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert run(B32, str(alien), "--format-in", "summary-json").exit_code == 0


@pytest.mark.parametrize("first, second, code", [(BASE, B32, 0), (B32, BASE, 3)])
def test_fail_on_exit_codes(first, second, code):
    result = run(first, second, "--fail-on", "mfu_estimated_percent<-2pp", "--no-color", "--width", "200")
    assert result.exit_code == code
    if code == 3:
        assert "FAILED --fail-on mfu_estimated_percent<-2pp: mfu_estimated_percent baseline: -9.52pp" \
            in result.output


@pytest.mark.parametrize("rule, code", [
    ("spill_reload_bytes>+10%", 0),           # per sample (the shown basis): -9.5 %
    ("spill_reload_bytes/step>+10%", 3),      # per step: +262 %
    ("total_time/sample>+5%", 0),
    ("total_time/step>+5%", 3),
    ("hbm_read_bytes/step>=2x", 3),
    ("memory.shared_scratchpad>1073741824", 3),  # absolute change in bytes
])
def test_rule_kinds(rule, code):
    assert run(BASE, B32, "--fail-on", rule).exit_code == code


@pytest.mark.parametrize("fmt", ["md", "json", "csv", "html", "term"])
def test_tripped_gates_are_listed_in_every_format(fmt):
    result = run(B32, BASE, "--fail-on", "mfu_estimated_percent<-2pp", "--format", fmt)
    assert result.exit_code == 3
    assert ("mfu_estimated_percent&lt;-2pp" if fmt == "html" else "mfu_estimated_percent<-2pp") in result.output
    if fmt == "csv":
        assert "warning:" not in result.stdout and "warning:" in result.stderr  # a pure table
        row = next(r for r in csv.DictReader(io.StringIO(result.stdout)) if r["metric"] == "mfu_estimated_percent")
        assert row["tripped_rules"] == "mfu_estimated_percent<-2pp"


@pytest.mark.parametrize("rule, fragment", [
    ("mfu<<2", "expected METRIC"), ("nope_metric>1%", "no metric matches"),
    ("total_time>+2pp", "pp applies to percentages only"), ("total_time>", "expected METRIC"),
    ("mfu_estimated_percent<-2", "is a percentage: give the threshold in pp"),
])
def test_malformed_rules_are_usage_errors(rule, fragment):
    result = run(BASE, B32, "--fail-on", rule)
    assert result.exit_code == 2 and fragment in result.output


def test_multi_section_export_with_baseline_by_title():
    result = run(str(SEED), "--baseline", "Batch 16", "--format", "json")
    data = json.loads(result.output)
    assert data["baseline"]["label"] == "b16"
    # variants by batch size (the baseline label's batch, 8, is inferred across the export)
    assert [v["label"] for v in data["variants"]] == ["b2", "b4", "baseline", "b32", "b32-cc-optim", "b48", "b64"]


def test_unknown_baseline_is_usage_error():
    result = run(str(SEED), "--baseline", "Batch 7")
    assert result.exit_code == 2 and "no profile has that label" in result.output


def test_single_profile_is_an_error():
    result = run(B32)
    assert result.exit_code == 1 and "one profile was read (b32)" in result.output


def test_one_file_given_twice_is_named_as_one_profile_not_as_a_label_clash():
    result = run(B32, B32)
    assert result.exit_code == 1
    assert "the same content as" in result.output and "one profile was read (b32)" in result.output
    assert "name the variant's file differently" not in result.output


def test_output_file_format_from_extension(tmp_path):
    for suffix, check in ((".json", lambda t: json.loads(t)["schema"] == "neuroncmp.comparison/3"),
                          (".csv", lambda t: t.startswith("metric,group,unit")),
                          (".md", lambda t: t.startswith("## neuroncmp diff")),
                          (".html", lambda t: t.startswith("<!DOCTYPE html>")),
                          (".txt", lambda t: t.startswith("neuroncmp diff:"))):
        out = tmp_path / f"diff{suffix}"
        result = run(BASE, B32, "-o", str(out))
        assert result.exit_code == 0 and result.stdout == "" and check(out.read_text()), suffix


def test_unknown_output_extension(tmp_path):
    result = run(BASE, B32, "-o", str(tmp_path / "diff.xlsx"))
    assert result.exit_code == 2 and "--format" in result.output


def test_bad_input_leaves_no_output_file(tmp_path):
    bad = tmp_path / "b8.json"
    bad.write_text('{"n": {"total_time": "fast"}}')
    out = tmp_path / "diff.json"
    result = run(BASE, str(bad), "-o", str(out))
    assert result.exit_code == 1 and "total_time" in result.output and not out.exists()
    assert len(result.output.strip().splitlines()) == 1


def test_only_changed_counts_hidden_rows():
    full = json.loads(run(BASE, B32, "--format", "json").output)
    unchanged = [r["metric"] for r in full["rows"]  # not scored (neutral, context): unchanged inside the band
                 if all(verdict in ("unchanged", "absent") or (verdict in ("neutral", "context") and inside)
                        for verdict, inside in zip(r[r["shown_basis"]]["verdict"], r[r["shown_basis"]]["in_band"]))]
    data = json.loads(run(BASE, B32, "--only-changed", "--format", "json").output)
    assert data["hidden_unchanged"] == len(unchanged) > 20
    assert {r["metric"] for r in data["rows"]} == {r["metric"] for r in full["rows"]} - set(unchanged)


def test_group_metric_sort_basis_threshold_options():
    data = json.loads(run(BASE, B32, "--group", "tensor_engine", "--metric", "mfu*", "--format", "json").output)
    assert [r["metric"] for r in data["rows"]] == ["mfu_estimated_percent", "mfu_max_achievable_estimated_percent"]
    names = [r["metric"] for r in json.loads(run(BASE, B32, "--sort", "name", "--format", "json").output)["rows"]]
    assert names == sorted(names)
    step = json.loads(run(BASE, B32, "--basis", "step", "--format", "json").output)
    assert step["basis"] == "step"
    total = next(r for r in step["rows"] if r["metric"] == "total_time")
    assert total["shown_basis"] == "step" and total["step"]["verdict"] == ["worse"]
    loose = json.loads(run(BASE, B32, "--threshold", "time=500%", "--format", "json").output)
    total = next(r for r in loose["rows"] if r["metric"] == "total_time")
    assert total["sample"]["verdict"] == ["unchanged"] and loose["noise_bands"]["time"] == "500% or 50 ns"


def test_bad_threshold_is_usage_error():
    result = run(BASE, B32, "--threshold", "lots")
    assert result.exit_code == 2 and "--threshold 'lots'" in result.output


def test_csv_is_tidy_one_row_per_metric_variant_basis():
    rows = list(csv.DictReader(io.StringIO(run(BASE, B32, B64, "--format", "csv").stdout)))
    total = [r for r in rows if r["metric"] == "total_time"]
    assert {(r["variant_label"], r["basis"]) for r in total} == {("b32", "step"), ("b32", "sample"),
                                                                 ("b64", "step"), ("b64", "sample")}
    mfu = next(r for r in rows if r["metric"] == "mfu_estimated_percent" and r["variant_label"] == "b32")
    assert (mfu["baseline"], mfu["variant"], mfu["verdict"]) == ("0.1087", "0.2039", "better")


def test_width_and_no_color():
    narrow = run(BASE, B32, "--width", "60", "--no-color").output
    assert max(len(line) for line in narrow.splitlines()) <= 60 and "\x1b[" not in narrow


def test_sweep_fits_100_columns():
    files = [str(RUN / f) for f in ("baseline.json", "b2.json", "b4.json", "b16.json", "b32.json",
                                    "b32-cc-optim.json", "b48.json", "b64.json")]
    out = run(*files, "--width", "100", "--no-color").output
    assert max(len(line) for line in out.splitlines()) <= 100
    assert "trend" in out and "█▄▃▂▁▁▁▁" in out  # total_time/sample falls along the batch sizes


def test_help_documents_every_option():
    text = CliRunner().invoke(cli, ["diff", "--help"]).output
    for option in ("--group", "--metric", "--only-changed", "--sort", "--basis", "--threshold", "--format",
                   "--output", "--no-color", "--width", "--fail-on", "--baseline"):
        assert option in text


def test_repeated_captures_from_the_command_line(tmp_path):
    block = next(iter(json.loads((RUN / "b32.json").read_text()).values()))
    files = []
    for index, (label, total) in enumerate([("b32", 0.1147), ("b32", 0.1149), ("b32", 0.1146),
                                            ("fast", 0.1001), ("fast", 0.0999), ("fast", 0.1003)]):
        folder = tmp_path / f"run{index}"
        folder.mkdir()
        (folder / f"{label}.json").write_text(json.dumps({"n_x": dict(block, total_time=total)}))
        files.append(str(folder / f"{label}.json"))
    data = json.loads(run(*files, "--format", "json", "--metric", "total_time").output)
    row = data["rows"][0]
    assert (row["baseline"]["n"], row["n"]) == (3, [3])
    assert row["baseline"]["spread"] == [0.1146, 0.1149] and row["spread"] == [[0.0999, 0.1003]]
    assert row["step"]["p_value"] == [pytest.approx(0.1)] and row["step"]["verdict"] == ["unchanged"]
    assert (row["baseline"]["step"], row["step"]["value"]) == (0.1147, [0.1001])  # the medians
    assert data["captures"].startswith("repeated captures (b32 x3, fast x3)")
    assert row["change"] == ["-12.7% ?"]  # a big change, but 3 captures cannot show it is real


def test_a_side_without_a_batch_size_keeps_every_row_per_step(tmp_path):
    """No per-sample line may mix per-step and per-sample values (x has no batch size, and no FLOPs
    to infer one from)."""
    block = {k: v for k, v in next(iter(json.loads((RUN / "b16.json").read_text()).values())).items()
             if k != "model_flops"}
    unknown = tmp_path / "x.json"
    unknown.write_text(json.dumps({"n": block}))
    data = json.loads(run(B32, str(unknown), B64, "--format", "json", "--basis", "sample").output)
    assert all(row["shown_basis"] == "step" for row in data["rows"])
    total = next(row for row in data["rows"] if row["metric"] == "total_time")
    assert [side["label"] for side in data["variants"]] == ["x", "b64"]  # x has no per-sample value:
    assert total["sample"]["value"][0] is None and total["sample"]["verdict"][0] is None
    assert total["sample"]["value"][1] == pytest.approx(total["step"]["value"][1] / 64)
    assert not any(line["basis"] == "sample" for line in data["headline"])
    assert any("per-sample lines need every batch size" in w for w in data["warnings"])
