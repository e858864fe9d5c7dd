"""The store on Spark (local[2]): the same answers as DuckDB on the same store, a store written by
either engine read by the other, bad profiles among thousands, and an executor dying mid-add.

Marked ``spark`` (``python -m pytest -m spark``); skipped when pyspark or Java is missing. DuckDB's
answers are the reference: they come from another reader and another writer (DuckDB SQL, pyarrow)
over the same files, and the generated truth anchors both.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from itertools import takewhile
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import ROOT, RUN

from neuroncmp.cli import cli
from neuroncmp.errors import InputError, UsageError
from neuroncmp.store import Store
from neuroncmp.store.engines import choose

pytest.importorskip("pyspark")
pytest.importorskip("duckdb")
if not (shutil.which("java") or os.environ.get("JAVA_HOME")):
    pytest.skip("Spark needs Java 17 (java on PATH or JAVA_HOME)", allow_module_level=True)

pytestmark = pytest.mark.spark

sys.path.insert(0, str(ROOT / "scripts"))
import make_history  # noqa: E402

MASTER = "local[2]"
SHIFTS = {"total_time": (180, 0.04), "mfu_estimated_percent": (120, -0.04), "dma_active_time": (200, 0.06)}


@pytest.fixture(scope="module")
def spark():
    """One engine for the module (getOrCreate: CLI calls in this process reuse its session)."""
    return choose("spark", master=MASTER, conf={"spark.sql.shuffle.partitions": "4"})


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    """300 generated runs of b32 with three known shifts, and their runs.csv."""
    out = tmp_path_factory.mktemp("history")
    make_history.generate(out, 300, seed=11, shifts=SHIFTS)
    return out


@pytest.fixture(scope="module")
def stores(generated, spark, tmp_path_factory) -> tuple[Path, Path]:
    """The same adds by each engine: the generated listing, then the bundled sweep (a run folder
    with a manifest, sidecars and memory tables) as another model."""
    made = []
    for engine in ("duckdb", spark):
        path = tmp_path_factory.mktemp("stores") / "s"
        store = Store(path, engine=engine)
        store.add_listing(generated / "runs.csv")
        store.add(RUN, tags={"model": "sweep"}, at="2024-12-01T00:00:00Z", commit="0sweep0")
        made.append(path)
    return made[0], made[1]


def by_engine(path: Path, spark) -> dict[str, Store]:
    return {"duckdb": Store(path), "spark": Store(path, engine=spark)}


# ---- the same answers ------------------------------------------------------------------------------

def test_both_engines_give_the_same_runs_on_both_stores(stores, spark):
    reference = Store(stores[0]).runs()
    assert len(reference) == 308
    for path in stores:
        for name, store in by_engine(path, spark).items():
            assert store.runs() == reference, (path, name)
            assert store.runs(model="sweep", batch_size=["8", "32"]) == \
                tuple(r for r in reference
                      if r.tags.get("model") == "sweep" and r.tags.get("batch_size") in ("8", "32"))


@pytest.mark.parametrize("metric", ["total_time", "mfu_estimated_percent", "dma_active_time",
                                    "memory.shared_scratchpad"])
def test_history_is_the_same_on_both_engines_and_both_stores(stores, spark, metric):
    reference = Store(stores[0]).history(metric)
    assert reference.series
    for path in stores:
        for name, store in by_engine(path, spark).items():
            assert store.history(metric) == reference, (path, name)
    sweep = by_engine(stores[1], spark)
    assert sweep["spark"].history(metric, model="sweep") == sweep["duckdb"].history(metric, model="sweep")


def test_the_generated_shifts_are_found_at_the_same_runs_on_both_engines(stores, generated, spark):
    for path in stores:
        found = {name: store.regressions(all_changes=True) for name, store in by_engine(path, spark).items()}
        duck, spk = found["duckdb"], found["spark"]
        assert (spk.series_count, spk.metric_count) == (duck.series_count, duck.metric_count)
        assert [(c.metric, dict(c.series), c.at.run, c.before_run.run, c.direction) for c in spk.changes] == \
            [(c.metric, dict(c.series), c.at.run, c.before_run.run, c.direction) for c in duck.changes]
        for a, b in zip(spk.changes, duck.changes, strict=True):
            assert a.p_value == pytest.approx(b.p_value, rel=0, abs=1e-9)
            assert (a.before, a.after, a.change) == pytest.approx((b.before, b.after, b.change), rel=1e-12)
        runs = [r.run for r in Store(path).runs(model="bert-large")]
        truth = {metric: runs[index] for metric, (index, _) in SHIFTS.items()}
        placed = {c.metric: runs.index(c.at.run) for c in spk.changes if c.metric in truth
                  and c.series.get("model") == "bert-large"}
        assert set(placed) == set(SHIFTS)
        assert all(abs(placed[m] - SHIFTS[m][0]) <= 2 for m in SHIFTS), placed


def test_filters_give_the_same_changes_on_both_engines(stores, spark):
    duck, spk = by_engine(stores[1], spark).values()
    for options in ({"where": {"model": "bert-large"}}, {"since": "2025-06-01"},
                    {"min_change": 0.05, "all_changes": True}):
        assert spk.regressions(**options) == duck.regressions(**options), options
    # Each run of the bundled sweep is its own series (its batch size is a tag), so each of its
    # numeric metrics is a series of one run, too short for a shift test; the generated series are long.
    rows = Store(stores[1]).table("metrics")
    sweep = {r.run for r in Store(stores[1]).runs(model="sweep")}
    one_run = int(rows[rows.run.isin(sweep)].value.notna().sum())
    assert one_run > 800
    assert spk.regressions().short_series == one_run
    # --since reads only the series with a later run: not the sweep's (added at 2024-12-01)
    assert spk.regressions(since="2025-06-01").short_series == 0
    for options in ({"where": {"model": "nothing"}}, {"where": {"modle": "sweep"}},
                    {"series_by": "modle"}):  # a typo is the same usage error on both
        errors = []
        for store in (duck, spk):
            with pytest.raises(UsageError) as raised:
                store.regressions(**options)
            errors.append(str(raised.value))
        assert errors[0] == errors[1], options
        assert "no run has" in errors[0] and ("nothing" in errors[0] or "did you mean model?" in errors[0])


def test_the_cli_prints_the_same_json_and_listing_on_both_engines(stores):
    printed = {}
    for args in (["regressions", "--all-changes", "--format", "json"],
                 ["history", "total_time", "--where", "model=bert-large", "--format", "json"],
                 ["store", "ls", "--where", "model=sweep"]):
        outputs = []
        for engine in (["--engine", "duckdb"], ["--engine", "spark", "--spark-master", MASTER]):
            result = CliRunner().invoke(cli, [*args, *engine, "--store", str(stores[1])])
            assert result.exit_code == 0, result.output
            outputs.append(result.output)
        assert outputs[0] == outputs[1], args
        printed[args[0]] = outputs[1]
    assert {c["metric"] for c in json.loads(printed["regressions"])["changes"]} >= set(SHIFTS)
    assert printed["store"].endswith("8 runs in 8 series\n")


def test_the_tables_spark_writes_hold_what_pyarrow_writes(stores):
    """Every column of every table, row for row (``added``, the time of the add, aside)."""
    tables = [Store(path) for path in stores]
    for name, order in (("runs", ["run"]), ("metrics", ["run", "metric"]),
                        ("memory", ["run", "usage_type", "core", "device"])):
        frames = [t.table(name).sort_values(order).reset_index(drop=True) for t in tables]
        if name == "runs":
            frames = [f.drop(columns=["added"]) for f in frames]
        assert len(frames[0]) > 0 and frames[0].astype(str).equals(frames[1].astype(str)), name


def test_a_spark_written_store_checks_and_compacts_with_every_answer_unchanged(generated, spark, tmp_path):
    path = tmp_path / "s"
    files = sorted(generated.glob("run-*.json"))
    Store(path, engine=spark).add(*files[:100])
    Store(path).add(*files[100:150])                     # a pyarrow part beside the Spark part
    Store(path, engine=spark).add(*files[150:])
    store = Store(path)
    report = store.check()
    assert report.ok and not report.leftovers and report.runs == 300
    def asked():
        return [(s.runs(), s.history("total_time"), s.regressions(all_changes=True))
                for s in by_engine(path, spark).values()]

    before = asked()
    assert before[0] == before[1]
    assert store.compact().parts_after == 1
    assert asked() == before and store.check().ok


# ---- adding --------------------------------------------------------------------------------------

def test_adding_again_is_idempotent_and_duplicates_in_one_add_are_one_run(generated, spark, tmp_path):
    files = sorted(generated.glob("run-*.json"))[:20]
    copy = tmp_path / "copy.json"
    shutil.copy(files[3], copy)
    store = Store(tmp_path / "s", engine=spark)
    first = store.add(*files[:10], copy)
    assert (len(first.added), len(first.present)) == (10, 1)
    assert [r.present for r in first.runs] == [False] * 10 + [True]
    again = store.add(*files)
    assert (len(again.added), len(again.present)) == (10, 10)
    assert len(Store(tmp_path / "s").runs()) == 20 and Store(tmp_path / "s").check().ok


def test_the_add_report_is_the_same_on_both_engines(generated, spark, tmp_path):
    reports = [Store(tmp_path / name, engine=engine).add(RUN, generated / "run-00000.json",
                                                         tags={"model": "m"})
               for name, engine in (("d", "duckdb"), ("s", spark))]
    assert reports[0] == reports[1]
    assert len(reports[0].added) == 9
    # Again, at another time: both report the runs as stored (time, its source), not as asked.
    again = [Store(tmp_path / name, engine=engine).add(RUN, at="2030-01-01T00:00:00Z")
             for name, engine in (("d", "duckdb"), ("s", spark))]
    assert again[0] == again[1] and len(again[0].present) == 8
    assert [(r.time, r.time_source) for r in again[0].runs] == \
        [(r.time, r.time_source) for r in reports[0].runs[:8]]


# ---- series identity (issue 21) ------------------------------------------------------------------

def _host_split(tmp_path: Path) -> Path:
    """A listing of 24 nightly runs of one configuration with a ``host`` column: by every tag,
    each run is its own series (every one too short for a shift test)."""
    out = tmp_path / "fleet"
    out.mkdir()
    make_history.generate_fleet(out, 24, 5, [("llama-1b", 8)], "neutral", shift_rate=0.0)
    rows = (out / "runs.csv").read_text().splitlines()
    rows = [rows[0] + ",host"] + [f"{row},ip-10-0-0-{i}" for i, row in enumerate(rows[1:])]
    (out / "runs.csv").write_text("\n".join(rows) + "\n")
    return out / "runs.csv"


def test_series_by_and_a_stores_setting_give_the_same_answers_on_both_engines(spark, tmp_path):
    listing = _host_split(tmp_path)
    paths = [tmp_path / name for name in ("d", "s")]
    for path, engine in zip(paths, ("duckdb", spark)):
        Store(path, engine=engine).add_listing(listing)
    for path in paths:
        duck, spk = by_engine(path, spark).values()
        for by in (None, "model,batch", "model,host"):
            assert spk.runs(series_by=by) == duck.runs(series_by=by), by
            assert spk.history("total_time", series_by=by) == duck.history("total_time", series_by=by), by
            assert spk.regressions(all_changes=True, series_by=by) == \
                duck.regressions(all_changes=True, series_by=by), by
        split, joined = spk.regressions(), spk.regressions(series_by="model,batch")
        assert split.short_series == split.series_count > 0 and split.warnings
        assert joined.short_series == 0 and joined.series_count * 24 == split.series_count
        assert len(spk.history("total_time", series_by="model,batch").series) == 1
    # The store's own setting, set through Spark, read by both; the CLI prints the same bytes.
    Store(paths[1], engine=spark).set_series_by("model,batch")
    duck, spk = by_engine(paths[1], spark).values()
    assert spk.series_by() == ("model", "batch")
    through_uri = Store(paths[1].resolve().as_uri(), engine=spark)  # the setting read through Spark
    assert through_uri.series_by() == ("model", "batch") and through_uri.runs() == duck.runs()
    assert spk.runs() == duck.runs() and {r.series.text for r in spk.runs()} == {'{"batch":"8","model":"llama-1b"}'}
    assert spk.regressions(all_changes=True) == duck.regressions(all_changes=True)
    for args in (["regressions", "--all-changes", "--format", "json"], ["store", "ls"],
                 ["store", "ls", "--series-by", "host", "--format", "json"],
                 ["history", "total_time", "--where", "host=ip-10-0-0-3", "--format", "json"]):
        outputs = [CliRunner().invoke(cli, [*args, *engine, "--store", str(paths[1])])
                   for engine in (["--engine", "duckdb"], ["--engine", "spark", "--spark-master", MASTER])]
        assert [o.exit_code for o in outputs] == [0, 0], outputs[1].output
        assert outputs[0].output == outputs[1].output, args
    Store(paths[1], engine=spark).set_series_by("")
    assert len(by_engine(paths[1], spark)["spark"].history("total_time").series) == 24


def test_commit_from_name_and_kept_tags_are_the_same_on_both_engines(spark, tmp_path):
    src = tmp_path / "model-b8-3f2a9c1.json"
    shutil.copy(RUN / "b32.json", src)
    stores = [Store(tmp_path / name, engine=engine) for name, engine in (("d", "duckdb"), ("s", spark))]
    first = [store.add(src, commit_from_name=True) for store in stores]
    assert first[0] == first[1] and first[0].runs[0].tags == (("batch_size", "8"), ("variant", "model"))
    runs = [Store(store.path).runs() for store in stores]
    assert runs[0] == runs[1] and runs[0][0].commit == "3f2a9c1"
    again = [store.add(src, tags={"model": "other"}) for store in stores]
    assert again[0] == again[1]
    assert again[0].runs[0].kept_tags == (("batch_size", "8"), ("variant", "model"))
    assert CliRunner().invoke(cli, ["store", "add", str(src), "--commit-from-name", "--engine", "spark",
                                    "--spark-master", MASTER, "--store", str(tmp_path / "c")]).exit_code == 0
    assert Store(tmp_path / "c").runs() == runs[0]


def write_many(folder: Path, generated: Path, bad_at: int) -> Path:
    """A listing of 2,000 runs (the 300 generated ones, each copied with a changed value) with one
    unparseable profile at line ``bad_at``."""
    folder.mkdir(exist_ok=True)
    rows = ["path,time,model"]
    sources = sorted(generated.glob("run-*.json"))
    for i in range(2000):
        name = f"p{i:05d}.json"
        if i + 2 == bad_at:
            (folder / name).write_text('{"n_1": {"total_time": ')
        else:
            ((key, block),) = json.loads(sources[i % len(sources)].read_text()).items()
            block["total_time"] *= 1 + i / 1e6
            (folder / name).write_text(json.dumps({key: block}))
        rows.append(f"{name},2025-01-01T00:00:00Z,m")
    (folder / "runs.csv").write_text("\n".join(rows) + "\n")
    return folder / "runs.csv"


def test_an_unparseable_profile_among_thousands_is_named_refused_or_skipped(generated, spark, tmp_path):
    listing = write_many(tmp_path / "many", generated, bad_at=1234)
    bad = tmp_path / "many" / "p01232.json"
    messages = []
    for engine in ("duckdb", spark):
        with pytest.raises(InputError, match="nothing was added") as caught:
            Store(tmp_path / "s", engine=engine).add_listing(listing)
        messages.append(str(caught.value))
        assert not (tmp_path / "s").exists()
    assert messages[0] == messages[1]
    assert "line 1234" in messages[1] and str(bad) in messages[1]
    result = CliRunner().invoke(cli, ["store", "add", "--runs", str(listing), "--engine", "spark",
                                      "--spark-master", MASTER, "--skip-bad", "--store", str(tmp_path / "s")])
    assert result.exit_code == 0, result.output
    assert "added 1999 runs" in result.output
    lines = result.output.splitlines()
    (at,) = [index for index, line in enumerate(lines) if line.startswith("skipped")]
    later = takewhile(lambda line: line.startswith("  "), lines[at + 1:])  # its paragraph, wrapped to the width
    skipped = " ".join(line.strip() for line in [lines[at], *later])
    assert "line 1234" in skipped and str(bad) in skipped.replace(" ", "")
    assert len(Store(tmp_path / "s").runs()) == 1999 and Store(tmp_path / "s").check().ok


def test_a_symlink_leading_out_of_a_plain_folder_is_refused_or_skipped_on_both_engines(spark, tmp_path):
    """A folder holding a link to a profile outside it: DuckDB's add refused the folder (or listed the
    link under --skip-bad) while Spark's dropped the link without a word. Both now say it, the same
    way, and neither stores the file it leads to."""
    folder, elsewhere = tmp_path / "runs", tmp_path / "elsewhere"
    folder.mkdir()
    elsewhere.mkdir()
    for name in ("b16.json", "b32.json"):
        shutil.copy(RUN / name, folder / name)
    shutil.copy(RUN / "b4.json", elsewhere / "b4.json")
    (folder / "b4.json").symlink_to(elsewhere / "b4.json")
    messages, reports = [], []
    for name, engine in (("d", "duckdb"), ("s", spark)):
        with pytest.raises(InputError, match=r"b4\.json.*symlink leading out") as caught:
            Store(tmp_path / name, engine=engine).add(folder)
        messages.append(str(caught.value))
        reports.append(Store(tmp_path / name, engine=engine).add(folder, skip_bad=True))
    assert messages[0] == messages[1]
    assert [p.where for p in reports[1].skipped] == [p.where for p in reports[0].skipped] == \
        [f"{folder} ({folder / 'b4.json'})"]
    assert len(reports[1].added) == len(reports[0].added) == 2
    stored = {path.read_bytes() for path in (tmp_path / "s" / "objects").rglob("*.json")}
    assert (elsewhere / "b4.json").read_bytes() not in stored


# An executor (a Python worker) killed mid-add: sitecustomize, on PYTHONPATH of the add's process
# only, makes every Python process of it count calls of the executor-side step and SIGKILL itself
# at the Nth (the driver never calls these on the Spark engine: it only plans and publishes).
SITE = textwrap.dedent("""
    import os, signal
    stage, after = os.environ["KILL_EXECUTOR_AT"].split(":")
    from neuroncmp.store import adding, objects
    module, name = (adding, "prepare") if stage == "parse" else (objects, "keep")
    real, calls = getattr(module, name), [0]
    def dying(*args, **kwargs):
        calls[0] += 1
        if calls[0] == int(after):
            os.kill(os.getpid(), signal.SIGKILL)
        return real(*args, **kwargs)
    setattr(module, name, dying)
