"""CLI: show, formats, convert, and one-line errors with non-zero exit codes."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from conftest import RUN, SEED

from neuroncmp.cli import cli


def run(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_show_b32_in_human_units():
    result = run("show", str(RUN / "b32.json"), "--no-color", "--width", "100")
    assert result.exit_code == 0
    out = result.output
    for fragment in ("20.39 %", "8.583 GiB", "114.7 ms", "7.742 GiB", "batch size 32", "lnc_config=2"):
        assert fragment in out, fragment
    assert "\x1b[" not in out


def test_show_json_is_normalized_base_units():
    result = run("show", str(RUN / "b32.json"), "--format", "json")
    data = json.loads(result.output)
    assert data["schema"] == "neuroncmp.profile/1"
    assert data["metrics"]["mfu_estimated_percent"]["value"] == 0.2039
    assert data["metrics"]["total_time"] == {"value": 0.1147, "unit": "s", "group": "overall_stats",
                                             "raw": "0.1147", "catalogued": True}
    assert data["memory_total_bytes"] == round(7.742 * 2**30)
    assert data["training"]["train_runtime"]["value"] == 174.6


def test_show_inferred_batch_size_is_marked():
    result = run("show", str(RUN / "baseline.json"), "--no-color", "--width", "120")
    assert "batch size 8 (inferred" in result.output
    assert "anomaly [percent-over-100]" in result.output


def test_show_whole_export_lists_every_section():
    result = run("show", str(SEED), "--format", "json")
    assert [p["label"] for p in json.loads(result.output)] == [
        "baseline", "b16", "b32", "b32-cc-optim", "b48", "b64", "b4", "b2"]


def test_formats_lists_parsers():
    result = run("formats")
    assert result.exit_code == 0
    for name in ("summary-json", "summary-text", "ui-markdown", "explorer-parquet", "neuron-monitor",
                 "trainer-json", "trainer-text"):
        assert name in result.output


def test_convert_writes_a_run_folder(tmp_path):
    result = run("convert", str(SEED), "-o", str(tmp_path / "run"))
    assert result.exit_code == 0
    assert (tmp_path / "run" / "b32-cc-optim.json").is_file()
    assert (tmp_path / "run" / "manifest.json").is_file()


@pytest.mark.parametrize("content, fragment", [
    (b"", "empty file"), (b'{"n": {"total_time": ', "valid JSON"), (b"\x00\x01\x02", "binary"),
])
def test_bad_input_is_one_line_and_exit_1(tmp_path, content, fragment):
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    result = CliRunner().invoke(cli, ["show", str(path)])
    assert result.exit_code == 1
    assert result.output.count("\n") == 1 and fragment in result.output and str(path) in result.output
    assert "Traceback" not in result.output


def test_failed_convert_writes_nothing(tmp_path):
    bad = tmp_path / "report.md"
    bad.write_text("# Baseline\n\nno tables\n")
    result = CliRunner().invoke(cli, ["convert", str(bad), "-o", str(tmp_path / "out")])
    assert result.exit_code == 1 and not (tmp_path / "out").exists()


def test_usage_error_is_exit_2():
    assert CliRunner().invoke(cli, ["show"]).exit_code == 2
