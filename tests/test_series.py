"""Series identity (issue 21): nightly file names cannot split a series, a store can be re-keyed,
and a --where that matches nothing is a usage error, so no typo passes a CI gate."""

from __future__ import annotations

import json
import shutil
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import ROOT, RUN

from neuroncmp.catalog import derived_specs
from neuroncmp.cli import cli
from neuroncmp.errors import UsageError
from neuroncmp.store import Store

sys.path.insert(0, str(ROOT / "scripts"))
import make_history

CONFIGS = [("llama-1b", 8), ("llama-1b", 16), ("bert-large", 32)]
RUNS = 40
START = datetime(2025, 1, 1, 2, 0, tzinfo=timezone.utc)


def cli_run(*args: str, store: Path) -> tuple[int, str]:
    result = CliRunner().invoke(cli, [*args, "--store", str(store)])
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def fleets(tmp_path_factory) -> dict[str, tuple[Path, dict]]:
    """The same nightly history of three configurations under every naming, each in its store."""
    made = {}
    for naming in make_history.NAMINGS:
        out = tmp_path_factory.mktemp(f"fleet-{naming}")
        truth = make_history.generate_fleet(out, RUNS, 7, CONFIGS, naming)
        Store(out / "store").add_listing(out / "runs.csv")
        made[naming] = (out, truth)
    return made


def _found(store: Store, truth: dict) -> tuple[int, int, set]:
    """(planted shifts, those found within 2 runs of the truth, every change found): the truth
    from the generator, each change's run index from its time (one run a day)."""
    changes = store.regressions(all_changes=True).changes
    at = {(c.metric, c.series["model"], int(c.series["batch"]), (c.at.time - START).days)
          for c in changes}
    planted = hit = 0
    for (model, batch), history in truth.items():
        for metric, (index, _) in history.shifts.items():
            planted += 1
            hit += any((metric, model, batch, index + d) in at for d in range(-2, 3))
    return planted, hit, at


def test_the_naming_changes_no_value(fleets):
    neutral, commit = fleets["neutral"][0], fleets["commit"][0]
    for model, batch in CONFIGS:
        for a in neutral.glob(f"*/{model}-b{batch}.json"):  # <commit>/<model>-b<batch>.json
            b = commit / f"{model}-b{batch}-{a.parent.name}.json"
            assert a.read_text() == b.read_text()


@pytest.mark.parametrize("naming", [n for n in make_history.NAMINGS if n != "neutral"])
def test_names_with_commit_date_run_or_host_find_shifts_as_neutral_names_do(fleets, naming):
    neutral_dir, truth = fleets["neutral"]
    planted, neutral_hits, neutral_changes = _found(Store(neutral_dir / "store"), truth)
    store = Store(fleets[naming][0] / "store")
    _, hits, changes = _found(store, truth)
    assert planted > 20 and neutral_hits >= 0.8 * planted  # the detector finds most of them
    assert hits == neutral_hits and changes == neutral_changes  # the names change nothing
    series = store.history("total_time").series
    assert sorted((s.tags["model"], s.tags["batch"]) for s in series) == \
        sorted((m, str(b)) for m, b in CONFIGS)  # one series per configuration
    assert all(len(s.points) == RUNS for s in series)
    (one,) = store.history("total_time", model="llama-1b", batch="8").series
    assert len(one.points) == RUNS


@pytest.mark.parametrize("naming", ["commit", "date", "run", "host"])
def test_a_folder_added_without_tags_keeps_the_stable_part_of_the_names(fleets, naming, tmp_path):
    out = fleets[naming][0]
    store = Store(tmp_path / "s")
    store.add(*(p for p in sorted(out.glob("*.json"))), at="2025-01-01")
    keys = {json.dumps(dict(r.tags), sort_keys=True) for r in store.runs()}
    assert keys == {json.dumps({"batch_size": str(b), "variant": m}, sort_keys=True)
                    for m, b in CONFIGS}


