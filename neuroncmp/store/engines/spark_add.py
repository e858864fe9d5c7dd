"""``store add`` on Spark: parse on the executors, publish as a DuckDB add does (the steps and what
comes back to the driver: docs/history/spark.md, "What runs where"; after a failure: "Bad input and
failures at scale"). The snapshot is the commit point, as for ``adding._commit``.
"""

from __future__ import annotations

import math
import os
import shutil
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from ...errors import InputError
from .. import adding, folder, parts, schema, times
from ..adding import AddedRun, AddReport
from ..listing import Entry, Problem
from . import spark_jobs
from .spark_session import shares_cwd
from .spark_tables import spark_schema, uri

UNITS_PER_TASK = 2000  # entries a task parses: small enough to spread, big enough to amortize


@dataclass(frozen=True, slots=True)
class _Loaded:
    """What came back of one run: where it is in the add, its report and content hash."""

    place: tuple[int, int, int]
    run: AddedRun
    content_hash: str


def add(spark: Any, root: Path, entries: list[Entry], *, skip_bad: bool,
        problems: list[Problem]) -> AddReport:
    """Add ``entries`` to the local (or mounted) store ``root`` (the steps: docs/history/spark.md)."""
    folder.usable(root)
    units: list[Entry] = []
    problems = list(problems)
    for entry in entries:  # a plain folder: each file its own unit, a link out of it a problem
        found, outside = adding.expand(entry)
        units += found
        problems += outside
    if not units:
        if problems and not skip_bad:
            raise InputError(adding.refusal(problems))
        raise InputError(adding.nothing_to_add(root, entries, problems))  # as DuckDB's add says
    added = times.now()
    parsed = _parse(spark, units, spark_jobs.micros(added)).persist()
    try:
        loaded, bad = _collect(parsed)
        problems += bad
        if problems and not skip_bad:
            raise InputError(adding.refusal(problems))
        if not loaded:
            raise InputError(adding.nothing_to_add(root, entries, problems))
        folder.create(root)
        report = _commit(spark, root, parsed, loaded)
    finally:
        parsed.unpersist()
    return AddReport(report, tuple(problems))


def _parse(spark: Any, units: list[Entry], added: int) -> Any:
    """The entries as a DataFrame spread over tasks, mapped through ``parse_units``."""
    import pyarrow as pa

    # Executors elsewhere (a cluster, Spark Connect) do not share this working directory: they
    # get absolute paths, and the runs table records those.
    here = shares_cwd(spark)
    table = pa.Table.from_pydict({
        "unit": list(range(len(units))),
        "path": [str(u.path if here or u.path.is_absolute() else u.path.absolute()) for u in units],
        "tags": [list(u.tags.items()) for u in units],
        "at": [None if u.at is None else spark_jobs.micros(u.at) for u in units],
        "at_source": [u.at_source for u in units], "commit": [u.commit for u in units],
        "where": [u.where for u in units],
        "commit_from_name": [u.commit_from_name for u in units]}, schema=spark_jobs.units_schema())
    cores = parallelism(spark)  # whole waves of tasks: no wave runs on one core while others idle
    tasks = cores * math.ceil(len(units) / (cores * UNITS_PER_TASK))
    frame = spark.createDataFrame(table, spark_schema(table.schema)).repartition(min(tasks, len(units)))
    return frame.mapInArrow(partial(spark_jobs.parse_units, added=added),
                            spark_schema(spark_jobs.parsed_schema()))


def parallelism(spark: Any) -> int:
    """The cluster's default parallelism (Spark Connect has no SparkContext: its conf, else 2)."""
    try:
        return int(spark.sparkContext.defaultParallelism)
    except Exception:  # Spark Connect raises on sparkContext
        return int(spark.conf.get("spark.default.parallelism", "2"))


def _collect(parsed: Any) -> tuple[list[_Loaded], list[Problem]]:
    """Each run's place, report fields and hash, and each problem, in add order."""
    from pyspark.sql import functions as F

    rows = parsed.filter(F.col("kind").isin("runs", "problem")).select(
        "kind", "unit", "item", "seq", "p_where", "p_message", "rep_source", "runs__run",
        "runs__content_hash", "runs__label", "runs__time", "runs__time_source", "runs__tags",
    ).toArrow().to_pylist()
    rows.sort(key=lambda r: (r["unit"], r["item"] or 0, r["seq"] or 0))
    loaded = [_Loaded((r["unit"], r["item"], r["seq"]),
                      AddedRun(r["runs__run"], r["runs__label"], r["rep_source"],
                               times.iso(spark_jobs.moment(r["runs__time"])), r["runs__time_source"], False,
                               tuple(sorted((str(k), str(v)) for k, v in r["runs__tags"] or []))),
                      r["runs__content_hash"])
              for r in rows if r["kind"] == "runs"]
    problems = [Problem(r["p_where"], r["p_message"]) for r in rows if r["kind"] == "problem"]
    return loaded, problems