""")


@pytest.mark.parametrize("stage", ["parse:40", "copy:25"])
def test_an_executor_killed_mid_add_leaves_complete_runs_only(generated, spark, tmp_path, stage):
    files = sorted(str(p) for p in generated.glob("run-*.json"))
    store = Store(tmp_path / "s")
    store.add(*files[:10])
    answer = store.history("total_time")
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "sitecustomize.py").write_text(SITE)
    env = {k: v for k, v in os.environ.items() if k != "PYSPARK_PYTHON"}
    env.update(PYTHONPATH=str(tmp_path / "site"), KILL_EXECUTOR_AT=stage)
    proc = subprocess.run([sys.executable, "-m", "neuroncmp", "store", "add", "--engine", "spark",
                           "--spark-master", MASTER, "--store", str(tmp_path / "s"),
                           "--runs", str(generated / "runs.csv")],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Spark job failed" in proc.stderr and "nothing was added" in proc.stderr
    assert "Traceback" not in proc.stderr.split("Spark job failed")[1]
    assert len(store.runs()) == 10 and store.history("total_time") == answer
    found = store.check()
    assert found.ok and bool(found.leftovers) == stage.startswith("copy")
    again = Store(tmp_path / "s", engine=spark).add_listing(generated / "runs.csv")
    assert (len(again.added), len(again.present)) == (290, 10)
    assert len(store.runs()) == 300 and store.check().ok
    store.compact()
    assert store.check().leftovers == ()


# ---- locations, engines, sessions -----------------------------------------------------------------

CONNECT = textwrap.dedent("""
    import sys
    from neuroncmp.render.store_json import regressions, runs
    from neuroncmp.store import Store
    store = Store(sys.argv[1], engine="spark")
    print(len(store.add_listing(sys.argv[2]).added))
    print(runs(store.runs(), ()) + regressions(store.regressions(all_changes=True)), end="")
