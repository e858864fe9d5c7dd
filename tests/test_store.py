"""The profile store: idempotent, atomic, safe with several adders, compaction that changes no
answer, bad listings refused whole, foreign folders never touched, and the CLI on top."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import ROOT, RUN

from neuroncmp.catalog import derived_specs
from neuroncmp.cli import cli
from neuroncmp.errors import InputError, UsageError
from neuroncmp.store import Store

pytest.importorskip("duckdb")
pytest.importorskip("pyarrow")

sys.path.insert(0, str(ROOT / "scripts"))
import make_history

SHIFTS = {"total_time": (40, 0.05), "mfu_estimated_percent": (40, -0.05)}


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    """60 generated runs of b32 with two known shifts at run 40, and their runs.csv."""
    out = tmp_path_factory.mktemp("history")
    make_history.generate(out, 60, seed=5, shifts=SHIFTS)
    return out


# The metrics generated from total_time (make_history derives them as the profiler does): each
# active-time share (its time / total_time) and the cycle count; and achieved_flop_rate =
# model_flops / total_time, which neuroncmp derives.
DERIVED = make_history.synthetic.relations(make_history.base_metrics(make_history.BASE)[1]).moved_by(set(SHIFTS))


def follows_the_planted(found: set[str]) -> bool:
    """Every planted shift found, with what neuroncmp derives from total_time; anything else found is
    derived by the generator from a planted one."""
    return set(SHIFTS) | {"achieved_flop_rate"} <= found <= set(SHIFTS) | {"achieved_flop_rate"} | DERIVED


def files_state(folder: Path) -> dict[str, tuple[int, float]]:
    return {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime)
            for p in sorted(folder.rglob("*"))}


def cli_run(*args: str, store: Path) -> tuple[int, str]:
    result = CliRunner().invoke(cli, [*args, "--store", str(store)])
    return result.exit_code, result.output


# ---- adding --------------------------------------------------------------------------------------

def test_adding_the_same_content_twice_is_one_run(tmp_path):
    store = Store(tmp_path / "s")
    first = store.add(RUN)
    assert len(first.added) == 8 and not first.present
    again = store.add(RUN / "b32.json", RUN)
    assert not again.added and len(again.present) == 9  # b32 named twice: present both times
    assert len(store.runs()) == 8
    copy = tmp_path / "copy.json"
    shutil.copy(RUN / "b32.json", copy)  # same bytes, another name: the same run
    assert len(store.add(copy).present) == 1
    assert store.check().ok


def test_a_present_run_is_reported_as_the_store_keeps_it(tmp_path):
    """Adding the same content again with another --at reports the stored time and its source,
    not the ones this add would have given."""
    store = Store(tmp_path / "s")
    store.add(RUN / "b32.json", at="2025-03-01T10:00:00Z")
    (again,) = store.add(RUN / "b32.json", at="2026-01-01T00:00:00Z").runs
    assert again.present and (again.time, again.time_source) == ("2025-03-01T10:00:00Z", "--at")
    (run,) = store.runs()
    assert again.run == run.run and again.label == run.label


def test_a_run_keeps_its_profile_facts_and_tags(tmp_path):
    store = Store(tmp_path / "s")
    store.add(RUN / "b32-cc-optim.json", tags={"model": "bert"}, commit="abc1234",
              at="2025-03-01T10:00:00+02:00")
    (run,) = store.runs()
    assert run.tags == {"batch_size": "32", "variant": "cc-optim", "model": "bert"}
    assert run.commit == "abc1234" and run.time_source == "--at"
    assert run.time.isoformat() == "2025-03-01T08:00:00+00:00"
    metrics = store.table("metrics")
    total = metrics[metrics.metric == "total_time"].value.item()
    assert total == json.loads((RUN / "b32-cc-optim.json").read_text()).popitem()[1]["total_time"]
    memory = store.table("memory")
    assert len(memory) == 23  # the manifest's memory sidecar, row by row


def test_time_defaults_to_the_file_mtime_and_says_so(tmp_path):
    copy = tmp_path / "b4.json"
    shutil.copy(RUN / "b4.json", copy)
    os.utime(copy, (1_700_000_000, 1_700_000_000))
    report = Store(tmp_path / "s").add(copy)
    assert (report.runs[0].time, report.runs[0].time_source) == ("2023-11-14T22:13:20Z", "file mtime")


def test_every_added_file_is_kept_by_content_hash(tmp_path):
    import hashlib

    store = Store(tmp_path / "s")
    store.add(RUN / "b16.json")
    digest = hashlib.sha256((RUN / "b16.json").read_bytes()).hexdigest()
    kept = tmp_path / "s" / "objects" / digest[:2] / f"{digest}.json"
    assert kept.read_bytes() == (RUN / "b16.json").read_bytes()
    memory = (RUN / "b16.memory.md").read_bytes()
    assert any(p.read_bytes() == memory for p in (tmp_path / "s" / "objects").rglob("*.md"))


def test_a_listing_adds_rows_with_times_commits_and_tags(generated, tmp_path):
    store = Store(tmp_path / "s")
    report = store.add_listing(generated / "runs.csv")
    assert len(report.added) == 60 and {r.time_source for r in report.runs} == {"listing"}
    runs = store.runs()
    assert [r.time.day for r in runs[:3]] == [1, 2, 3]
    assert runs[0].tags == {"model": "bert-large", "instance": "trn1.2xlarge"}
    assert all(r.commit for r in runs)


def rows_of(store: Store, table: str) -> list[tuple]:
    frame = store.table(table).drop(columns=["added"], errors="ignore")
    return sorted(tuple(str(v) for v in row) for row in frame.itertuples(index=False))


def test_an_add_of_new_present_and_repeated_files_writes_each_new_run_once(generated, tmp_path):
    files = sorted(generated.glob("run-*.json"))
    copy = tmp_path / "copy.json"
    shutil.copy(files[12], copy)  # the content of files[12] under another name: the same run
    store = Store(tmp_path / "s")
    store.add(*files[:10], at="2025-01-01")
    report = store.add(*files[5:15], copy, at="2025-01-01")
    assert [r.present for r in report.runs] == [True] * 5 + [False] * 5 + [True]
    whole = Store(tmp_path / "whole")
    whole.add(*files[:15], at="2025-01-01")
    for table in ("runs", "metrics", "memory"):
        assert rows_of(store, table) == rows_of(whole, table)
    added = store.table("runs").groupby("added").size()
    assert sorted(added) == [5, 10]  # one time per add: its commit's
    assert store.check().ok


def test_keep_copies_whole_or_not_at_all(tmp_path):
    from shutil import SpecialFileError

    from neuroncmp.store import objects

    root = tmp_path / "s"
    objects.keep(root, "objects/ab/x.json", RUN / "b4.json")  # the folder made on the way
    assert (root / "objects/ab/x.json").read_bytes() == (RUN / "b4.json").read_bytes()
    (tmp_path / "empty.json").write_bytes(b"")
    objects.keep(root, "objects/ab/e.json", tmp_path / "empty.json")
    assert (root / "objects/ab/e.json").read_bytes() == b""
    with pytest.raises(FileNotFoundError):
        objects.keep(root, "objects/cd/m.json", tmp_path / "missing.json")
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "fifo.json")
        with pytest.raises(SpecialFileError, match="is a named pipe"):
            objects.keep(root, "objects/ab/f.json", tmp_path / "fifo.json")
    assert sorted(p.name for p in (root / "objects").rglob("*") if p.is_file()) == ["e.json", "x.json"]


def test_a_listing_names_a_file_once_whatever_the_path_to_it(tmp_path):
    (tmp_path / "data").mkdir()
    shutil.copy(RUN / "b4.json", tmp_path / "data" / "a.json")
    (tmp_path / "via").symlink_to(tmp_path / "data")
    (tmp_path / "data" / "alias.json").symlink_to(tmp_path / "data" / "a.json")
    listing = tmp_path / "runs.csv"
    listing.write_text("path\ndata/a.json\nvia/a.json\ndata/alias.json\ndata/../data/a.json\n")
    from neuroncmp.store import listing as listings

    entries, problems = listings.read(listing)
    assert [e.path.name for e in entries] == ["a.json"]
    assert [p.message for p in problems] == ["path '" + name + "' is listed already on line 2"
                                             for name in ("via/a.json", "data/alias.json", "data/../data/a.json")]


# ---- bad input ------------------------------------------------------------------------------------

def write_listing(folder: Path, rows: list[str]) -> Path:
    for name in ("a.json", "b.json"):
        shutil.copy(RUN / "b2.json" if name == "a.json" else RUN / "b4.json", folder / name)
    (folder / "broken.json").write_text('{"n_1": {"total_time": ')
    listing = folder / "runs.csv"
    listing.write_text("path,time,commit,model\n" + "\n".join(rows) + "\n")
    return listing


@pytest.mark.parametrize("bad_row, says", [
    ("missing.json,2025-01-03,c3,m", "line 4: path 'missing.json': no such file"),
    ("b.json,yesterday,c3,m", "line 4: time 'yesterday': expected an ISO 8601 time"),
    ("a.json,2025-01-03,c3,m", "line 4: path 'a.json' is listed already on line 2"),
    ("broken.json,2025-01-03,c3,m", "line 4: "),
])
def test_a_bad_listing_row_is_named_and_nothing_is_added(tmp_path, bad_row, says):
    rows = ["a.json,2025-01-01,c1,m", "b.json,2025-01-02,c2,m", bad_row]
    listing = write_listing(tmp_path, rows)
    store = Store(tmp_path / "s")
    with pytest.raises(InputError, match="nothing was added") as caught:
        store.add_listing(listing)
    assert says in str(caught.value)
    assert not (tmp_path / "s").exists()
    code, output = cli_run("store", "add", "--runs", str(listing), store=tmp_path / "s")
    assert code == 1 and says in output and "Traceback" not in output


def test_skip_bad_adds_the_rest_and_lists_what_it_skipped(tmp_path):
    listing = write_listing(tmp_path, ["a.json,2025-01-01,c1,m", "broken.json,2025-01-02,c2,m",
                                       "b.json,2025-01-03,c3,m"])
    code, output = cli_run("store", "add", "--runs", str(listing), "--skip-bad", store=tmp_path / "s")
    assert code == 0, output
    assert "added 2 runs" in output and "skipped" in output and "line 3" in output
    assert len(Store(tmp_path / "s").runs()) == 2


def test_a_folder_that_is_not_a_store_is_refused_untouched(tmp_path):
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "todo.txt").write_text("buy milk\n")
    before = files_state(folder)
    with pytest.raises(InputError, match="not a neuroncmp store"):
        Store(folder).add(RUN / "b2.json")
    code, output = cli_run("history", "total_time", store=folder)
    assert code == 1 and "not a neuroncmp store" in output
    assert files_state(folder) == before


def test_a_store_from_a_newer_schema_is_refused_untouched(tmp_path):
    store = Store(tmp_path / "s")
    store.add(RUN / "b2.json")
    marker = tmp_path / "s" / "STORE.json"
    marker.write_text(json.dumps({"schema": "neuroncmp.store/2"}))
    before = files_state(tmp_path / "s")
    for action in (lambda: store.add(RUN / "b4.json"), store.runs, store.compact, store.check):
        with pytest.raises(InputError, match="newer than this neuroncmp reads"):
            action()
    assert files_state(tmp_path / "s") == before


def test_a_missing_store_is_an_input_error_with_the_fix(tmp_path):
    code, output = cli_run("regressions", store=tmp_path / "nowhere")
    assert code == 1 and "no store here" in output and "store add" in output
    assert not (tmp_path / "nowhere").exists()


# ---- several writers, killed writers, compaction ---------------------------------------------------

ADDER = textwrap.dedent("""
    import sys, time
    from neuroncmp.store import Store
    start = float(sys.argv[2])
    while time.time() < start:
        time.sleep(0.001)
    Store(sys.argv[1]).add(*sys.argv[3:])