def test_given_tags_keep_a_file_name_label_out_of_the_series(tmp_path):
    src = tmp_path / "nightly"
    src.mkdir()
    ((key, block),) = json.loads((RUN / "b32.json").read_text()).items()
    for number, commit in enumerate(("3f2a9c1", "9b1d0e2")):
        changed = {**block, "total_time": block["total_time"] * (1 + number / 100)}
        (src / f"model-b8-{commit}.json").write_text(json.dumps({key: changed}))
    store = Store(tmp_path / "s")
    store.add(src, tags={"model": "llama-1b"}, at="2025-01-01")
    assert {tuple(sorted(r.tags.items())) for r in store.runs()} == {
        (("batch_size", "8"), ("model", "llama-1b"))}
    assert {r.commit for r in store.runs()} == {None}  # a commit only when asked for


def test_the_commit_comes_from_a_name_part_only_when_asked(tmp_path):
    src = tmp_path / "model-b8-3f2a9c1.json"
    shutil.copy(RUN / "b32.json", src)
    code, _ = cli_run("store", "add", str(src), "--commit-from-name", store=tmp_path / "s")
    assert code == 0
    (run,) = Store(tmp_path / "s").runs()
    assert run.commit == "3f2a9c1" and run.tags == {"batch_size": "8", "variant": "model"}
    code, _ = cli_run("store", "add", str(src), "--commit-from-name", "--commit", "abc1234",
                      store=tmp_path / "t")
    assert Store(tmp_path / "t").runs()[0].commit == "abc1234"  # --commit wins


def _split_store(tmp_path: Path) -> Path:
    """A store whose listing has a ``host`` column: every run its own series."""
    out = tmp_path / "fleet"
    out.mkdir()
    make_history.generate_fleet(out, 24, 5, [("llama-1b", 8)], "neutral", shift_rate=0.0)
    rows = (out / "runs.csv").read_text().splitlines()
    rows = [rows[0] + ",host"] + [f"{row},ip-10-0-0-{i}" for i, row in enumerate(rows[1:])]
    (out / "runs.csv").write_text("\n".join(rows) + "\n")
    Store(tmp_path / "s").add_listing(out / "runs.csv")
    return tmp_path / "s"


def test_most_series_too_short_is_warned_and_a_store_is_rekeyed_without_readding(tmp_path):
    root = _split_store(tmp_path)
    block = json.loads(next((tmp_path / "fleet").rglob("*.json")).read_text()).popitem()[1]
    numbers = {k for k, v in block.items() if isinstance(v, (int, float))} | {"batch_size"}
    metrics = len(numbers) - 1 + sum(set(d.inputs) <= numbers for d in derived_specs())
    code, output = cli_run("regressions", store=root)
    assert code == 0
    assert f"warning: {24 * metrics:,} series, none with the 10 runs a shift test needs" in output
    assert "--series-by" in output
    code, output = cli_run("history", "total_time", store=root)
    assert "24 series, none with the 10 runs" in output
    code, output = cli_run("regressions", "--series-by", "model,batch", store=root)
    assert code == 0 and f"in {metrics} series" in output and "warning" not in output
    files = sorted(p.name for p in (root / "tables" / "runs").iterdir())
    code, output = cli_run("store", "series-by", "model,batch", store=root)
    assert (code, output) == (0, "series by model,batch\n")
    assert sorted(p.name for p in (root / "tables" / "runs").iterdir()) == files  # nothing re-added
    (series,) = Store(root).history("total_time").series
    assert len(series.points) == 24 and dict(series.tags) == {"model": "llama-1b", "batch": "8"}
    code, output = cli_run("store", "ls", "--width", "200", store=root)  # a line a run
    assert output.splitlines()[0].split() == ["run", "time", "commit", "label", "series", "other",
                                              "tags"]
    assert output.endswith("24 runs in 1 series\n")
    assert "batch=8 model=llama-1b" in output.splitlines()[1]
    cli_run("store", "series-by", "--all-tags", store=root)
    assert len(Store(root).history("total_time").series) == 24


def test_a_series_key_no_run_has_is_a_usage_error_with_the_closest(tmp_path):
    root = _split_store(tmp_path)
    code, output = cli_run("store", "series-by", "modl", store=root)
    assert code == 2 and "did you mean model" in output
    with pytest.raises(UsageError, match="modle"):
        Store(root).regressions(series_by="modle")


