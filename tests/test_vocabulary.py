"""One vocabulary of options across commands (issue 21): every command that prints a listing or a
report takes --format (with json), -o, --width and --no-color; metric names resolve the same way;
and the store's edges are said plainly."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from conftest import RUN

from neuroncmp.cli import cli
from neuroncmp.store import Store

# commands whose output is a status line or files, not a listing or report, and why
NOT_REPORTS = {
    "capture": "writes a run folder (--out DIR)",
    "convert": "writes a run folder (-o DIR)",
    "report": "writes a site folder (-o DIR)",
    "mcp": "serves the commands to coding agents; it prints no report of its own",
    "store add": "prints what it added; the store is its output",
    "store compact": "one status line",
    "store series-by": "one status line",
}
SHARED = ("--format", "-o", "--width", "--no-color")


def commands(group: click.Group = cli, prefix: str = "") -> dict[str, click.Command]:
    out: dict[str, click.Command] = {}
    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            out.update(commands(command, f"{prefix}{name} "))
        else:
            out[f"{prefix}{name}"] = command
    return out


def test_every_report_command_has_the_shared_options_in_its_help():
    every = commands()
    assert set(NOT_REPORTS) <= set(every)
    for name, command in every.items():
        if name in NOT_REPORTS:
            continue
        shown = CliRunner().invoke(cli, [*name.split(), "--help"]).output
        missing = [option for option in SHARED if f"{option} " not in shown and f"{option}," not in shown]
        assert not missing, f"{name} --help lacks {missing}"
        (fmt,) = [p for p in command.params if "--format" in getattr(p, "opts", ())]
        assert "json" in getattr(fmt.type, "choices", ()), name
        if any("--where" in getattr(p, "opts", ()) for p in command.params) and name != "diff":
            assert "--series-by" in shown, name  # --where and --series-by go together on the store's


@pytest.mark.parametrize("args, schema", [
    (["show", str(RUN / "b32.json")], "neuroncmp.profile/1"),
    (["formats"], "neuroncmp.formats/1"),
])
def test_json_to_a_file_with_o(tmp_path, args, schema):
    out = tmp_path / "out.json"
    result = CliRunner().invoke(cli, [*args, "-o", str(out)])
    assert result.exit_code == 0, result.output
    document = json.loads(out.read_text())
    assert (document[0] if isinstance(document, list) else document)["schema"] == schema


def test_metrics_writes_its_listing_with_o(tmp_path):
    out = tmp_path / "mfu.txt"
    assert CliRunner().invoke(cli, ["metrics", "mfu*", "-o", str(out)]).exit_code == 0
    assert out.read_text().startswith("mfu_estimated_percent")


@pytest.mark.parametrize("width", [40, 60, 80])
def test_show_and_formats_honour_the_width(width):
    for args in (["show", str(RUN / "b32.json")], ["formats"]):
        result = CliRunner().invoke(cli, [*args, "--width", str(width)])
        assert result.exit_code == 0
        long = [line for line in result.output.splitlines() if len(line) > width]
        assert not long, long[:3]


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("vocabulary") / "s"
    folder = root.parent / "run"
    shutil.copytree(RUN, folder)
    Store(root).add(folder, tags={"model": "bert"}, at="2025-01-01")
    return root


def run(*args: str, store: Path):
    return CliRunner().invoke(cli, [*args, "--store", str(store)])


def test_store_ls_json_lists_each_runs_series(store):
    result = run("store", "ls", "--format", "json", store=store)
    document = json.loads(result.output)
    assert document["schema"] == "neuroncmp.runs/1" and document["series_count"] == 8
    b32 = next(r for r in document["runs"] if r["label"] == "b32-cc-optim")
    assert b32["series"] == {"batch_size": "32", "model": "bert", "variant": "cc-optim"}


def test_store_listings_and_regressions_honour_a_given_width(store):
    for args in (["store", "ls"], ["regressions", "--all-changes"]):
        result = run(*args, "--width", "60", store=store)
        assert result.exit_code == 0, result.output
        long = [line for line in result.output.splitlines() if len(line) > 60 and "/" not in line]
        assert not long, long[:3]


def test_metric_names_resolve_as_typed(store):
    result = run("history", "mfu", store=store)
    assert result.exit_code == 0 and result.output.startswith("mfu_estimated_percent [%]")
    result = run("history", "total_tme", store=store)
    assert result.exit_code == 2 and "did you mean total_time" in result.output
    result = run("history", "device_throughput", store=store)  # derived: kept in the store
    assert result.exit_code == 0, result.output
    values = {p.run: p.value for s in Store(store).history("device_throughput").series for p in s.points}
    totals = {p.run: p.value for s in Store(store).history("total_time").series for p in s.points}
    b32 = next(r for r in Store(store).runs() if r.label == "b32")
    assert values[b32.run] == pytest.approx(32 / totals[b32.run])


def test_history_shows_percent_shifts_in_points(tmp_path):
    import sys

    from conftest import ROOT

    sys.path.insert(0, str(ROOT / "scripts"))
    import make_history

    make_history.generate(tmp_path / "h", 60, seed=5, shifts={"mfu_estimated_percent": (40, -0.05)})
    Store(tmp_path / "s").add_listing(tmp_path / "h" / "runs.csv")
    result = run("regressions", "--format", "json", store=tmp_path / "s")
    (change,) = [c for c in json.loads(result.output)["changes"] if c["metric"] == "mfu_estimated_percent"]
    points = (change["after"] - change["before"]) * 100
    assert change["change_pp"] == pytest.approx(points)
    text = run("regressions", store=tmp_path / "s").output
    assert f"{points:+.2f}pp" in text  # percentage points, as diff shows them
    text = run("history", "mfu_estimated_percent", store=tmp_path / "s").output
    assert f"({points:+.2f}pp) worse" in text


def test_an_empty_add_creates_no_store_and_says_so(tmp_path):
    (tmp_path / "empty").mkdir()
    result = run("store", "add", str(tmp_path / "empty"), store=tmp_path / "s")
    assert result.exit_code == 1
    assert "nothing to add: no profile found; no store was created" in result.output
    assert not (tmp_path / "s").exists()


def test_re_adding_with_a_new_tag_says_the_first_tags_stay(tmp_path):
    run("store", "add", str(RUN / "b2.json"), "--tag", "model=a", store=tmp_path / "s")
    result = run("store", "add", str(RUN / "b2.json"), "--tag", "model=b", store=tmp_path / "s")
    assert result.exit_code == 0
    assert ("1 runs already present keep the tags of their first add (batch_size=2 model=a, not "
            "batch_size=2 model=b)") in " ".join(result.output.split())  # (the sentence wrapped at the width)
    assert Store(tmp_path / "s").runs()[0].tags == {"batch_size": "2", "model": "a"}


def test_check_sums_up_the_leftovers_of_an_interrupted_add(tmp_path):
    root = tmp_path / "s"
    Store(root).add(RUN / "b2.json")
    for n in range(970):  # what a killed bulk add leaves: part files no snapshot names
        (root / "tables" / "metrics" / f"dead-{n:04d}.parquet").write_bytes(b"")
    result = run("store", "check", "--width", "400", store=root)  # a line a message
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert len(lines) < 12  # not 970 lines
    assert lines[1].startswith("970 leftover files of an interrupted add: nothing of that add was added")
    assert "'neuroncmp store compact'" in lines[1] and "add the same files again" in lines[1]
    assert lines[-1] == "ok: every run complete, every copy matches its hash; 970 leftover files to remove"
    listed = json.loads(run("store", "check", "--format", "json", store=root).output)["leftovers"]
    assert len(listed) == 970


def test_a_metric_name_resolves_the_same_way_in_diff_metrics_and_history(store):
    diff = CliRunner().invoke(cli, ["diff", str(RUN / "b2.json"), str(RUN / "b4.json"), "--metric", "mfu",
                                    "--format", "json"])
    assert diff.exit_code == 0, diff.output
    document = json.loads(diff.output[diff.output.index("{"):])
    assert [r["metric"] for r in document["rows"]] == ["mfu_estimated_percent"]
    listed = CliRunner().invoke(cli, ["metrics", "mfu", "--format", "json"])
    assert [m["metric"] for m in json.loads(listed.output)] == ["mfu_estimated_percent"]
    assert run("history", "mfu", "--format", "json", store=store).exit_code == 0


def test_an_interrupted_add_says_what_happened_and_what_to_do(tmp_path, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(Store, "add", interrupted)
    result = CliRunner().invoke(cli, ["store", "add", str(RUN / "b2.json"), "--store", str(tmp_path / "s")])
    assert result.exit_code == 130
    assert "store add interrupted: an add is all or nothing" in result.stderr
    assert "'neuroncmp store compact'" in result.stderr and "add the same files again" in result.stderr
