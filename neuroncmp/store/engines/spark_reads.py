"""The Spark engine's reads: the primitives ``queries`` and ``baseline`` build on, as Spark jobs.

Runs come back ordered as DuckDB orders them (time, then run id). ``series`` joins the runs a
query chose, by their tag sets (a few hundred rows, broadcast), to the metric values and runs the
caller's per-series function on the executors, one pandas group per series
(``spark_jobs.apply_each``); only its results come back to the driver.
"""

from __future__ import annotations

import pickle
import warnings
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any, TypeVar

from ..identity import SeriesKey
from ..reading import Run
from ..trends import SeriesValues
from . import spark_jobs
from .base import StoredRows
from .spark_add import parallelism
from .spark_tables import Tables

T = TypeVar("T")
SERIES_TASKS_PER_CORE = 4  # uneven series sizes even out over several tasks per core
KEYED = "`tags_json` string, `key` string"


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
    return [tags for _, tags in _tag_sets(tables)]


def _tag_sets(tables: Tables) -> list[tuple[str, dict[str, str]]]:
    """Each distinct tag set as Spark writes it in JSON (to join on) and as a dict."""
    from pyspark.sql import functions as F

    rows = _with_tags_json(tables.runs).groupBy("tags_json").agg(F.first("tags").alias("tags")) \
        .toArrow().to_pylist()
    return [(r["tags_json"], dict(r["tags"] or [])) for r in rows]


def _with_tags_json(runs: Any) -> Any:
    from pyspark.sql import functions as F

    return runs.withColumn("tags_json", F.coalesce(F.to_json("tags"), F.lit("")))


def units(tables: Tables, metric: str | None) -> dict[str, str]:
    from pyspark.sql import functions as F

    values = tables.metrics if metric is None else tables.metrics.filter(F.col("metric") == metric)
    return {r["metric"]: r["unit"] for r in values.select("metric", "unit").distinct().collect()}


def series(tables: Tables, keys: Mapping[SeriesKey, SeriesKey], metric: str | None,
           each: Callable[[SeriesValues], T]) -> list[T]:
    """``each`` over every series, on the executors."""
    from pyspark.sql import functions as F

    spark = tables.runs.sparkSession
    chosen = [(json, keys[own].text) for json, tags in _tag_sets(tables)
              if (own := SeriesKey.of(tags)) in keys]
    if not chosen:
        return []
    keyed = _with_tags_json(tables.runs).join(F.broadcast(spark.createDataFrame(chosen, KEYED)),
                                              "tags_json")
    runs = keyed.select("run", F.col("key").alias("series"), F.unix_micros("time").alias("time"),
                        "commit")
    values = tables.metrics.filter(F.col("value").isNotNull())
    if metric is not None:
        values = values.filter(F.col("metric") == metric)
    # Series spread over the tasks by an explicit count: left to adaptive execution, a few tens of
    # MB of values (small, but seconds of detection per series) would be coalesced into one task.
    points = values.select("run", "metric", "value", "unit").join(runs, "run").repartition(
        SERIES_TASKS_PER_CORE * parallelism(spark), "metric", "series")
    with warnings.catch_warnings():  # pyspark reads a function's type hints, and warns of a partial's
        warnings.filterwarnings("ignore", "Cannot infer the eval type", UserWarning)
        found = points.groupBy("metric", "series").applyInPandas(
            partial(spark_jobs.apply_each, each), spark_jobs.APPLIED)
    return [pickle.loads(row["result"]) for row in found.toArrow().to_pylist()]


def rows(tables: Tables, ids: Sequence[str]) -> StoredRows:
    from pyspark.sql import functions as F

    wanted = F.col("run").isin(list(ids))
    metrics = tables.metrics.filter(wanted).select("run", "metric", "value", "text", "unit", "group",
                                                   "flags").toArrow().to_pylist()
    memory = tables.memory.filter(wanted).select("run", "device", "core", "usage_type", "label",
                                                 "bytes").toArrow().to_pylist()
    return StoredRows([tuple(r.values()) for r in metrics], [tuple(r.values()) for r in memory])
