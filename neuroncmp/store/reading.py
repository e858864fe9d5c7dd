"""Reading the store with DuckDB (imported here only): the committed parts as three views."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, TypeVar

from ..errors import optional
from . import damage, folder, parts, schema
from .engines.base import Runs, Scan, keyed
from .identity import SeriesKey


@dataclass(frozen=True, slots=True)
class Run:
    """A run as ``store ls`` and the Python API show it (``time`` in UTC)."""

    run: str
    time: datetime
    time_source: str
    commit: str | None
    tags: dict[str, str]
    series: SeriesKey
    label: str
    source: str
    format: str
    batch_size: int | None


T = TypeVar("T")
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
RUN_COLUMNS = ("run, epoch_us(time) AS time, time_source, commit, tags, series, label, source, "
               "format, batch_size")


def connect(root: Path) -> Any:
    """A DuckDB connection with views ``runs``, ``metrics`` and ``memory`` over the committed parts."""
    duckdb = _duckdb()
    folder.check(root)
    snapshot = folder.read_snapshot(root)
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")  # a long scan must not draw on the user's terminal
    for table, definition in schema.TABLES.items():
        paths = [str(p) for p in parts.files(root, snapshot, table)]
        if paths:
            con.execute(f"CREATE VIEW {table} AS SELECT * FROM read_parquet({paths!r})")
        else:
            columns = ", ".join(f'"{name}" {kind}' for name, kind, _ in definition)
            con.execute(f"CREATE TABLE {table} ({columns})")
    return con


class Connections:
    """Open connections kept for reuse, one per store and thread, while the store's snapshot is the
    one they were opened on: the reads of one query share one connection (one snapshot, its part
    files opened once) unless an add or a compaction publishes a new snapshot between them."""

    def __init__(self) -> None:
        self._open: dict[tuple[Path, int], tuple[tuple[int, ...] | None, Any]] = {}

    def get(self, root: Path) -> Any:
        key, mark = (root, threading.get_ident()), _snapshot_mark(root)
        found = self._open.get(key)
        if found is None or found[0] != mark or mark is None:
            found = self._open[key] = (mark, connect(root))
        return found[1]

    def forget(self, root: Path) -> None:
        self._open.pop((root, threading.get_ident()), None)


def _snapshot_mark(root: Path) -> tuple[int, ...] | None:
    """What tells one published snapshot from the next (each is a new file renamed into place)."""
    try:
        found = (root / folder.SNAPSHOT).stat()
    except OSError:
        return None
    return found.st_ino, found.st_mtime_ns, found.st_size


def retrying(root: Path, work: Callable[[Any], T], reuse: Connections | None = None) -> T:
    """``work(connection)`` (one ``reuse`` keeps, else a new one), once more on a fresh connection
    if a part file vanished under it (``store compact`` deletes the parts it merged once the new
    snapshot is published)."""
    duckdb = _duckdb()
    try:
        return work(reuse.get(root) if reuse is not None else connect(root))
    except duckdb.Error:  # a part compacted away under us (IOException): read the new snapshot
        pass
    if reuse is not None:
        reuse.forget(root)
    try:
        return work(connect(root))
    except duckdb.Error as exc:  # still failing on a fresh snapshot: a damaged part
        snapshot = folder.read_snapshot(root)
        paths = [p for table in schema.TABLES for p in parts.files(root, snapshot, table)]
        raise damage.parquet_error(root, paths, exc) from None


def runs(con: Any) -> list[Run]:
    """Every run, in time order (then by id)."""
    rows = con.execute(f"SELECT {RUN_COLUMNS} FROM runs ORDER BY time, run").fetchall()
    keys = {text: SeriesKey.parse(text) for text in {r[5] for r in rows}}  # a few hundred of them
    return [Run(r[0], utc(r[1]), r[2], r[3], dict(r[4] or {}), keys[r[5]], r[6], r[7], r[8], r[9]) for r in rows]


def tag_sets(con: Any) -> list[dict[str, str]]:
    """The distinct tag sets of the runs."""
    return [dict(r[0] or {}) for r in con.execute("SELECT DISTINCT tags FROM runs").fetchall()]


def scan(con: Any, keys: Mapping[SeriesKey, SeriesKey], metrics: Sequence[str] | None,
         since: datetime | None = None) -> Scan:
    """The runs ``keys`` takes (by their stored ``series``: all their tags) and each series of
    ``metrics`` (all when None) over them, as ``Scan`` holds them; text values left out; with
    ``since``, only the series with a run later than it. The key comes from the caller, not the
    stored ``series`` column, so a store re-keyed with ``series_by`` regroups the runs it holds.
    DuckDB joins and filters; the values come back unordered with small integer ids for their
    metric and series, ordered here (sorting millions of rows by two strings costs DuckDB ten
    times what numpy's sort of integers does)."""
    import numpy as np

    own, texts = keyed(keys)
    named = sorted(set(texts))
    ids = {text: index for index, text in enumerate(named)}
    con.execute("CREATE OR REPLACE TEMP TABLE k AS SELECT unnest($own) AS own, unnest($key) AS key_id",
                {"own": own, "key": [ids[text] for text in texts]})
    if since is not None:  # the series with no later run: their changes are all older than since
        con.execute("DELETE FROM k WHERE key_id NOT IN (SELECT k.key_id FROM runs JOIN k ON runs.series = k.own "
                    "GROUP BY k.key_id HAVING max(runs.time) > $since)", {"since": since})
    con.execute("CREATE OR REPLACE TEMP TABLE r AS SELECT row_number() OVER (ORDER BY time, run) - 1 AS place, "
                "run, key_id, commit, epoch_us(time) AS time, batch_size FROM runs JOIN k ON runs.series = k.own")
    found = con.execute("SELECT run, commit, time, batch_size FROM r ORDER BY place").fetchall()
    runs = Runs([r[0] for r in found], [r[1] for r in found], [utc(r[2]) for r in found], [r[3] for r in found])
    params: dict[str, Any] = {}
    where = "m.value IS NOT NULL"
    if metrics is not None:
        where += " AND m.metric IN (SELECT unnest($metrics))"
        params["metrics"] = list(metrics)
    joined = f"FROM metrics m JOIN r ON m.run = r.run WHERE {where}"
    units = con.execute(f"SELECT m.metric, r.key_id, min(m.unit) {joined} GROUP BY m.metric, r.key_id "
                        "ORDER BY m.metric, r.key_id", params).fetchall()
    metric_ids = {metric: index for index, metric in enumerate(dict.fromkeys(row[0] for row in units))}
    con.execute("CREATE OR REPLACE TEMP TABLE mi AS SELECT unnest($names) AS metric, unnest($ids) AS metric_id",
                {"names": list(metric_ids), "ids": list(metric_ids.values())})
    arrays = con.execute("SELECT mi.metric_id, r.key_id, r.place, m.value FROM metrics m JOIN r ON m.run = r.run "
                         f"JOIN mi ON m.metric = mi.metric WHERE {where}", params).fetchnumpy()
    group = np.asarray(arrays["metric_id"], dtype=np.int64) * max(len(named), 1) + arrays["key_id"]
    order = np.lexsort((arrays["place"], group))
    return Scan(runs, [(metric, named[key], unit) for metric, key, unit in units],
                np.unique(group[order], return_counts=True)[1].astype(np.int64),
                np.asarray(arrays["place"], dtype=np.int64)[order], np.asarray(arrays["value"], dtype=float)[order])


def rows(con: Any, runs: Sequence[str]) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """The ``metrics`` and ``memory`` rows of ``runs``."""
    ids = {"ids": list(runs)}
    metrics = con.execute('SELECT run, metric, value, text, unit, "group", flags FROM metrics '
                          "WHERE run IN (SELECT unnest($ids))", ids).fetchall()
    memory = con.execute("SELECT run, device, core, usage_type, label, bytes FROM memory "
                         "WHERE run IN (SELECT unnest($ids))", ids).fetchall()
    return metrics, memory


def units(con: Any, metric: str | None = None) -> dict[str, str]:
    """The base unit of each metric (of one metric when given)."""
    query = "SELECT DISTINCT metric, unit FROM metrics"
    rows = con.execute(query + " WHERE metric = $m", {"m": metric}).fetchall() if metric else \
        con.execute(query).fetchall()
    return dict(rows)


def utc(micros: int) -> datetime:
    return EPOCH + timedelta(microseconds=micros)


def _duckdb() -> Any:
    return optional("duckdb", "the store needs duckdb and pyarrow: pip install 'neuroncmp[store]'")
