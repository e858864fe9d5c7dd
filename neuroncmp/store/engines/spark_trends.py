"""Runs, history and regressions on Spark: the DuckDB engine's queries, with the same answers.

Points are ordered as DuckDB orders them (time, then run id); series by metric, then series key.
``regressions`` runs the detector on the executors, one pandas group per series
(``spark_jobs.detect_series``), and brings back only the shifts and two counts; ``history``
brings back the points of one metric (they are its answer) and runs the same ``build_series``
as DuckDB on them.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from .. import trends
from ..reading import Run
from . import spark_jobs
from .base import Where
from .spark_add import parallelism
from .spark_tables import Tables, matching

SERIES_TASKS_PER_CORE = 4  # uneven series sizes even out over several tasks per core


def runs(tables: Tables, where: Where) -> list[Run]:
    """Every matching run in time order (then by id), as ``reading.runs`` gives them."""
    from pyspark.sql import functions as F

    frame = matching(tables.runs, where).select(
        "run", F.unix_micros("time").alias("time"), "time_source", "commit", "tags", "series",
        "label", "source", "format", "batch_size").orderBy("time", "run")
    return [Run(r["run"], spark_jobs.moment(r["time"]), r["time_source"], r["commit"],
                dict(r["tags"] or []), r["series"], r["label"], r["source"], r["format"],
                r["batch_size"]) for r in frame.toArrow().to_pylist()]


def history(tables: Tables, root: Path | str, metric: str, where: Where) -> trends.History:
    """Every series of ``metric`` among the matching runs, with its shifts."""
    from pyspark.sql import functions as F

    metrics = tables.metrics.filter(F.col("metric") == metric)
    rows = _points(tables, where, metrics).orderBy("series", "time", "run").toArrow().to_pylist()
    units = [rows[0]["unit"]] if rows else [r[0] for r in metrics.select("unit").distinct().collect()]
    if not units:  # no value at all, not only none among the matching runs
        known = sorted(r[0] for r in tables.metrics.select("metric").distinct().collect())
        raise trends.unknown_metric(metric, root, known)
    grouped: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        grouped.setdefault(row["series"], []).append(row)
    series = tuple(trends.build_series(metric, units[0], json.loads(key), [p["value"] for p in points],
                                       _point_maker(points))
                   for key, points in grouped.items())
    return trends.History(metric, units[0], series)


def regressions(tables: Tables, where: Where, since: datetime | None, all_changes: bool,
                min_change: float | None) -> trends.Regressions:
    """Shifts in every series of every metric, found on the executors; filtered and ordered by
    ``trends.select`` as on DuckDB."""
    from pyspark.sql import functions as F

    # Series spread over the tasks by an explicit count: left to adaptive execution, a few tens of
    # MB of values (small, but seconds of detection per series) would be coalesced into one task.
    points = _points(tables, where, tables.metrics).repartition(
        SERIES_TASKS_PER_CORE * parallelism(tables.runs.sparkSession), "metric", "series")
    found = points.groupBy("metric", "series").applyInPandas(spark_jobs.detect_series,
                                                            spark_jobs.DETECTED)
    shift = F.col("index") >= 0
    names = [c.split("`")[1] for c in spark_jobs.DETECTED.split(", ")]
    summary = found.agg(F.sum(F.when(shift, 0).otherwise(1)).alias("series"),
                        F.countDistinct("metric").alias("metrics"),
                        F.collect_list(F.when(shift, F.struct(*names))).alias("shifts")).collect()[0]
    rows = sorted((row.asDict() for row in summary["shifts"]),
                  key=lambda r: (r["metric"], r["series"], r["index"]))
    changes = [_change(row) for row in rows]
    chosen = trends.select(changes, all_changes=all_changes, min_change=min_change, since=since)
    return trends.Regressions(chosen, summary["series"] or 0, summary["metrics"], all_changes,
                              min_change, since, where)


def _points(tables: Tables, where: Where, metrics: Any) -> Any:
    """Numeric values of the matching runs: metric, series, run, time (us), commit, value, unit."""
    from pyspark.sql import functions as F

    runs = matching(tables.runs, where).select(
        "run", "series", F.unix_micros("time").alias("time"), "commit")
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