""")


def test_spark_connect_gives_the_same_answers(generated, tmp_path):
    """SPARK_REMOTE=local[2]: pyspark starts a local Spark Connect server; no SparkContext, no JVM
    in this process, every step through the Connect protocol."""
    pytest.importorskip("grpc")
    env = {k: v for k, v in os.environ.items() if k not in ("PYSPARK_PYTHON", "SPARK_MASTER")}
    env["SPARK_REMOTE"] = MASTER
    proc = subprocess.run([sys.executable, "-c", CONNECT, str(tmp_path / "c"), str(generated / "runs.csv")],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    count, printed = proc.stdout.split("\n", 1)
    duck = Store(tmp_path / "d")
    duck.add_listing(generated / "runs.csv")
    from neuroncmp.render.store_json import regressions, runs

    assert int(count) == 300
    assert printed == runs(duck.runs(), ()) + regressions(duck.regressions(all_changes=True))


def test_a_uri_store_is_read_through_spark_and_refused_where_a_folder_is_needed(stores, spark, tmp_path):
    uri = stores[0].resolve().as_uri()
    assert Store(uri, engine=spark).runs() == Store(stores[0]).runs()
    assert Store(uri, engine=spark).history("total_time") == Store(stores[0]).history("total_time")
    runner = CliRunner()
    for args, code, says in (
            (["store", "add", str(RUN / "b2.json"), "--engine", "spark"], 2, "local or mounted folder"),
            (["history", "total_time", "--engine", "duckdb"], 2, "read by --engine spark")):
        result = runner.invoke(cli, [*args, "--store", uri])
        assert result.exit_code == code and says in result.output, result.output
    empty = tmp_path / "empty"
    empty.mkdir()
    result = runner.invoke(cli, ["store", "ls", "--engine", "spark", "--spark-master", MASTER,
                                 "--store", empty.as_uri()])
    assert result.exit_code == 1 and "not a neuroncmp store" in result.output


def test_the_engine_comes_from_neuroncmp_engine(stores):
    runner = CliRunner()
    spark_ls = runner.invoke(cli, ["store", "ls", "--spark-master", MASTER, "--store", str(stores[0])],
                             env={"NEURONCMP_ENGINE": "spark"})
    assert spark_ls.exit_code == 0, spark_ls.output
    assert spark_ls.output == runner.invoke(cli, ["store", "ls", "--store", str(stores[0])]).output
    bad = runner.invoke(cli, ["store", "ls", "--store", str(stores[0])], env={"NEURONCMP_ENGINE": "sqlite"})
    assert bad.exit_code == 2


def test_conf_reaches_the_session(spark):
    session = choose("spark", master=MASTER, conf={"spark.sql.shuffle.partitions": "3"}).session
    try:
        assert session.conf.get("spark.sql.shuffle.partitions") == "3"
    finally:
        session.conf.set("spark.sql.shuffle.partitions", "4")
