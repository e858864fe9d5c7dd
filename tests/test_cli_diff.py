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


def test_acceptance_baseline_vs_b32():
    result = run(BASE, B32, "--no-color", "--width", "120")
    assert result.exit_code == 0
    out = result.output
    assert "mfu_estimated_percent [%]" in out and "10.87" in out and "20.39" in out and "+9.52pp✔" in out
    assert "spill_reload_bytes/sample [MiB]" in out and "-9.5%✔" in out   # per sample: better
    assert "+262%✘" in out                                               # per step: worse
    assert "cc_op_time/sample [ms]" in out and "-71.3%✔" in out and "+14.9%✘" in out
    assert "batch size 8 is inferred" in out


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
        row = next(r for r in csv.DictReader(io.StringIO(result.output)) if r["metric"] == "mfu_estimated_percent")
        assert row["tripped_rules"] == "mfu_estimated_percent<-2pp"


@pytest.mark.parametrize("rule, fragment", [
    ("mfu<<2", "expected METRIC"), ("nope_metric>1%", "no metric matches"),
    ("total_time>+2pp", "pp applies to percentages only"), ("total_time>", "expected METRIC"),
])
def test_malformed_rules_are_usage_errors(rule, fragment):
    result = run(BASE, B32, "--fail-on", rule)
    assert result.exit_code == 2 and fragment in result.output


def test_multi_section_export_with_baseline_by_title():
    result = run(str(SEED), "--baseline", "Batch 16", "--format", "json")
    data = json.loads(result.output)
    assert data["baseline"]["label"] == "b16"
    assert [v["label"] for v in data["variants"]] == ["baseline", "b32", "b32-cc-optim", "b48", "b64", "b4", "b2"]


def test_unknown_baseline_is_usage_error():
    result = run(str(SEED), "--baseline", "Batch 7")
    assert result.exit_code == 2 and "no profile has that label" in result.output


def test_single_profile_is_an_error():
    result = run(B32)
    assert result.exit_code == 1 and "at least two labels" in result.output


def test_output_file_format_from_extension(tmp_path):
    for suffix, check in ((".json", lambda t: json.loads(t)["schema"] == "neuroncmp.comparison/1"),
                          (".csv", lambda t: t.startswith("metric,group,unit")),
                          (".md", lambda t: t.startswith("## neuroncmp diff")),
                          (".html", lambda t: t.startswith("<!DOCTYPE html>")),
                          (".txt", lambda t: t.startswith("neuroncmp diff:"))):
        out = tmp_path / f"diff{suffix}"
        result = run(BASE, B32, "-o", str(out))
        assert result.exit_code == 0 and result.output == "" and check(out.read_text()), suffix


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
    result = run(BASE, B32, "--only-changed", "--format", "json")
    data = json.loads(result.output)
    assert data["hidden_unchanged"] == 32
    assert all(any(c["step"]["verdict"] != "unchanged" or (c["sample"] or {}).get("verdict", "unchanged") != "unchanged"
                   for c in row["cells"]) for row in data["rows"])


def test_group_metric_sort_basis_threshold_options():
    data = json.loads(run(BASE, B32, "--group", "tensor_engine", "--metric", "mfu*", "--format", "json").output)
    assert [r["metric"] for r in data["rows"]] == ["mfu_estimated_percent", "mfu_max_achievable_estimated_percent"]
    names = [r["metric"] for r in json.loads(run(BASE, B32, "--sort", "name", "--format", "json").output)["rows"]]
    assert names == sorted(names)
    step = json.loads(run(BASE, B32, "--basis", "step", "--format", "json").output)
    assert step["basis"] == "step"
    total = next(r for r in step["rows"] if r["metric"] == "total_time")["cells"][0]
    assert total["shown_basis"] == "step" and total["step"]["verdict"] == "worse"
    loose = json.loads(run(BASE, B32, "--threshold", "time=500%", "--format", "json").output)
    total = next(r for r in loose["rows"] if r["metric"] == "total_time")["cells"][0]
    assert total["step"]["verdict"] == "unchanged" and loose["noise_bands"]["time"] == "500%"


def test_bad_threshold_is_usage_error():
    result = run(BASE, B32, "--threshold", "lots")
    assert result.exit_code == 2 and "--threshold 'lots'" in result.output


def test_csv_is_tidy_one_row_per_metric_variant_basis():
    rows = list(csv.DictReader(io.StringIO(run(BASE, B32, B64, "--format", "csv").output)))
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
    assert "trend" in out and "▃█▄▂▁▁▁▁" in out  # total_time/sample across the sweep


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
    cell = data["rows"][0]["cells"][0]
    assert (cell["n_baseline"], cell["n_variant"]) == (3, 3)
    assert cell["step"]["p_value"] == pytest.approx(0.1) and cell["step"]["verdict"] == "unchanged"
    assert data["captures"].startswith("repeated captures (b32 x3, fast x3)")
    assert cell["display"]["change"] == "-12.7% ?"  # a big change, but 3 captures cannot show it is real
