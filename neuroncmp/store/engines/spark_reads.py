"""The Spark engine's reads: the primitives ``queries`` and ``baseline`` build on, as Spark jobs
returning what DuckDB's return, in its order (docs/history/spark.md, "What runs where").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from ..identity import SeriesKey
from ..reading import Run
from . import spark_jobs
from .base import Runs, Scan, StoredRows, keyed
from .spark_tables import Tables

KEYED = "`own` string, `key` string"


def runs(tables: Tables) -> list[Run]:
    """Every run in time order (then by id), as ``reading.runs`` gives them."""
    from pyspark.sql import functions as F

    frame = tables.runs.select(
        "run", F.unix_micros("time").alias("time"), "time_source", "commit", "tags", "series",
        "label", "source", "format", "batch_size").orderBy("time", "run")
    return [Run(r["run"], spark_jobs.moment(r["time"]), r["time_source"], r["commit"],
                dict(r["tags"] or []), SeriesKey.parse(r["series"]), r["label"], r["source"],
                r["format"], r["batch_size"]) for r in frame.toArrow().to_pylist()]


def tag_sets(tables: Tables) -> list[dict[str, str]]:
    """The distinct tag sets, grouped by their JSON (Spark cannot group on a map)."""
    from pyspark.sql import functions as F

    rows = tables.runs.groupBy(F.coalesce(F.to_json("tags"), F.lit("")).alias("tags_json")) \
        .agg(F.first("tags").alias("tags")).toArrow().to_pylist()
    return [dict(r["tags"] or []) for r in rows]


def units(tables: Tables, metric: str | None) -> dict[str, str]:
    from pyspark.sql import functions as F

    values = tables.metrics if metric is None else tables.metrics.filter(F.col("metric") == metric)
    return {r["metric"]: r["unit"] for r in values.select("metric", "unit").distinct().collect()}


def scan(tables: Tables, keys: Mapping[SeriesKey, SeriesKey], metrics: Sequence[str] | None,
         since: datetime | None = None) -> Scan:
    """The runs ``keys`` takes (by their stored ``series``: all their tags) and each series of
    ``metrics`` (all when None) over them (with ``since``, of the series with a run later than
    it), as DuckDB's ``reading.scan`` returns them: Spark joins, filters, groups and sorts; the
    driver gets two columns of numbers and the series' names."""
    import numpy as np
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    own, texts = keyed(keys)
    if not own:
        return Scan(Runs([], [], [], []), [], np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0))
    chosen = F.broadcast(tables.runs.sparkSession.createDataFrame(list(zip(own, texts)), KEYED))
    runs = tables.runs.join(chosen, tables.runs["series"] == chosen["own"]).select(
        "run", "key", "commit", F.unix_micros("time").alias("time"), "batch_size")
    if since is not None:  # the series with no later run: their changes are all older than since
        later = runs.groupBy("key").agg(F.max("time").alias("last")) \
            .filter(F.col("last") > spark_jobs.micros(since)).select("key")
        runs = runs.join(later, "key")
    # the runs' places in time order: a few hundred thousand rows at most, one partition
    runs = runs.withColumn("place", F.row_number().over(Window.orderBy("time", "run")) - 1)
    taken = runs.orderBy("place").select("run", "commit", "time", "batch_size").toArrow()
    values = tables.metrics.filter(F.col("value").isNotNull())
    if metrics is not None:
        values = values.filter(F.col("metric").isin(list(metrics)))
    joined = values.select("run", "metric", "value", "unit").join(runs.select("run", "key", "place"), "run")
    series = joined.groupBy("metric", "key").agg(F.min("unit").alias("unit"), F.count("*").alias("size")) \
        .orderBy("metric", "key").toArrow().to_pylist()
    arrays = joined.orderBy("metric", "key", "place").select("place", "value").toArrow()
    return Scan(Runs(taken.column("run").to_pylist(), taken.column("commit").to_pylist(),
                     [spark_jobs.moment(t) for t in taken.column("time").to_pylist()],
                     taken.column("batch_size").to_pylist()),
                [(r["metric"], r["key"], r["unit"]) for r in series],
                np.array([r["size"] for r in series], dtype=np.int64),
                np.asarray(arrays.column("place").to_numpy(), dtype=np.int64),
                np.asarray(arrays.column("value").to_numpy(), dtype=float))


def rows(tables: Tables, ids: Sequence[str]) -> StoredRows:
    from pyspark.sql import functions as F

    wanted = F.col("run").isin(list(ids))
    metrics = tables.metrics.filter(wanted).select("run", "metric", "value", "text", "unit", "group",
                                                   "flags").toArrow().to_pylist()
    memory = tables.memory.filter(wanted).select("run", "device", "core", "usage_type", "label",
                                                 "bytes").toArrow().to_pylist()
    return StoredRows([tuple(r.values()) for r in metrics], [tuple(r.values()) for r in memory])