""")


def test_two_processes_adding_at_once_lose_and_double_nothing(generated, tmp_path):
    files = sorted(str(p) for p in generated.glob("run-*.json"))
    first, second = files[:40], files[20:]  # 20 files in both
    start = str(time.time() + 1.0)
    procs = [subprocess.Popen([sys.executable, "-c", ADDER, str(tmp_path / "s"), start, *chunk])
             for chunk in (first, second)]
    assert [p.wait(timeout=60) for p in procs] == [0, 0]
    store = Store(tmp_path / "s")
    runs = store.runs()
    assert len(runs) == len(files) == len({r.run for r in runs})
    per_run = store.table("metrics").groupby("run").size()
    block = json.loads(Path(files[0]).read_text()).popitem()[1]
    derived = [s.name for s in derived_specs() if set(s.inputs) <= set(block)]  # kept in the store too
    assert len(per_run) == len(files) and set(per_run) == {len(block) + len(derived)}
    assert store.check().ok


KILLER = textwrap.dedent("""
    import os, signal, sys
    from neuroncmp.store import folder, objects, parts, Store
    stage = sys.argv[2]
    def die(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGKILL)
    if stage == "before-publish":
        folder.write_snapshot = die
    elif stage == "mid-copy":
        real, count = objects.keep, [0]
        def keep(*args):
            count[0] += 1
            if count[0] == 5:
                die()
            real(*args)
        objects.keep = keep
    elif stage == "mid-write":
        def place(root, part):
            (root / "tables" / "runs" / f".{part}.parquet.tmp").write_bytes(b"PAR1 half")
            die()
        parts.place = place
    Store(sys.argv[1]).add(*sys.argv[3:])