@pytest.mark.parametrize("command", [
    ["regressions", "--fail-on-regression"],
    ["history", "total_time"],
    ["store", "ls"],
])
def test_a_where_typo_is_a_usage_error_naming_the_closest_value(fleets, command):
    root = fleets["neutral"][0] / "store"
    code, output = cli_run(*command, "--where", "model=bert-larg", store=root)
    assert code == 2, output
    assert "model=bert-larg: no run has this value; did you mean bert-large?" in output
    code, output = cli_run(*command, "--where", "modle=bert-large", store=root)
    assert code == 2 and "no run has a tag 'modle'; did you mean model?" in output
    code, output = cli_run(*command, "--where", "model=bert-large", "--where", "batch=8", store=root)
    assert code == 2 and "no run has all of these tags together" in output


def test_a_where_typo_with_baseline_history_is_a_usage_error(fleets):
    out = fleets["neutral"][0]
    new = next(out.glob("*/bert-large-b32.json"))
    code, output = cli_run("diff", str(new), "--baseline-history", "--where", "model=bert-larg",
                           store=out / "store")
    assert code == 2 and "did you mean bert-large?" in output


@pytest.mark.parametrize("name, stable", [
    ("model-3f2a9c1", "model"), ("llama-1b-run-0042", "llama-1b"), ("llama-1b-ip-10-0-1-23", "llama-1b"),
    ("llama-1b-2025-01-22t02-00-00z", "llama-1b"), ("llama-20250103t020000z", "llama"),
    ("llama-r42", "llama"), ("cc-optim", "cc-optim"), ("llama-tp-8", "llama-tp-8"),
    ("bert-seq-512", "bert-seq-512"), ("dry-run", "dry-run"), ("deadbeef-x", "deadbeef-x"),
])
def test_the_stable_part_of_a_name(name, stable):
    from neuroncmp.store.identity import stable_name

    assert stable_name(name) == stable


def test_an_empty_series_key_is_refused_and_changes_nothing(tmp_path):
    root = _split_store(tmp_path)
    assert cli_run("store", "series-by", "model", store=root)[0] == 0
    code, output = cli_run("store", "series-by", "", store=root)
    assert code == 2 and "no tag named" in output
    assert Store(root).series_by() == ("model",)  # refused before the store changed


def test_a_bulk_add_that_splits_its_runs_says_so(tmp_path):
    out = tmp_path / "fleet"
    out.mkdir()
    make_history.generate_fleet(out, 12, 5, [("llama-1b", 8)], "neutral", shift_rate=0.0)
    rows = (out / "runs.csv").read_text().splitlines()
    split = [rows[0] + ",host"] + [f"{row},ip-10-0-0-{i}" for i, row in enumerate(rows[1:])]
    (out / "split.csv").write_text("\n".join(split) + "\n")
    code, output = cli_run("store", "add", "--runs", str(out / "split.csv"), store=tmp_path / "a")
    assert code == 0 and "warning: the 12 runs added form 12 series, 12 of them of one run" in output
    code, output = cli_run("store", "add", "--runs", str(out / "runs.csv"), store=tmp_path / "b")
    assert code == 0 and "warning" not in output  # one series of 12 runs


def test_a_survey_is_the_regressions_and_each_drawn_metrics_history(fleets):
    """The site's one read (``Store.survey``): the regressions as ``regressions`` gives them and,
    from the same scan and detection, the history of each metric asked for and of every metric
    with a change listed, as ``history`` gives it."""
    out, truth = fleets["neutral"]
    store = Store(out / "store")
    listed, found = store.survey(["total_time", "no_such_metric"], all_changes=True)
    assert listed == store.regressions(all_changes=True)
    planted = {metric for history in truth.values() for metric in history.shifts}
    assert {"total_time"} | planted <= set(found) == {"total_time"} | {c.metric for c in listed.changes}
    for metric in sorted(found):
        assert found[metric] == store.history(metric)
    since = listed.changes[len(listed.changes) // 2].at.time
    later, _ = store.survey([], since=since)
    assert later == store.regressions(since=since)
