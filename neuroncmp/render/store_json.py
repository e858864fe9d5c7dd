"""JSON documents of ``history`` (``neuroncmp.history/1``), ``regressions``
(``neuroncmp.regressions/1``) and ``store ls`` (``neuroncmp.runs/1``): values in base units,
times in ISO 8601 UTC, NaN as null."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..store.times import iso
from .json_out import dumps
from .store_words import change_size, display_scale

if TYPE_CHECKING:  # the records only: the store's modules stay off the import path of a render
    from ..store.maintenance import CheckReport
    from ..store.trends import Candidates, Change, History, Point, Regressions

HISTORY_SCHEMA = "neuroncmp.history/1"
REGRESSIONS_SCHEMA = "neuroncmp.regressions/1"
RUNS_SCHEMA = "neuroncmp.runs/1"


def history(result: History) -> str:
    scale = display_scale((p.value for s in result.series for p in s.points), result.unit)
    display = scale[1] if scale else ""
    document = {
        "schema": HISTORY_SCHEMA, "metric": result.metric, "unit": result.unit,
        "display_unit": display or result.unit, "warnings": list(result.warnings),
        "series": [{"tags": dict(s.tags), "points": [_point(p) for p in s.points],
                    "changes": [_change(c, with_series=False) for c in s.changes]}
                   for s in result.series],
    }
    return dumps(document, indent=1, ensure_ascii=False) + "\n"


def regressions(result: Regressions) -> str:
    document = {
        "schema": REGRESSIONS_SCHEMA,
        "filters": {"all_changes": result.all_changes, "min_change": result.min_change,
                    "since": iso(result.since) if result.since else None,
                    "where": {key: list(values) for key, values in result.where.items()}},
        "series_count": result.series_count, "metric_count": result.metric_count,
        "warnings": list(result.warnings),
        "changes": [_change(c, with_series=True) for c in result.changes],
    }
    return dumps(document, indent=1, ensure_ascii=False) + "\n"


def _point(point: Point) -> dict[str, Any]:
    return {"run": point.run, "commit": point.commit, "time": iso(point.time),
            "value": point.value}


def _change(change: Change, with_series: bool) -> dict[str, Any]:
    head = {"metric": change.metric, "series": dict(change.series)} if with_series else {}
    return {**head, "at": _ref(change.at), "before_run": _ref(change.before_run),
            "before": change.before, "after": change.after, "unit": change.unit,
            "change": change.change,
            **({"change_pp": (change.after - change.before) * 100}
               if change.unit == "fraction" else {}),
            "change_text": change_size(change, change.unit),  # as the terminal writes it: pp for a fraction
            "direction": change.direction,
            "p_value": change.p_value, "candidates": _candidates(change.candidates)}


def _candidates(found: Candidates) -> dict[str, Any]:
    return {"first": _ref(found.first), "last": _ref(found.last), "before": _ref(found.before),
            "runs": found.runs, "confidence": found.confidence}


def _ref(point: Point) -> dict[str, Any]:
    return {"run": point.run, "commit": point.commit, "time": iso(point.time)}


def check(report: CheckReport) -> str:
    """``neuroncmp store check --format json`` (``neuroncmp.store-check/1``)."""
    return dumps({"schema": "neuroncmp.store-check/1", "ok": report.ok, "runs": report.runs,
                  "parts": report.parts, "objects": report.objects,
                  "problems": list(report.problems), "leftovers": list(report.leftovers),
                  "kept": list(report.held)},
                 indent=1, ensure_ascii=False) + "\n"


def runs(runs: Sequence[Any], series_by: Sequence[str]) -> str:
    """``store ls --format json``: every run with its series (the tags that key it)."""
    document = {
        "schema": RUNS_SCHEMA, "series_by": list(series_by),
        "series_count": len({r.series for r in runs}),
        "runs": [{"run": r.run, "time": iso(r.time),
                  "time_source": r.time_source, "commit": r.commit, "label": r.label,
                  "series": dict(r.series), "tags": dict(r.tags), "source": r.source,
                  "format": r.format, "batch_size": r.batch_size} for r in runs],
    }
    return dumps(document, indent=1, ensure_ascii=False) + "\n"
