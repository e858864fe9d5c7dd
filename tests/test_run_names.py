"""One name per concept in what ``history``, ``regressions`` and the site print about shifts: a run
is named by its id and called a run, a commit by its hash and called a commit. The range of runs that
may start a new level was written "first new run between 92010b3 and 87684f3": commits, called runs,
next to "shift at run 2baf18ef6852", a run id."""

from __future__ import annotations

import csv
import re
import sys

import pytest
from click.testing import CliRunner
from conftest import ROOT

from neuroncmp.cli import cli
from neuroncmp.store import Store

sys.path.insert(0, str(ROOT / "scripts"))
import make_history


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """A generated history of 40 nights (one commit a night) with planted shifts; its commits."""
    out = tmp_path_factory.mktemp("names")
    make_history.generate_fleet(out, 40, 13, [("llama", 8)])
    Store(out / "store").add_listing(out / "runs.csv")
    with open(out / "runs.csv", newline="") as handle:
        commits = {row["commit"] for row in csv.DictReader(handle)}
    return out / "store", commits


def _names(text: str) -> list[tuple[str, str]]:
    """Every (word, name) where a run or a commit is named: "run 2baf18ef6852", "commits 92010b3"
    and the second end of a range ("and 87684f3" after "commits ...")."""
    found = re.findall(r"\b(runs?|commits?) `?([0-9a-f]{7,12})\b`?(?: and `?([0-9a-f]{7,12})\b)?", text)
    return [(word.rstrip("s"), name) for word, first, last in found for name in (first, last) if name]


@pytest.mark.parametrize("command", [["history", "dma_transfer_time"], ["regressions", "--all-changes"],
                                     ["regressions", "--all-changes", "--format", "md"]])
def test_a_run_is_called_a_run_and_a_commit_a_commit(store, command):
    folder, commits = store
    result = CliRunner().invoke(cli, [*command, "--store", str(folder)])
    assert result.exit_code == 0, result.output
    named = _names(result.output)
    assert any(word == "commit" for word, _ in named)  # the ranges are named by their commits
    for word, name in named:
        assert (name in commits) == (word == "commit"), (word, name)
    if command[0] == "history":  # a shift's range: said to be commits
        assert re.search(r"first new run (at commit [0-9a-f]{7}|between commits [0-9a-f]{7} and [0-9a-f]{7} "
                         r"\(\d+ runs), 95 %\)", result.output)


def test_the_json_writes_each_change_as_the_terminal_does(store):
    """``change_text`` (what the CI example prints) is the terminal's change column: points for a
    share, worked out from the JSON's own before and after; relative otherwise."""
    import json

    folder, _ = store
    data = json.loads(CliRunner().invoke(cli, ["regressions", "--all-changes", "--store", str(folder),
                                               "--format", "json"]).output)
    table = CliRunner().invoke(cli, ["regressions", "--all-changes", "--store", str(folder), "--width", "400"]).output
    assert data["changes"]
    for change in data["changes"]:
        (row,) = [line.split() for line in table.splitlines()
                  if f" {change['metric']} " in line and f" {change['at']['run']} " in line]
        assert change["change_text"] in row
        if change["unit"] == "fraction":
            assert change["change_text"].endswith("pp")
            assert float(change["change_text"][:-2]) == pytest.approx((change["after"] - change["before"]) * 100,
                                                                     abs=0.01)