def _commit(spark: Any, root: Path, parsed: Any, loaded: list[_Loaded]) -> tuple[AddedRun, ...]:
    """Under the lock: decide what is new, copy, write, publish (as ``adding._commit``)."""
    with folder.locked(root):
        snapshot = folder.read_snapshot(root)
        by_file: dict[tuple[int, int], tuple[str, list[AddedRun]]] = {}
        for run in loaded:  # in add order: a file's runs follow one another
            by_file.setdefault(run.place[:2], (run.content_hash, []))[1].append(run.run)
        items = list(by_file)
        report, places = adding.decide(list(by_file.values()), snapshot)
        new = {items[place] for place in places}
        if new:
            chosen = _chosen(spark, parsed, new)
            _copy(root, chosen)
            part = parts.new_part_id()
            files = _write(spark, root, part, chosen)
            hashes = sorted({run.content_hash for run in loaded if run.place[:2] in new})
            count = sum(1 for run in loaded if run.place[:2] in new)
            snapshot["parts"].append({"id": part, "runs": count, "hashes": hashes, "files": files})
            folder.write_snapshot(root, snapshot)
    return adding.as_stored(root, snapshot, report)


def _chosen(spark: Any, parsed: Any, new: set[tuple[int, int]]) -> Any:
    """The parsed rows of the new files only (a broadcast semi-join on their place)."""
    from pyspark.sql import functions as F

    keys = spark.createDataFrame(sorted(new), "`unit` int, `item` int")
    return parsed.join(F.broadcast(keys), ["unit", "item"], "left_semi")


def _copy(root: Path, chosen: Any) -> None:
    """The executors keep a copy of every new file and sidecar (``objects.keep``)."""
    from pyspark.sql import functions as F

    copies = chosen.filter(F.col("kind") == "runs").select(
        F.explode("copies").alias("relative", "file")).distinct()
    copies.mapInArrow(partial(spark_jobs.copy_objects, root=str(root)), "`copied` bigint").collect()


def _write(spark: Any, root: Path, part: str, chosen: Any) -> dict[str, list[str]]:
    """Each table's new rows as Parquet by Spark, staged in ``tables/<table>/.<part>.spark``
    (hidden: no reader's glob sees it), then renamed to ``<part>-<k>.parquet``, runs last."""
    from pyspark.sql import functions as F

    key = "spark.sql.parquet.outputTimestampType"  # TIMESTAMP WITH TIME ZONE, as pyarrow writes
    previous = spark.conf.get(key, None)
    spark.conf.set(key, "TIMESTAMP_MICROS")
    try:
        runs = chosen.filter(F.col("kind") == "runs")
        for table in schema.TABLES:
            if table in spark_jobs.NESTED:
                frame = runs.select(F.explode(table).alias("row")).select("row.*")
            else:
                frame = runs.select(*[F.timestamp_micros(f"runs__{name}").alias(name)
                                      if kind.startswith("TIMESTAMP") else F.col(f"runs__{name}").alias(name)
                                      for name, kind, _ in schema.TABLES[table]])
            frame.write.option("compression", "zstd").parquet(uri(_staging(root, table, part)))
    finally:
        if previous is None:
            spark.conf.unset(key)
        else:
            spark.conf.set(key, previous)
    return {table: _place(root, table, part) for table in ("memory", "metrics", "runs")}


def _staging(root: Path, table: str, part: str) -> Path:
    return root / "tables" / table / f".{part}.spark"


def _place(root: Path, table: str, part: str) -> list[str]:
    """Rename the staged files into the table's folder; the names the snapshot will list."""
    staging = _staging(root, table, part)
    names = []
    for k, file in enumerate(sorted(staging.glob("part-*.parquet"))):
        name = f"{part}-{k:05d}.parquet"
        os.replace(file, root / "tables" / table / name)
        names.append(name)
    shutil.rmtree(staging)
    return names