""")


@pytest.mark.parametrize("stage", ["mid-copy", "mid-write", "before-publish"])
def test_a_process_killed_mid_add_leaves_complete_runs_only(generated, tmp_path, stage):
    files = sorted(str(p) for p in generated.glob("run-*.json"))
    store = Store(tmp_path / "s")
    store.add(*files[:10])
    answer = store.history("total_time")
    proc = subprocess.run([sys.executable, "-c", KILLER, str(tmp_path / "s"), stage, *files],
                          capture_output=True)
    assert proc.returncode == -9
    assert len(store.runs()) == 10 and store.history("total_time") == answer
    found = store.check()
    assert found.ok and found.leftovers  # the dead add's files, named as leftovers
    again = store.add(*files)
    assert (len(again.added), len(again.present)) == (50, 10)
    assert len(store.runs()) == 60 and store.check().ok
    store.compact()
    assert store.check().leftovers == ()


def test_a_process_killed_at_any_moment_leaves_a_readable_store(generated, tmp_path):
    files = sorted(str(p) for p in generated.glob("run-*.json"))
    store = Store(tmp_path / "s")
    store.add(*files[:5])
    for delay in (0.05, 0.2, 0.4, 0.8):
        proc = subprocess.Popen([sys.executable, "-c", ADDER, str(tmp_path / "s"), "0", *files])
        time.sleep(delay)
        proc.kill()
        proc.wait()
        count = len(store.runs())
        assert count in (5, 60)  # all of the add or none of it
        assert store.check().ok
    store.add(*files)
    assert len(store.runs()) == 60


def test_a_query_during_an_add_sees_all_of_it_or_none(generated, tmp_path):
    """A query reads one published snapshot: while another process adds 50 runs (one publish),
    every answer is the one the store gave before the add (10 runs) or the one it gives after it
    (60), never a mix; and each run is seen whole: every generated run has total_time and
    hardware_flops, and achieved_flop_rate is remade of each run's model_flops and total_time, so
    the three histories (one scan) hold the same runs."""
    files = sorted(str(p) for p in generated.glob("run-*.json"))
    store = Store(tmp_path / "s")
    store.add(*files[:10])
    drawn = ("total_time", "hardware_flops", "achieved_flop_rate")

    def asked() -> Any:
        found, histories = store.survey(drawn, all_changes=True)
        runs = [{p.run for s in histories[m].series for p in s.points} for m in drawn]
        assert runs[0] == runs[1] == runs[2]
        return found, histories

    before = asked()
    proc = subprocess.Popen([sys.executable, "-c", ADDER, str(tmp_path / "s"), "0", *files[10:]])
    answers = []
    while not answers or answers[-1][0]:
        running = proc.poll() is None
        answers.append((running, asked()))
    assert proc.wait() == 0
    after = asked()
    assert [len(h.series[0].points) for h in (before[1]["total_time"], after[1]["total_time"])] == [10, 60]
    assert all(answer in (before, after) for _, answer in answers) and answers[-1][1] == after
    assert sum(running for running, _ in answers) >= 3  # queries ran while the add did


def test_compaction_changes_no_answer(generated, tmp_path):
    files = sorted(str(p) for p in generated.glob("run-*.json"))
    store = Store(tmp_path / "s")
    for chunk in (files[:25], files[25:45], files[45:], [str(RUN)]):
        store.add(*chunk)
    def asked():
        return (store.runs(), store.history("total_time"), store.history("mfu_estimated_percent"),
                store.regressions(all_changes=True),
                store.table("metrics").sort_values(["run", "metric"]).reset_index(drop=True),
                store.table("memory").sort_values(["run", "usage_type", "core"]).reset_index(drop=True))

    before = asked()
    report = store.compact()
    assert (report.parts_before, report.parts_after, report.runs) == (4, 1, 68)
    after = asked()
    assert before[:4] == after[:4]
    assert before[4].equals(after[4]) and before[5].equals(after[5])
    assert len(list((tmp_path / "s" / "tables" / "runs").iterdir())) == 1
    assert store.check().ok


# ---- history and regressions ----------------------------------------------------------------------

def test_history_finds_the_generated_shift_and_orders_points_in_time(generated, tmp_path):
    store = Store(tmp_path / "s")
    store.add_listing(generated / "runs.csv")
    (series,) = store.history("total_time", model="bert-large").series
    times = [p.time for p in series.points]
    assert times == sorted(times) and len(times) == 60
    (change,) = series.changes
    assert abs(series.points.index(change.at) - 40) <= 2
    assert change.direction == "worse" and change.change == pytest.approx(0.05, abs=0.01)
    assert change.before_run == series.points[series.points.index(change.at) - 1]
    with pytest.raises(UsageError, match=r"model=gpt: no run has this value.*bert-large"):
        store.history("total_time", model="gpt")  # an empty answer would let a typo pass a gate


def test_regressions_lists_worse_changes_first_and_gates(generated, tmp_path):
    store_path = tmp_path / "s"
    Store(store_path).add_listing(generated / "runs.csv")
    code, output = cli_run("regressions", "--format", "json", store=store_path)
    assert code == 0
    document = json.loads(output)
    assert document["schema"] == "neuroncmp.regressions/1"
    assert document["filters"] == {"all_changes": False, "min_change": None, "since": None,
                                   "where": {}}
    worse = {c["metric"] for c in document["changes"]}
    # achieved_flop_rate = model_flops / total_time: the derived metric falls as the step slows
    assert follows_the_planted(worse), worse
    change = next(c for c in document["changes"] if c["metric"] == "total_time")
    assert set(change) == {"metric", "series", "at", "before_run", "before", "after", "unit", "change",
                           "change_text", "direction", "p_value", "candidates"}
    assert change["change_text"] == f"{change['change']:+.2%}"  # a time: relative, as the terminal writes it
    assert change["series"] == {"instance": "trn1.2xlarge", "model": "bert-large"}
    assert change["unit"] == "s" and change["direction"] == "worse"
    code, _ = cli_run("regressions", "--fail-on-regression", store=store_path)
    assert code == 3
    late = max(c["at"]["time"] for c in document["changes"])  # the last new level (noise may place one a run late)
    code, output = cli_run("regressions", "--fail-on-regression", "--since", late, store=store_path)
    assert code == 0 and output.startswith("0 changes for the worse")
    code, output = cli_run("regressions", "--min-change", "50", "--fail-on-regression", store=store_path)
    assert code == 0
    code, output = cli_run("regressions", "--format", "json", "--where", "model=bert-large",
                           "--where", "model=gpt", store=store_path)
    assert json.loads(output)["filters"]["where"] == {"model": ["bert-large", "gpt"]}


def test_history_json_has_the_documented_shape(generated, tmp_path):
    store_path = tmp_path / "s"
    Store(store_path).add_listing(generated / "runs.csv")
    code, output = cli_run("history", "total_time", "--where", "model=bert-large", "--format", "json",
                           store=store_path)
    assert code == 0
    document = json.loads(output)
    assert (document["schema"], document["metric"], document["unit"]) == ("neuroncmp.history/1", "total_time", "s")
    (series,) = document["series"]
    assert set(series) == {"tags", "points", "changes"}
    assert set(series["points"][0]) == {"run", "commit", "time", "value"}
    assert [p["time"] for p in series["points"]] == sorted(p["time"] for p in series["points"])


def test_history_text_shows_values_in_the_display_unit_and_marks_the_shift(generated, tmp_path):
    store_path = tmp_path / "s"
    Store(store_path).add_listing(generated / "runs.csv")
    code, output = cli_run("history", "total_time", "--width", "100", "--all", store=store_path)
    assert code == 0
    assert output.startswith("total_time [ms]: 1 series, 60 runs")
    assert "trend " in output and "^" in output
    (marked,) = [line for line in output.splitlines() if "◆" in line]
    assert marked.split()[0] == "2025-02-10T02:00:00Z" and "worse" in marked  # run 40: day 41
    first = json.loads((generated / "run-00000.json").read_text()).popitem()[1]["total_time"]
    assert f"{first * 1000:.4g}" in output


def test_history_on_the_terminal_shows_the_last_20_points_unless_all_or_a_file(generated, tmp_path):
    """Like a long frame's tail: the table of the 60 runs' series holds runs 40-59 (days 41-60) and
    counts the 40 before; the trend and the shift above it are of all 60. --all and -o keep every one."""
    store_path = tmp_path / "s"
    Store(store_path).add_listing(generated / "runs.csv")
    _, brief = cli_run("history", "total_time", "--width", "100", store=store_path)
    dated = [line.split()[0] for line in brief.splitlines() if line.startswith("  2025-")]
    assert dated[0] == "2025-02-10T02:00:00Z" and len(dated) == 20  # day 41 .. day 60
    assert "(40 earlier runs not shown: --all shows every one)" in brief and "^" in brief
    _, every = cli_run("history", "total_time", "--width", "100", "--all", store=store_path)
    assert sum(line.startswith("  2025-") for line in every.splitlines()) == 60
    cli_run("history", "total_time", "-o", str(tmp_path / "h.txt"), store=store_path)
    assert sum(line.startswith("  2025-") for line in (tmp_path / "h.txt").read_text().splitlines()) == 60
    code, said = cli_run("history", "total_time", "--all", "--last", "5", store=store_path)
    assert code == 2 and "give one of them" in said


def test_unknown_metric_and_bad_options_are_usage_errors(generated, tmp_path):
    store_path = tmp_path / "s"
    Store(store_path).add(RUN / "b2.json")
    assert cli_run("history", "no_such_metric", store=store_path)[0] == 2
    assert cli_run("history", "total_time", "--where", "nokey", store=store_path)[0] == 2
    assert cli_run("regressions", "--since", "yesterday", store=store_path)[0] == 2
    with pytest.raises(UsageError):
        Store(store_path).history("no_such_metric")


def test_the_docs_duckdb_query_runs(generated, tmp_path):
    import duckdb

    store_path = tmp_path / ".neuroncmp"
    Store(store_path).add_listing(generated / "runs.csv")
    page = (ROOT / "docs" / "history" / "store.md").read_text()
    query = page.split("```sql\n", 1)[1].split("```", 1)[0]
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:  # (fetching TIMESTAMP WITH TIME ZONE into Python would need pytz: count and look at ms)
        ((count, first_ms),) = duckdb.sql(
            f"SELECT count(*), arg_min(total_time_ms, time) FROM ({query})").fetchall()
    finally:
        os.chdir(cwd)
    assert count == 60
    first = json.loads((generated / "run-00000.json").read_text()).popitem()[1]["total_time"]
    assert first_ms == pytest.approx(first * 1000, abs=0.005)


def test_the_docs_document_every_column_of_every_table():
    from neuroncmp.store import schema

    page = (ROOT / "docs" / "history" / "store.md").read_text()
    for table, columns in schema.TABLES.items():
        section = page.split(f"`{table}`: ", 1)[1].split("\n\n")[1]
        assert [line.split("`")[1] for line in section.splitlines() if line.startswith("| `")] == \
            [name for name, _, _ in columns]


def test_frames_on_request(generated, tmp_path):
    store = Store(tmp_path / "s")
    store.add_listing(generated / "runs.csv")
    frame = store.history("total_time").to_frame()
    assert len(frame) == 60 and frame["shift"].sum() == 1
    assert list(frame.loc[frame["shift"], "run"]) == [store.history("total_time").series[0].changes[0].at.run]
    changes = store.regressions().to_frame()
    assert follows_the_planted(set(changes.metric))


def test_history_png(generated, tmp_path):
    pytest.importorskip("matplotlib")
    store_path = tmp_path / "s"
    Store(store_path).add_listing(generated / "runs.csv")
    code, output = cli_run("history", "total_time", "-o", str(tmp_path / "t.png"), store=store_path)
    assert code == 0, output
    assert (tmp_path / "t.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# ---- diff --baseline-history ----------------------------------------------------------------------

def slowed(source: Path, target: Path, factor: float) -> Path:
    data = json.loads(source.read_text())
    ((key, block),) = data.items()
    block["total_time"] *= factor
    target.write_text(json.dumps({key: block}))
    return target


def test_one_capture_against_its_history_gets_measured_bands_and_a_p_value(generated, tmp_path):
    store = Store(tmp_path / "s")
    store.add_listing(generated / "runs.csv")
    last20 = [json.loads((generated / f"run-{i:05d}.json").read_text()).popitem()[1]["total_time"]
              for i in range(40, 60)]
    new = slowed(generated / "run-00059.json", tmp_path / "new.json", 1.06)
    comparison = store.diff_history(new, where={"model": "bert-large"})
    assert [side.label for side in (comparison.baseline, *comparison.variants)] == ["history", "new"]
    assert len(comparison.baseline.profiles) == 20
    (cell,) = comparison.row("total_time").cells
    import statistics

    assert cell.step.baseline == pytest.approx(statistics.median(last20))
    assert cell.step.verdict == "worse" and cell.step.p_value == pytest.approx(1 / 21)
    middle = statistics.median(last20)
    sigma = 1.4826 * statistics.median([abs(x - middle) for x in last20])
    band = comparison.bands.band(__import__("neuroncmp").lookup("total_time"))
    assert band.value * 100 == pytest.approx(300 * sigma / middle, rel=1e-4) and not band.points


def test_identical_values_against_history_are_unchanged_and_the_footer_sums_up_the_bands(generated, tmp_path):
    store_path = tmp_path / "s"
    Store(store_path).add_listing(generated / "runs.csv")
    new = slowed(generated / "run-00059.json", tmp_path / "new.json", 1.0)
    comparison = Store(store_path).diff_history(new, where={"model": "bert-large"})
    (cell,) = comparison.row("event_count").cells  # a count: the same in every run
    assert cell.step.baseline == cell.step.variant and cell.step.p_value == 1.0
    assert not cell.step.not_significant  # '=', not '?'
    code, output = cli_run("diff", str(new), "--baseline-history", "--where", "model=bert-large",
                           "--summary", "--no-color", "--width", "100", store=store_path)
    assert code == 0
    footer = output[output.index("noise bands:"):output.index("repeated captures")]
    measured = [b for b in Store(store_path).baseline_for(__import__("neuroncmp").load(new)[0],
                                                           model="bert-large").bands]
    assert f"measured per metric for {len({b.split('=')[0] for b in measured})} metrics" in " ".join(footer.split())
    assert "event_count" not in footer and "every one in --format json (noise_bands)" in " ".join(footer.split())
    code, output = cli_run("diff", str(new), "--baseline-history", "--where", "model=bert-large",
                           "--format", "json", store=store_path)
    bands = json.loads(output)["noise_bands"]
    assert {rule.split("=")[0] for rule in measured} <= set(bands)


def test_a_stored_capture_is_compared_with_the_runs_before_it(generated, tmp_path):
    store = Store(tmp_path / "s")
    store.add_listing(generated / "runs.csv")
    found = store.baseline_for(__import__("neuroncmp").load(generated / "run-00030.json")[0],
                               runs=10)
    day = {r.run: r.time.day for r in store.runs()}
    assert len(found.runs) == 10 and len({day[r] for r in found.runs}) == 10
    earlier = [r.run for r in store.runs()][20:30]
    assert list(found.runs) == earlier


def test_baseline_history_from_the_cli_and_its_refusals(generated, tmp_path):
    store_path = tmp_path / "s"
    Store(store_path).add_listing(generated / "runs.csv")
    new = slowed(generated / "run-00059.json", tmp_path / "new.json", 1.06)
    code, output = cli_run("diff", str(new), "--baseline-history", "--metric", "total_time",
                           "--fail-on", "total_time>+3%", "--no-color", store=store_path)
    assert code == 3 and "history x20" in output and "✘" in output
    code, output = cli_run("diff", str(new), str(new), "--baseline-history", store=store_path)
    assert code == 2
    Store(store_path).add(RUN, tags={"model": "bert-large"})  # 8 more series with model=bert-large
    code, output = cli_run("diff", str(new), "--baseline-history", "--where", "model=bert-large",
                           store=store_path)
    assert code == 2 and "9 series match" in output and "choose one with --where" in output
    code, output = cli_run("diff", str(new), "--baseline-history", "--where", "model=bert-large",
                           "--where", "instance=trn1.2xlarge", store=store_path)
    assert code == 0, output
    code, output = cli_run("diff", str(RUN / "b16.json"), "--baseline-history", store=store_path)
    assert (code == 1 and "only 0 earlier runs" in output) or "at least 5" in output


def test_a_runs_listing_inside_a_folder_is_named_as_one(tmp_path):
    """A folder holding profiles and their runs.csv (what make_history.py and nightly jobs leave):
    the CSV is not reported as a profile that failed to parse but as a listing to add with --runs."""
    folder = tmp_path / "nightly"
    folder.mkdir()
    shutil.copy(RUN / "b16.json", folder / "model-b16-3f2a9c1.json")
    (folder / "runs.csv").write_text("path,time,model\nmodel-b16-3f2a9c1.json,2025-06-01T00:00:00Z,m\n")
    with pytest.raises(InputError, match=r"runs\.csv' is a runs listing .*--runs"):
        Store(tmp_path / "s").add(folder)


def test_each_change_names_the_runs_that_may_have_started_it(tmp_path):
    """The walk-through's history (docs/history/index.md; make_history's defaults: 80 runs, the
    shifts planted at run 50). The detector places dma_active_time one run early (run 49); each
    change now also names the runs that may be its first (95 %), and every planted one holds run
    50, whatever run is named as the best estimate. The terminal, the JSON and the Markdown say the same."""
    made = make_history.generate(tmp_path, 80, 13, dict(make_history.parse_shift(s) for s in
                                                         make_history.DEFAULT_SHIFTS),
                                 noisy_nodes=0.03)
    assert made.shifts  # total_time, dma_active_time and mfu_estimated_percent, from run 50
    store = Store(tmp_path / "store")
    store.add_listing(tmp_path / "runs.csv")
    runs = {run.run: i for i, run in enumerate(sorted(store.runs(), key=lambda r: r.time))}
    changes = {c.metric: c for c in store.regressions().changes}
    for metric, (planted, _change) in made.shifts.items():
        found = changes[metric].candidates
        first, last = runs[found.first.run], runs[found.last.run]
        assert first <= planted <= last and first <= runs[changes[metric].at.run] <= last, metric
        assert runs[found.before.run] == first - 1 and found.runs == last - first + 1
        assert found.confidence == 0.95
    document = json.loads(cli_run("regressions", "--format", "json", store=tmp_path / "store")[1])

    def ref(point: Any) -> dict[str, Any]:
        return {"run": point.run, "commit": point.commit, "time": point.time.isoformat().replace("+00:00", "Z")}

    for change in document["changes"]:
        found = changes[change["metric"]].candidates
        assert change["candidates"] == {"first": ref(found.first), "last": ref(found.last),
                                        "before": ref(found.before), "runs": found.runs, "confidence": 0.95}
    dma = changes["dma_active_time"].candidates
    first, last = dma.first.commit, dma.last.commit
    said = f"between commits {{}} and {{}} ({dma.runs} runs, 95 %)" if dma.runs > 1 else "at commit {} (95 %)"
    assert said.format(first, last) in cli_run("regressions", store=tmp_path / "store")[1]
    markdown = cli_run("regressions", "--format", "md", store=tmp_path / "store")[1]
    assert said.format(f"`{first}`", f"`{last}`") in markdown
