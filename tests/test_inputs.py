"""Inputs read as people type them (issue 21): plain folders, a glob over a run folder, sidecars
beside their profile, the same file given twice."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import RUN

from neuroncmp.cli import cli
from neuroncmp.ingest import load_set
from neuroncmp.store import Store


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


def rows(output: str) -> dict:
    """A comparison's JSON without where its files were (the inputs' paths differ by design)."""
    document = json.loads(output)
    return {"rows": document["rows"], "warnings": document["warnings"],
            "labels": [v["label"] for v in [document["baseline"], *document["variants"]]]}


@pytest.fixture
def plain(tmp_path) -> Path:
    """b4, b16 and b32 with their sidecars, copied without the manifest."""
    folder = tmp_path / "plain"
    folder.mkdir()
    for name in ("b4.json", "b16.json", "b16.memory.md", "b16.all_results.json", "b32.json",
                 "b32.memory.md", "b32.all_results.json"):
        shutil.copy(RUN / name, folder / name)
    return folder


def test_a_glob_over_a_run_folder_is_the_folder(tmp_path):
    folder = run("diff", str(RUN), "--format", "json")
    every = sorted(str(p) for p in RUN.iterdir())  # what `diff run/*` passes: manifest, sidecars, the export
    globbed = run("diff", *every, "--format", "json")
    assert globbed.exit_code == 0, globbed.output
    json_part = globbed.output[globbed.output.index("{"):]
    assert rows(json_part) == rows(folder.output)
    assert "repeated captures" not in json_part
    assert "manifest.json: read as the run folder" in globbed.output  # said (standard error)
    assert "003_a8d02f199ef107f4.txt: not named by" in globbed.output


def test_a_plain_folder_works_for_diff_and_sweep_with_batch_sizes_from_names(plain):
    result = run("diff", str(plain), "--format", "json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.output[result.output.index("{"):])
    assert [(v["label"], v["batch_size"]) for v in [document["baseline"], *document["variants"]]] == \
        [("b4", 4), ("b16", 16), ("b32", 32)]  # the smallest batch first: the baseline
    assert "a plain folder (no manifest.json): its 7 files" in result.output
    swept = run("sweep", str(plain), "--format", "json")
    assert swept.exit_code == 0, swept.output
    sweep = json.loads(swept.output[swept.output.index("{"):])
    assert [p["batch_size"] for p in sweep["axis"]] == [4, 16, 32]


def test_sidecars_beside_a_profile_are_joined_and_said(plain):
    profiles, notes = load_set([plain / "b16.json", plain / "b32.json"])
    assert [p.label for p in profiles] == ["b16", "b32"]
    trainer = json.loads((RUN / "b32.all_results.json").read_text())
    assert profiles[1].training["train_samples_per_second"].value == trainer["train_samples_per_second"]
    assert profiles[1].memory  # the memory table of b32.memory.md
    assert f"{plain / 'b32.memory.md'}: found beside b32.json; joined as its sidecar" in notes


def test_a_sidecar_given_is_joined_not_a_profile(plain):
    result = run("sweep", str(plain / "b32.json"), str(plain / "b32.all_results.json"))
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output and "one batch size (32)" in result.output
    assert "b32.all_results.json: joined to b32.json as its sidecar" in result.output
    profiles, _ = load_set([plain / "b16.all_results.json"])  # its profile is found beside it
    assert [p.label for p in profiles] == ["b16"] and profiles[0].training


def test_the_same_file_twice_is_one_capture_said_once(plain):
    profiles, notes = load_set([plain / "b32.json", plain / "b16.json", plain / "b32.json"])
    assert [p.label for p in profiles] == ["b32", "b16"]
    assert notes.count(f"{plain / 'b32.json'}: the same content as {plain / 'b32.json'}; "
                       "read once (one capture)") == 1


def test_store_add_of_a_plain_folder_adds_profiles_not_sidecars(plain, tmp_path):
    report = Store(tmp_path / "s").add(plain, at="2025-01-01")
    assert sorted(r.label for r in report.added) == ["b16", "b32", "b4"]
    (b32,) = Store(tmp_path / "s").runs(batch_size="32")
    trainer = json.loads((RUN / "b32.all_results.json").read_text())
    (series,) = Store(tmp_path / "s").history("train_samples_per_second", batch_size="32").series
    assert [p.run for p in series.points] == [b32.run]  # the sidecar's metrics, on its profile's run
    assert series.points[0].value == trainer["train_samples_per_second"]


def test_an_empty_folder_is_an_input_error(tmp_path):
    (tmp_path / "empty").mkdir()
    result = run("diff", str(tmp_path / "empty"), str(RUN / "b32.json"))
    assert result.exit_code == 1 and "a folder with no files in it" in result.output


def test_a_profile_against_a_trainer_file_is_warned_and_missing_values_are_not_stated(tmp_path):
    trainer = tmp_path / "all_results.json"  # a Trainer file that is no sidecar of the profile
    shutil.copy(RUN / "b16.all_results.json", trainer)
    import neuroncmp

    comparison = neuroncmp.compare(load_set([RUN / "b2.json", trainer])[0])
    warnings = list(comparison.warnings)
    assert warnings[0].startswith("trainer and b2 have no measured metric in common: nothing is compared")
    assert "inputs of different kinds: b2 is a device profile (summary-json), trainer is Trainer metrics" \
        in warnings[1]
    assert not any("differs" in w for w in warnings)  # a value one side lacks is no difference
    assert any(w.startswith("trainer does not state instance_type, compiler_version") for w in warnings)


def test_a_partial_memory_table_against_a_full_one_is_not_scored():
    import neuroncmp
    from neuroncmp.choices import BETTER, WORSE

    monitor = RUN.parent.parent / "tests" / "fixtures" / "neuron-monitor-report.json"
    comparison = neuroncmp.compare(load_set([RUN / "b32.json", monitor])[0])
    (row,) = [r for r in comparison.rows if r.name == "device_memory_total"]
    assert row.cells[0].step.verdict not in (BETTER, WORSE)  # -33 % is not "better"
    assert any(w.startswith("memory tables list different usage types (b32 22, neuron-monitor-report 5)")
               for w in comparison.warnings)


def test_what_questions_the_whole_comparison_is_in_the_first_lines():
    monitor = RUN.parent.parent / "tests" / "fixtures" / "neuron-monitor-report.json"
    result = run("diff", str(RUN / "b32.json"), str(monitor), "--no-color", "--width", "100")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    first = " ".join(lines[:8])
    assert "warning: inputs of different kinds" in first and "memory tables list different" in first
    assert result.output.count("inputs of different kinds") == 1  # said once


def test_store_add_of_a_glob_over_a_run_folder_adds_the_folder(tmp_path):
    every = sorted(RUN.iterdir())  # `store add run/*`: the manifest, sidecars, the export too
    report = Store(tmp_path / "glob").add(*every, at="2025-01-01")
    folder = Store(tmp_path / "folder").add(RUN, at="2025-01-01")
    assert sorted((r.run, r.label) for r in report.runs) == sorted((r.run, r.label) for r in folder.runs)
    assert len(report.added) == 8 and not report.present


def test_a_plain_folder_for_diff_does_not_follow_a_link_leading_out(plain, tmp_path):
    """As ``store add`` does: a file reached through a symlink that leads out of the folder is
    not read (it may be anything of the user's), and the link is named."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.copy(RUN / "b64.json", elsewhere / "b64.json")
    (plain / "b64.json").symlink_to(elsewhere / "b64.json")
    result = run("diff", str(plain), "--format", "json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.output[result.output.index("{"):])
    assert [v["label"] for v in [document["baseline"], *document["variants"]]] == ["b4", "b16", "b32"]
    assert "b64.json: a symlink leading out of" in result.output
