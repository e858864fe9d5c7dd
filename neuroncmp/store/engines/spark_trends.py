"""Runs, history and regressions on Spark: the DuckDB engine's queries, with the same answers.

Which runs a query takes and the series each belongs to are decided on the driver by the code the
DuckDB engine runs, ``trends.chosen_runs`` (``--where``, ``--series-by``, a store's ``series_by``,
and their usage errors), over one run per distinct tag set (``_keyed``: a few hundred rows, not
the runs); Spark joins that small table back to the runs. Points are ordered as DuckDB orders
them (time, then run id); series by metric, then series key. ``regressions`` runs the detector on
the executors, one pandas group per series (``spark_jobs.detect_series``), and brings back only
the shifts and three counts; ``history`` brings back the points of one metric (they are its
answer) and runs the same ``build_series`` as DuckDB on them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from ...errors import UsageError
from .. import trends
from ..reading import EPOCH, Run
from . import spark_jobs
from .base import Where
from .spark_add import parallelism
from .spark_tables import Tables

SERIES_TASKS_PER_CORE = 4  # uneven series sizes even out over several tasks per core
KEYED = "`series` string, `tags_json` string, `key` string"


def runs(tables: Tables, where: Where, series_by: Sequence[str] = ()) -> list[Run]:
    """Every matching run in time order (then by id), as ``reading.runs`` and
    ``trends.chosen_runs`` give them (``series`` keyed by ``series_by``)."""
    from pyspark.sql import functions as F

    frame = _keyed(tables, where, series_by).select(
        "run", F.unix_micros("time").alias("time"), "time_source", "commit", "tags", "key",
        "label", "source", "format", "batch_size").orderBy("time", "run")
    return [Run(r["run"], spark_jobs.moment(r["time"]), r["time_source"], r["commit"],
                dict(r["tags"] or []), r["key"], r["label"], r["source"], r["format"],
                r["batch_size"]) for r in frame.toArrow().to_pylist()]


def history(tables: Tables, root: Path | str, metric: str, where: Where,
            series_by: Sequence[str] = ()) -> trends.History:
    """Every series of ``metric`` among the matching runs, with its shifts."""
    from pyspark.sql import functions as F

    metrics = tables.metrics.filter(F.col("metric") == metric)
    try:
        keyed = _keyed(tables, where, series_by)
    except UsageError:  # DuckDB names an unknown metric before a --where or --series-by typo
        _unit(tables, root, metric, metrics)
        raise
    rows = _points(keyed, metrics).orderBy("series", "time", "run").toArrow().to_pylist()
    unit = rows[0]["unit"] if rows else _unit(tables, root, metric, metrics)
    grouped: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        grouped.setdefault(row["series"], []).append(row)
    series = tuple(trends.build_series(metric, unit, json.loads(key), [p["value"] for p in points],
                                       _point_maker(points))
                   for key, points in grouped.items())
    return trends.History(metric, unit, series)


def regressions(tables: Tables, where: Where, since: datetime | None, all_changes: bool,
                min_change: float | None, series_by: Sequence[str] = ()) -> trends.Regressions:
    """Shifts in every series of every metric, found on the executors; filtered and ordered by
    ``trends.select`` as on DuckDB."""
    from pyspark.sql import functions as F

    # Series spread over the tasks by an explicit count: left to adaptive execution, a few tens of
    # MB of values (small, but seconds of detection per series) would be coalesced into one task.
    points = _points(_keyed(tables, where, series_by), tables.metrics).repartition(
        SERIES_TASKS_PER_CORE * parallelism(tables.runs.sparkSession), "metric", "series")
    found = points.groupBy("metric", "series").applyInPandas(spark_jobs.detect_series,
                                                            spark_jobs.DETECTED)
    shift = F.col("index") >= 0
    short = ~shift & (F.col("points") < trends.SHIFT_TEST_RUNS)
    names = [c.split("`")[1] for c in spark_jobs.DETECTED.split(", ")]
    summary = found.agg(F.sum(F.when(shift, 0).otherwise(1)).alias("series"),
                        F.sum(F.when(short, 1).otherwise(0)).alias("short"),
                        F.countDistinct("metric").alias("metrics"),
                        F.collect_list(F.when(shift, F.struct(*names))).alias("shifts")).collect()[0]
    rows = sorted((row.asDict() for row in summary["shifts"]),
                  key=lambda r: (r["metric"], r["series"], r["index"]))
    changes = [_change(row) for row in rows]
    chosen = trends.select(changes, all_changes=all_changes, min_change=min_change, since=since)
    return trends.Regressions(chosen, summary["series"] or 0, summary["metrics"], all_changes,
                              min_change, since, where, summary["short"] or 0)


def _keyed(tables: Tables, where: Where, series_by: Sequence[str]) -> Any:
    """The runs ``where`` picks, each with its series ``key``: ``trends.chosen_runs`` (the DuckDB
    engine's choice, checks and keys) over one run standing for each distinct (stored series,
    tags), joined back to the runs. Its usage errors are DuckDB's: the checks see the same tag
    sets, and count matches only to tell none from some."""
    from pyspark.sql import functions as F

    spark = tables.runs.sparkSession
    runs = tables.runs.withColumn("tags_json", F.coalesce(F.to_json("tags"), F.lit("")))
    distinct = runs.groupBy("series", "tags_json").agg(F.first("tags").alias("tags")) \
        .orderBy("series", "tags_json").toArrow().to_pylist()
    standing = [Run(str(i), EPOCH, "", None, dict(r["tags"] or []), r["series"], "", "", "", None)
                for i, r in enumerate(distinct)]
    chosen = trends.chosen_runs(standing, where, series_by)
    keys = [(distinct[int(r.run)]["series"], distinct[int(r.run)]["tags_json"], r.series)
            for r in chosen]
    return runs.join(F.broadcast(spark.createDataFrame(keys, KEYED)), ["series", "tags_json"])


def _unit(tables: Tables, root: Path | str, metric: str, metrics: Any) -> str:
    """``metric``'s unit, or the error for a metric the store has no value of at all."""
    found = metrics.select("unit").limit(1).collect()
    if not found:
        known = sorted(r[0] for r in tables.metrics.select("metric").distinct().collect())
        raise trends.unknown_metric(metric, root, known)
    return str(found[0][0])


def _points(keyed: Any, metrics: Any) -> Any:
    """Numeric values of the keyed runs: metric, series (its key), run, time (us), commit, value,
    unit."""
    from pyspark.sql import functions as F

    runs = keyed.select("run", F.col("key").alias("series"), F.unix_micros("time").alias("time"),
                        "commit")
    values = metrics.filter(F.col("value").isNotNull()).select("run", "metric", "value", "unit")
    return values.join(runs, "run")


def _point_maker(points: list[dict[str, Any]]) -> Any:
    def point(i: int) -> trends.Point:
        row = points[i]
        return trends.Point(row["run"], row["commit"], spark_jobs.moment(row["time"]), row["value"])
    return point


def _change(row: dict[str, Any]) -> trends.Change:
    at = trends.Point(row["at_run"], row["at_commit"], spark_jobs.moment(row["at_time"]), row["at_value"])
    before = trends.Point(row["before_run"], row["before_commit"], spark_jobs.moment(row["before_time"]),
                          row["before_value"])
    return trends.make_change(row["metric"], json.loads(row["series"]), row["unit"], at, before,
                              row["before"], row["after"], row["change"], row["p_value"])
