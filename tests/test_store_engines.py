"""Choosing an engine and a Spark session's settings: what needs no Spark to check (the Spark
engine itself is tested in test_store_spark.py, marked ``spark``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import RUN

from neuroncmp.cli import cli
from neuroncmp.errors import UsageError
from neuroncmp.store import Store, folder
from neuroncmp.store.engines import choose
from neuroncmp.store.engines.spark_session import QUIET, first_line, settings, start, user_defaults


def test_duckdb_is_the_default_and_neuroncmp_engine_chooses(monkeypatch):
    monkeypatch.delenv("NEURONCMP_ENGINE", raising=False)
    assert choose().name == "duckdb" and Store("x").engine.name == "duckdb"
    monkeypatch.setenv("NEURONCMP_ENGINE", "spark")
    assert choose().name == "spark" and Store("x").engine.name == "spark"  # no session yet
    assert choose("duckdb").name == "duckdb"


@pytest.mark.parametrize("name, options, says", [
    ("sqlite", {}, "expected one of duckdb, spark"),
    ("duckdb", {"master": "local[2]"}, "apply to --engine spark"),
    ("duckdb", {"conf": {"spark.sql.shuffle.partitions": "4"}}, "apply to --engine spark"),
])
def test_a_bad_engine_choice_is_a_usage_error(name, options, says):
    with pytest.raises(UsageError, match=says):
        choose(name, **options)


def test_spark_options_with_duckdb_are_a_usage_error_on_the_cli(tmp_path):
    Store(tmp_path / "s").add(RUN / "b2.json")
    result = CliRunner().invoke(cli, ["store", "ls", "--store", str(tmp_path / "s"), "--spark-master", "local[2]"])
    assert result.exit_code == 2 and "apply to --engine spark" in result.output
    result = CliRunner().invoke(cli, ["store", "ls", "--store", str(tmp_path / "s"), "--engine", "spark",
                                      "--conf", "nokey"])
    assert result.exit_code == 2 and "--conf 'nokey': expected KEY=VALUE" in result.output


@pytest.mark.parametrize("text, uri", [("hdfs://nn:8020/stores/x", True), ("s3a://bucket/x/", True),
                                       ("file:///tmp/x", True), ("/tmp/x", False),
                                       ("store", False), ("C:/tmp/x", False)])
def test_a_store_location_is_a_folder_or_a_uri(text, uri):
    root = folder.root_of(text)
    assert isinstance(root, str) == uri
    if uri:
        assert root == text.rstrip("/")
    else:
        assert root == Path(text)


def test_duckdb_refuses_a_uri_and_says_which_engine_reads_it():
    store = Store("s3a://bucket/store")
    for action in (store.runs, lambda: store.history("total_time"), store.regressions, store.check,
                   lambda: store.add(RUN / "b2.json")):
        with pytest.raises(UsageError, match="local or mounted folder"):
            action()


def test_quiet_defaults_give_way_to_spark_defaults_and_conf(tmp_path, monkeypatch):
    (tmp_path / "spark-defaults.conf").write_text(
        "# comment\nspark.log.level   INFO\nspark.ui.enabled=true\n\nspark.executor.memory 4g\n")
    monkeypatch.setenv("SPARK_CONF_DIR", str(tmp_path))
    found = user_defaults()
    assert found == {"spark.log.level", "spark.ui.enabled", "spark.executor.memory"}
    chosen = settings({"spark.ui.showConsoleProgress": "true", "spark.sql.shuffle.partitions": "8"}, found)
    assert chosen == {"spark.ui.showConsoleProgress": "true", "spark.sql.shuffle.partitions": "8"}
    assert settings({}, set()) == QUIET and settings({}, set(QUIET)) == {}
    monkeypatch.setenv("SPARK_CONF_DIR", str(tmp_path / "none"))
    assert user_defaults() == set()


def test_a_master_and_spark_remote_together_are_a_usage_error(monkeypatch):
    monkeypatch.setenv("SPARK_REMOTE", "sc://somewhere:15002")
    with pytest.raises(UsageError, match="unset one"):
        start("local[2]", {})


def test_a_failed_spark_job_is_told_in_one_line():
    crashed = RuntimeError(
        "An error occurred while calling o145.collectToPython.\n: org.apache.spark.SparkException: "
        "Job aborted due to stage failure: Task 0 in stage 10.0 failed 1 times, most recent failure: "
        "Lost task 0.0 in stage 10.0 (TID 10) (192.0.2.2 executor driver): org.apache.spark.SparkException: "
        "Python worker exited unexpectedly (crashed). Consider setting 'x'.\n\tat org.apache.A.b(A.scala:1)")
    assert first_line(crashed) == "Python worker exited unexpectedly (crashed)"
    raised = RuntimeError("Traceback (most recent call last):\n  File \"x.py\", line 1, in f\n"
                          "    g()\nPermissionError: [Errno 13] Permission denied: '/store/objects/ab'\n")
    assert first_line(raised) == "PermissionError: [Errno 13] Permission denied: '/store/objects/ab'"
    assert first_line(RuntimeError("An error occurred while calling o1.x.\nsomething broke")) == "something broke"
