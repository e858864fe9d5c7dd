"""The example nightly workflow (examples/ci/, issue 25 item 3): its YAML parses and calls the
script, and the script's steps run here, night by night, on generated profiles: the store grows
by each night with its commit and time, the gate fails on the nights a regression first becomes
visible (the planted total_time shift, and the active-time shares it divides, each on its own
noise: make_history derives them), never twice for one, the summary names them, and the site is
written."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from conftest import ROOT

from neuroncmp.analysis.shifts import MIN_SIZE
from neuroncmp.store import Store

sys.path.insert(0, str(ROOT / "scripts"))
import make_history

CI = ROOT / "examples" / "ci"
SHIFT_AT = 20          # the night total_time steps up 6 %
FIRST_NIGHT = SHIFT_AT + MIN_SIZE - 2   # the script runs from here; earlier nights are seeded
LAST_NIGHT = SHIFT_AT + MIN_SIZE + 3
START = datetime(2025, 1, 1, 2, 0, tzinfo=timezone.utc)  # make_history: one run a night from here


def test_the_workflow_parses_and_runs_the_script():
    yaml = pytest.importorskip("yaml", reason="PyYAML (the test extra) checks the workflow parses")
    workflow = yaml.safe_load((CI / "nightly.yml").read_text())
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` as true
    assert set(triggers) == {"schedule", "workflow_dispatch"}
    steps = workflow["jobs"]["nightly"]["steps"]
    uses = [step.get("uses", "").split("@")[0] for step in steps]
    assert {"actions/cache/restore", "actions/cache/save", "actions/upload-pages-artifact",
            "actions/deploy-pages"} <= set(uses)
    assert [s["run"] for s in steps if "nightly.sh" in s.get("run", "")] == ["bash examples/ci/nightly.sh"]
    assert workflow["permissions"]["pages"] == "write"


@pytest.mark.slow  # a month of nights through the script: a minute on this machine
@pytest.mark.skipif(shutil.which("bash") is None, reason="the script is bash")
def test_the_nightly_steps_run_end_to_end(tmp_path):
    made = tmp_path / "generated"
    make_history.generate(made, LAST_NIGHT + 1, 21, {"total_time": (SHIFT_AT, 0.06)}, noisy_nodes=0.0)
    listing = (made / "runs.csv").read_text().splitlines()
    rows = [line.split(",") for line in listing[1:]]  # path, time, commit, model, instance
    seed = tmp_path / "seed"
    seed.mkdir()
    (seed / "runs.csv").write_text("\n".join(listing[: FIRST_NIGHT + 1]) + "\n")
    for name, *_ in rows[:FIRST_NIGHT]:
        shutil.copy(made / name, seed / name)
    store = tmp_path / "store"
    Store(store).add_listing(seed / "runs.csv")  # the nights before this test's first
    summary = tmp_path / "summary.md"
    reported = Path(f"{store}-state") / "reported"  # the gate's memory: one regression a line
    failed: list[tuple[int, list[str]]] = []
    for night in range(FIRST_NIGHT, LAST_NIGHT + 1):
        known = reported.read_text().splitlines() if reported.exists() else []
        name, when, commit, model, instance = rows[night]
        tonight = tmp_path / f"night-{night}"
        tonight.mkdir()
        shutil.copy(made / name, tonight / name)
        env = {**os.environ, "NIGHT_PROFILES": str(tonight), "STORE": str(store),
               "SITE": str(tmp_path / "site"), "COMMIT": commit, "RUN_TIME": when,
               "TAGS": f"model={model} instance={instance}", "SUMMARY": str(summary),
               "COMMIT_URL": "https://example.com/repo/commit/{commit}",
               "NEURONCMP": f"{sys.executable} -m neuroncmp", "PYTHON": sys.executable,
               "GITHUB_REPOSITORY": "",
               "PYTHONPATH": str(ROOT)}
        done = subprocess.run(["bash", str(CI / "nightly.sh")], env=env, capture_output=True,
                              text=True, timeout=300, check=False)
        assert done.returncode in (0, 3), done.stderr
        if done.returncode == 3:
            failed.append((night, reported.read_text().splitlines()[len(known):]))
    # a shift is visible once enough nights hold the new level (at least MIN_SIZE): a night fails
    # only on regressions not reported before, each reported once, all of the planted shift's
    regressions = [json.loads(line) for line in reported.read_text().splitlines()]
    assert failed and all(new for _, new in failed), (failed, summary.read_text())
    assert len({(metric, json.dumps(series)) for metric, series, _ in regressions}) == len(regressions)
    first = next(night for night, new in failed if any(json.loads(line)[0] == "total_time" for line in new))
    assert first >= SHIFT_AT + MIN_SIZE - 1
    shares = {metric for metric, _, _ in regressions if metric.endswith("_active_time_percent")}
    assert {metric for metric, _, _ in regressions} - shares <= {
        "total_time", "neuroncore_cycle_count", "achieved_flop_rate", "device_throughput", "time_per_sample"}
    assert all(run == regressions[0][2] for _, _, run in regressions)  # all from the planted night's run
    runs = Store(store).runs()
    assert len(runs) == LAST_NIGHT + 1
    last = runs[-1]
    assert (last.commit, last.time) == (rows[LAST_NIGHT][2], START + timedelta(days=LAST_NIGHT))
    assert last.tags == {"model": "bert-large", "instance": "trn1.2xlarge"}
    text = summary.read_text()
    assert text.count("## neuroncmp: regressions since") == LAST_NIGHT - FIRST_NIGHT + 1
    # reported once each, on the nights they became visible: total_time and the metrics computed from it
    assert len(re.findall(r"\*\*[1-9]\d* new regression\(s\)\*\*:", text)) == len(failed)
    assert "- `total_time` +" in text
    # the message names the commits that may have made the change: a git range from a night
    # before the planted one up to a night at or after it (commits are per night here)
    # each change as `regressions` writes it (the JSON's change_text): a share's in points (it was
    # written "-3.1%", relative), a time's relative
    messages = [re.match(r"- `(\w+)` (\S+) in ", x).groups() for x in text.splitlines() if x.startswith("- `")]
    assert any(metric.endswith("_percent") for metric, _ in messages)
    for metric, change in messages:
        assert re.fullmatch(r"[-+]\d*\.?\d+(pp|%)", change) and change.endswith("pp") == metric.endswith("_percent")
    line = next(x for x in text.splitlines() if x.startswith("- `total_time` +"))
    assert "first new run " in line and "95 %)" in line
    old, new = re.search(r"`git log (\w+)\.\.(\w+)`", line).groups()
    night = {row[2]: i for i, row in enumerate(rows)}
    assert night[old] < SHIFT_AT <= night[new], line
    index = (tmp_path / "site" / "index.html").read_text()
    shift_commit = rows[SHIFT_AT][2]
    assert f'href="https://example.com/repo/commit/{shift_commit}"' in index
    assert ">total_<wbr>time</a>" in index  # listed among the regressions


def _night(tmp_path, env_extra: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """One night of the script on one bundled profile, into a store under ``tmp_path``."""
    tonight = tmp_path / "tonight"
    tonight.mkdir(exist_ok=True)
    shutil.copy(ROOT / "profiles" / "trn1-2xlarge-bs-sweep" / "b32.json", tonight / "b32.json")
    env = {**os.environ, "NIGHT_PROFILES": str(tonight), "STORE": str(tmp_path / "store"),
           "SITE": str(tmp_path / "site"), "COMMIT": "abc123", "RUN_TIME": "2025-01-01T02:00:00Z",
           "SUMMARY": str(tmp_path / "summary.md"), "NEURONCMP": f"{sys.executable} -m neuroncmp",
           "PYTHON": sys.executable, "GITHUB_REPOSITORY": "", "PYTHONPATH": str(ROOT), **env_extra}
    return subprocess.run(["bash", str(CI / "nightly.sh")], env=env, capture_output=True, text=True,
                          timeout=300, check=False)


@pytest.mark.slow  # a month of nights through the script: a minute on this machine
@pytest.mark.skipif(shutil.which("bash") is None, reason="the script is bash")
def test_a_failing_last_step_keeps_the_last_checked_state(tmp_path):
    """Step 5 redirected into last-checked before its command ran: a failing ``store ls`` left the
    file empty, and every later night failed on ``--since ''`` until someone edited it. The state is
    now written beside and renamed after success; the next night runs."""
    state = tmp_path / "store-state"
    state.mkdir()
    (state / "last-checked").write_text("2024-12-01T00:00:00Z\n")
    failing = tmp_path / "neuroncmp-failing-ls"
    failing.write_text(f'#!/usr/bin/env bash\nif [[ "$1 $2" == "store ls" ]]; then exit 1; fi\n'
                       f'exec {sys.executable} -m neuroncmp "$@"\n')
    failing.chmod(0o755)
    first = _night(tmp_path, {"NEURONCMP": str(failing)})
    assert first.returncode == 1, first.stderr
    assert (state / "last-checked").read_text() == "2024-12-01T00:00:00Z\n"
    assert not [p.name for p in state.iterdir() if p.name.startswith("last-checked.")]  # no temporary left
    second = _night(tmp_path, {"RUN_TIME": "2025-01-02T02:00:00Z"})
    assert second.returncode == 0, second.stderr
    assert (state / "last-checked").read_text() == "1970-01-01T00:00:00Z\n"  # fewer runs than WINDOW


@pytest.mark.skipif(shutil.which("bash") is None, reason="the script is bash")
@pytest.mark.parametrize("setting,value,said", [
    ("WINDOW", "abc", "WINDOW 'abc': expected a whole number"), ("WINDOW", "0", "WINDOW '0'"),
    ("RUN_TIME", "yesterday", "RUN_TIME 'yesterday': expected an ISO 8601 time"),
    ("NIGHT_PROFILES", "/nonexistent/night", "NIGHT_PROFILES '/nonexistent/night': no such file"),
    ("PYTHON", "no-such-python", "PYTHON 'no-such-python': no such command"),
])
def test_the_settings_are_checked_before_anything_is_written(tmp_path, setting, value, said):
    done = _night(tmp_path, {setting: value})
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [f"nightly.sh: {done.stderr.split(': ', 1)[1].strip()}"]
    assert said in done.stderr
    assert not (tmp_path / "store").exists() and not (tmp_path / "store-state").exists()


@pytest.mark.skipif(shutil.which("bash") is None, reason="the script is bash")
def test_an_emptied_state_file_is_named_not_read_as_a_time(tmp_path):
    state = tmp_path / "store-state"
    state.mkdir()
    (state / "last-checked").write_text("")
    done = _night(tmp_path, {})
    assert done.returncode == 2 and "last-checked holds no time" in done.stderr
