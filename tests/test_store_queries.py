"""The store's queries are written once above the engines: an engine gives primitives only, so
an engine made of plain Python lists answers history and regressions exactly as DuckDB does on
the same runs; series keys are typed records; the query path imports no parser."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import ROOT

from neuroncmp.store import Store, queries
from neuroncmp.store.engines.base import Runs, Scan, StoredRows
from neuroncmp.store.identity import SeriesKey
from neuroncmp.store.options import HistoryOptions, RegressionsOptions
from neuroncmp.store.reading import Run

START = datetime(2025, 1, 1, tzinfo=timezone.utc)


class ListEngine:
    """An engine over Python lists: runs and their ``metric -> value``; no query logic in it."""

    name = "lists"

    def __init__(self, runs: list[tuple[str, dict[str, str], dict[str, float]]]) -> None:
        self._runs = [(Run(rid, START + timedelta(days=i), "--at", f"c{i}", tags, SeriesKey.of(tags),
                           "x", "x.json", "summary-json", None), values)
                      for i, (rid, tags, values) in enumerate(runs)]

    def series_by(self, root):
        return ()

    def runs(self, root):
        return [run for run, _ in self._runs]

    def tag_sets(self, root):
        return [dict(t) for t in {SeriesKey.of(run.tags) for run, _ in self._runs}]

    def units(self, root, metric=None):
        names = {m for _, values in self._runs for m in values}
        return {m: "s" for m in names if metric in (None, m)}

    def scan(self, root, keys, metrics, since=None):
        later = {keys[SeriesKey.of(run.tags)] for run, _ in self._runs
                 if SeriesKey.of(run.tags) in keys and (since is None or run.time > since)}
        taken = [(run, values) for run, values in self._runs if keys.get(SeriesKey.of(run.tags)) in later]
        runs = Runs([r.run for r, _ in taken], [r.commit for r, _ in taken],
                    [r.time for r, _ in taken],
                    [r.batch_size for r, _ in taken])
        grouped: dict[tuple[str, str], list[tuple[int, float]]] = {}
        for place, (run, values) in enumerate(taken):
            for name, value in values.items():
                if metrics is None or name in metrics:
                    grouped.setdefault((name, keys[SeriesKey.of(run.tags)].text), []).append((place, value))
        ordered = sorted(grouped.items())
        return Scan(runs, [(name, key, "s") for (name, key), _ in ordered],
                    np.array([len(points) for _, points in ordered], dtype=np.int64),
                    np.array([p for _, points in ordered for p, _ in points], dtype=np.int64),
                    np.array([v for _, points in ordered for _, v in points], dtype=float))

    def rows(self, root, runs):
        return StoredRows([], [])


def _fleet() -> list[tuple[str, dict[str, str], dict[str, float]]]:
    """Two series: model a's total_time steps from 1.0 s to 2.0 s at its 11th run; model b's
    stays at 3.0 s (tiny alternating noise keeps the detector's spread finite; the nano-second
    drift makes every file's content, so its run, distinct)."""
    out = []
    for i in range(20):
        wobble = 0.001 * (i % 2) + 1e-9 * i
        out.append((f"a{i:02d}", {"model": "a"}, {"total_time": (1.0 if i < 10 else 2.0) + wobble}))
        out.append((f"b{i:02d}", {"model": "b"}, {"total_time": 3.0 + wobble + 1e-10}))
    return out


def test_history_and_regressions_are_assembled_above_the_engine():
    engine = ListEngine(_fleet())
    history = queries.history(engine, Path("x"), HistoryOptions.of("total_time"))
    assert [dict(s.key) for s in history.series] == [{"model": "a"}, {"model": "b"}]
    assert [p.run for p in history.series[0].points] == [f"a{i:02d}" for i in range(20)]
    (shift,) = history.series[0].changes
    assert shift.at.run == "a10" and shift.before_run.run == "a09" and shift.direction == "worse"
    assert shift.before == pytest.approx(1.0005) and shift.after == pytest.approx(2.0005)
    assert history.series[1].changes == ()
    found = queries.regressions(engine, Path("x"), RegressionsOptions.of(where={"model": "a"}))
    assert found.series_count == 1 and found.metric_count == 1 and found.short_series == 0
    assert [(c.metric, c.series["model"], c.at.run) for c in found.changes] == [("total_time", "a", "a10")]


def test_the_list_engine_and_duckdb_give_the_same_answers(tmp_path):
    """The same runs in a DuckDB store (summary JSON files added with their time) and in lists:
    the same history and regressions, by construction."""
    folder = tmp_path / "runs"
    folder.mkdir()
    rows = ["path,time,commit,model"]
    fleet = _fleet()
    for i, (rid, tags, values) in enumerate(fleet):
        (folder / f"{rid}.json").write_text(json.dumps(values))
        rows.append(f"{rid}.json,{(START + timedelta(days=i)).isoformat()},c{i},{tags['model']}")
    (folder / "runs.csv").write_text("\n".join(rows) + "\n")
    store = Store(tmp_path / "store")
    store.add_listing(folder / "runs.csv")
    by_file = {run.source.rsplit("/", 1)[-1][:-5]: run.run for run in store.runs()}
    duck = store.history("total_time", series_by="model")  # the store adds a batch_size tag
    lists = queries.history(ListEngine(fleet), Path("x"), HistoryOptions.of("total_time", series_by="model"))
    assert [s.key for s in duck.series] == [s.key for s in lists.series]
    assert [[(p.value, p.time) for p in s.points] for s in duck.series] == \
        [[(p.value, p.time) for p in s.points] for s in lists.series]
    duck_changes = [c for c in store.regressions(all_changes=True, series_by="model").changes
                    if c.metric == "total_time"]  # the store derives more metrics from the files
    options = RegressionsOptions.of(all_changes=True, series_by="model")
    list_changes = queries.regressions(ListEngine(fleet), Path("x"), options).changes
    assert len(list_changes) == 1
    def runs(c: Any, name: Callable[[str], str]) -> Any:  # the points by run id, as each engine names it
        found = c.candidates
        return replace(c, at=name(c.at.run), before_run=name(c.before_run.run),
                       candidates=(name(found.first.run), name(found.last.run), name(found.before.run),
                                   found.runs, found.confidence))

    assert [runs(c, str) for c in duck_changes] == [runs(c, by_file.__getitem__) for c in list_changes]


def test_a_series_key_is_its_sorted_tags():
    key = SeriesKey.of({"model": "llama", "batch": "8"})
    assert key.tags == (("batch", "8"), ("model", "llama")) and dict(key) == {"batch": "8", "model": "llama"}
    assert key.text == '{"batch":"8","model":"llama"}' and SeriesKey.parse(key.text) == key
    assert key["model"] == "llama" and key.get("seq") is None and key.shown() == "batch=8 model=llama"
    assert SeriesKey.parse("") == SeriesKey() and SeriesKey().shown() == "(no tags)"
    with pytest.raises(KeyError):
        key["seq"]


def test_the_query_path_imports_no_parser_and_no_comparison():
    code = ("import sys; import neuroncmp.store.queries, neuroncmp.store.options, "
            "neuroncmp.store.engines.duckdb_engine; "
            "print([m for m in sys.modules if m.startswith(('neuroncmp.ingest', 'neuroncmp.comparison', "
            "'neuroncmp.store.adding', 'neuroncmp.store.store'))])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}).stdout
    assert out.strip() == "[]"


def test_a_bulk_add_adds_each_file_of_a_folder_as_a_run(tmp_path):
    """Each file of an add is assembled on its own: a folder of 30 files is 30 runs, one label each."""
    for i in range(30):
        (tmp_path / f"r{i}.json").write_text(json.dumps({"total_time": 1.0 + i}))
    report = Store(tmp_path / "store").add(tmp_path)
    assert sorted(run.label for run in report.runs) == sorted(f"r{i}" for i in range(30))
    assert len(Store(tmp_path / "store").runs()) == 30


@pytest.mark.parametrize("where", [{"model": []}, {"model": ()}, {"model": iter([])}])
def test_an_empty_list_of_tag_values_is_refused_in_one_line(tmp_path, where):
    """A filter with no value to accept (``runs(model=[])``) raised IndexError; it is a usage error
    naming the tag, in every query that takes tags."""
    from neuroncmp.errors import UsageError

    store = Store(tmp_path / "store")
    store.add(ROOT / "profiles" / "trn1-2xlarge-bs-sweep" / "b32.json", at="2024-01-01", tags={"model": "m"})
    # the keyword filters are named as the caller wrote them (model=[]), the mapping as where['model']
    for query, named in ((lambda: store.runs(**where), "model"),
                         (lambda: store.history("total_time", **where), "model"),
                         (lambda: store.regressions(where=where), r"where\['model'\]")):
        with pytest.raises(UsageError, match=rf"^{named}=.*: expected at least one value"):
            query()


@pytest.mark.parametrize("series_by,said", [(5, r"series_by=5: expected a list of strings, found int"),
                                            ([5], r"series_by\[0\]=5: expected a string, found int")])
def test_a_series_key_of_the_wrong_type_is_refused_in_one_line(tmp_path, series_by, said):
    """``runs(series_by=5)`` was a TypeError from str.join (found by the fuzzed API)."""
    from neuroncmp.errors import UsageError

    store = Store(tmp_path / "store")
    store.add(ROOT / "profiles" / "trn1-2xlarge-bs-sweep" / "b32.json", at="2024-01-01", tags={"model": "m"})
    with pytest.raises(UsageError, match=said):
        store.runs(series_by=series_by)


def test_since_reads_only_the_series_with_a_later_run(tmp_path):
    """``regressions --since``: a series whose last run is older than ``since`` can hold no change
    that late, so it is not read (the count of series examined says so); the changes are those of
    the full query later than ``since``. Model a (20 nightly runs, 1.0 s then 2.0 s from its 15th)
    runs on; model b (3.0 s) stopped after 12 nights."""
    folder = tmp_path / "runs"
    folder.mkdir()
    rows = ["path,time,commit,model"]
    for i in range(20):
        wobble = 0.001 * (i % 2) + 1e-9 * i
        for model, value, last in (("a", 1.0 if i < 14 else 2.0, 20), ("b", 3.0, 12)):
            if i < last:
                (folder / f"{model}{i:02d}.json").write_text(json.dumps({"total_time": value + wobble}))
                rows.append(f"{model}{i:02d}.json,{(START + timedelta(days=i)).isoformat()},c{i},{model}")
    (folder / "runs.csv").write_text("\n".join(rows) + "\n")
    store = Store(tmp_path / "store")
    store.add_listing(folder / "runs.csv")
    since = START + timedelta(days=12, hours=12)
    every = store.regressions(series_by="model")
    later = store.regressions(series_by="model", since=since)
    assert {s for s in (c.series["model"] for c in every.changes)} == {"a"}
    only_a = store.regressions(series_by="model", where={"model": "a"})
    assert later.series_count == only_a.series_count < every.series_count  # model a's series only
    assert later.changes == tuple(c for c in every.changes if c.at.time > since) != ()
