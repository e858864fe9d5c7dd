"""Terminal text for the store's commands: add, ls, check, compact, history, regressions.

Values are shown in one display unit per metric (``units.pick_scale`` from the median value),
times in UTC, run ids as stored, p-values to two significant figures.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..stats import median
from ..units import FRACTION, format_value, pick_scale, significant
from .changes import DIRECTION_MARK, points_text, spark
from .layout import fitted_text_table as fit_table
from .layout import text_table as table

if TYPE_CHECKING:  # the records only: the store's modules stay off the import path of a render
    from datetime import datetime

    from ..store.adding import AddedRun, AddReport
    from ..store.identity import SeriesKey
    from ..store.maintenance import CheckReport, CompactReport
    from ..store.reading import Run
    from ..store.trends import Change, History, Point, Regressions, Series

MARK = DIRECTION_MARK  # a shift reads with the verdicts' own marks


def tags_text(tags: Mapping[str, str] | SeriesKey | Iterable[tuple[str, str]]) -> str:
    return " ".join(f"{k}={v}" for k, v in sorted(dict(tags).items())) or "(no tags)"


def add_report(report: AddReport, store: str, shown: int = 20) -> str:
    """What an add did: added and already-present runs, where each run's time came from, skips."""
    out = [f"added {len(report.added)} runs, {len(report.present)} already present (store {store})\n"]
    rows = [[r.run, r.label, r.time, r.time_source, "present" if r.present else "added", r.source]
            for r in report.runs[:shown]]
    if rows:
        out.append(table(["run", "label", "time", "time from", "status", "source"], rows))
    if len(report.runs) > shown:
        sources: dict[str, int] = {}
        for r in report.runs:
            sources[r.time_source] = sources.get(r.time_source, 0) + 1
        froms = ", ".join(f"{n} from {s}" for s, n in sources.items())
        out.append(f"... and {len(report.runs) - shown} more (times: {froms})\n")
    for problem in report.skipped:
        out.append(f"skipped {problem}\n")
    out += _split_warning(report.added)
    kept = [r for r in report.runs if r.present and r.kept_tags is not None]
    if kept:
        first = kept[0]
        out.append(f"{len(kept)} runs already present keep the tags of their first add "
                   f"({tags_text(first.kept_tags or ())}, not {tags_text(first.tags)}); adding "
                   "again changes no tag ('neuroncmp store series-by' regroups series without "
                   "re-adding)\n")
    return "".join(out)


SPLIT_AT = 10  # an add of this many runs, most of them alone in their series, is worth a word


def _split_warning(added: Sequence[AddedRun]) -> list[str]:
    """A warning when most runs of a bulk add are alone in their series (nightly file names that
    split them); said at add time, before a gate trusts an all-clear."""
    if len(added) < SPLIT_AT or not any(r.tags for r in added):
        return []
    sizes: dict[Any, int] = {}
    for run in added:
        sizes[run.tags] = sizes.get(run.tags, 0) + 1
    alone = sum(1 for n in sizes.values() if n == 1)
    if alone * 2 <= len(added):
        return []
    return [(f"warning: the {len(added)} runs added form {len(sizes)} series, {alone} of them of "
             "one run; if they are runs of fewer configurations, their names or tags split them "
             "('neuroncmp store ls' shows each run's series; see --series-by)\n")]


def runs_table(runs: Sequence[Run], width: int | None = None) -> str:
    """Each run with the series it belongs to (the tags that key it) and any other tags, so a
    name that split a series shows in the listing."""
    if not runs:
        return "no runs\n"
    rows = []
    for r in runs:
        keyed = dict(r.series)
        other = {k: v for k, v in r.tags.items() if k not in keyed}
        rows.append([r.run, r.time.isoformat().replace("+00:00", "Z"), r.commit or "", r.label,
                     tags_text(keyed), tags_text(other) if other else ""])
    header = ["run", "time", "commit", "label", "series", "other tags"]
    if not any(row[-1] for row in rows):
        header, rows = header[:-1], [row[:-1] for row in rows]
    count = len({r.series for r in runs})
    return fit_table(header, rows, None, width) + f"{len(runs)} runs in {count} series\n"


LEFTOVERS_SHOWN = 5


def check_report(report: CheckReport, store: str) -> str:
    """Facts, each problem, and leftovers summed up: files of an interrupted add (or compaction)
    that no committed state names, so nothing of them was added; a few by name (``--format json``
    lists every one)."""
    out = [f"store {store}: {report.runs} runs in {report.parts} parts, {report.objects} copies\n"]
    out += [f"problem: {p}\n" for p in report.problems]
    if report.leftovers:
        count = len(report.leftovers)
        out.append(f"{count} leftover files of an interrupted add: nothing of that add was added "
                   "(the store's runs are whole); add the same files again to finish it, or run "
                   "'neuroncmp store compact' to remove them\n")
        out += [f"  leftover: {p}\n" for p in report.leftovers[:LEFTOVERS_SHOWN]]
        if count > LEFTOVERS_SHOWN:
            out.append(f"  ... and {count - LEFTOVERS_SHOWN} more (--format json lists them all)\n")
    out += [f"kept (a damaged part may need it; not a leftover): {p}\n" for p in report.held]
    if not report.ok:
        out.append(f"{len(report.problems)} problems\n")
    elif report.leftovers:
        out.append(f"ok: every run complete, every copy matches its hash; {len(report.leftovers)} "
                   "leftover files to remove\n")
    else:
        out.append("ok: every run complete, every copy matches its hash\n")
    return "".join(out)


def check_json(report: CheckReport) -> str:
    from .json_out import dumps

    return dumps({"schema": "neuroncmp.store-check/1", "ok": report.ok, "runs": report.runs,
                  "parts": report.parts, "objects": report.objects,
                  "problems": list(report.problems), "leftovers": list(report.leftovers),
                  "kept": list(report.held)},
                 indent=1, ensure_ascii=False) + "\n"


def compact_report(report: CompactReport, store: str) -> str:
    return (f"store {store}: {report.parts_before} parts -> {report.parts_after}, {report.runs} runs; "
            f"removed {len(report.removed)} leftover files of interrupted adds\n")


def history(result: History, width: int, last: int | None = None) -> str:
    """Each series: its trend, its shifts, and its points in time order (the last ``last``)."""
    values = [p.value for s in result.series for p in s.points]
    if not values:
        return f"{result.metric}: no runs match\n"
    shown = [v for v in values if math.isfinite(v)]  # an infinity stored as read sets no scale
    scale = pick_scale(median(shown), result.unit) if shown else (1.0, result.unit)
    out = [_fill(f"{result.metric} [{scale[1] or result.unit}]: {len(result.series)} series, "
                 f"{len(values)} runs", width)]
    out += [_fill(f"warning: {w}", width) for w in result.warnings]
    for series in result.series:
        out.append(_series(series, result.unit, scale, width, last))
    return "".join(out)


def _series(series: Series, unit: str, scale: tuple[float, str], width: int, last: int | None) -> str:
    points = series.points
    out = ["\n" + _fill(f"{tags_text(series.tags)}: {len(points)} runs, {_iso(points[0].time)} .. "
                        f"{_iso(points[-1].time)}", width)]
    spark, marks = sparkline([p.value for p in points], [points.index(c.at) for c in series.changes],
                             width - 8)
    out.append(f"  trend {spark}\n")
    if series.changes:
        out.append(f"        {marks}\n")
    for change in series.changes:
        out.append(f"  shift at run {change.at.run}: {change_text(change, unit, scale)}\n")
        out.append(f"    {first_run_text(change)}\n")
    at = {c.at.run: c for c in series.changes}
    shown = points[-last:] if last else points
    rows = [[_iso(p.time), p.run, p.commit or "", format_value(p.value, unit, scale, with_unit=False),
             f"◆ {change_size(at[p.run], unit)} {at[p.run].direction}" if p.run in at else ""]
            for p in shown]
    out.append(_indent(table(["time", "run", "commit", "value", "shift"], rows, right={3})))
    if last and len(points) > last:
        out.append(f"  ({len(points) - last} earlier runs not shown)\n")
    return "".join(out)


def change_text(change: Change, unit: str, scale: tuple[float, str] | None = None) -> str:
    before = format_value(change.before, unit, scale)
    after = format_value(change.after, unit, scale)
    return (f"{before} -> {after} ({change_size(change, unit)}) {change.direction} "
            f"{MARK[change.direction]}, p {p_text(change.p_value)}")


def first_run_text(change: Change) -> str:
    """Where the new level may start, as a phrase: "first new run 5649f8e (95 %)" or "first new
    run between 98466a9 and 5649f8e (2 runs, 95 %)"."""
    return f"first new run {candidates_text(change)}"


def candidates_text(change: Change, shown: Callable[[Point], str] | None = None) -> str:
    """The runs that may be the first of the new level, at the stated confidence: "5649f8e (95 %)"
    or "between 98466a9 and 5649f8e (2 runs, 95 %)"; each run written by ``shown`` (a code span,
    a link), by default as ``run_name``. The words around them hold no input text."""
    name = shown or run_name
    found = change.candidates
    sure = f"{found.confidence * 100:g} %"
    if found.runs == 1:
        return f"{name(found.first)} ({sure})"
    return f"between {name(found.first)} and {name(found.last)} ({found.runs} runs, {sure})"


def run_name(point: Point) -> str:
    """A run as a person names it: its commit, else its id."""
    return point.commit or point.run


CANDIDATES_NOTE = ("first new run: the runs that may start the new level, with the probability "
                   "stated (README: How shifts are found); commit: the best estimate")


def regressions(result: Regressions, store: str, width: int | None = None) -> str:
    kind = "changes" if result.all_changes else "changes for the worse"
    head = [(f"{len(result.changes)} {kind} in {result.series_count} series of {result.metric_count} "
             f"metrics (store {store})"), *(f"warning: {w}" for w in result.warnings)]
    out = [_fill(line, width) if width else line + "\n" for line in head]
    if not result.changes:
        return "".join(out)
    rows = []
    for c in result.changes:
        scale = pick_scale(median([c.before, c.after]), c.unit)
        rows.append([MARK[c.direction], c.metric, tags_text(c.series), c.at.run, c.at.commit or "",
                     _iso(c.at.time), format_value(c.before, c.unit, scale),
                     format_value(c.after, c.unit, scale), change_size(c, c.unit), p_text(c.p_value),
                     candidates_text(c)])
    header = ["", "metric", "series", "at run", "commit", "time", "before", "after", "change", "p",
              "first new run"]
    note = _fill(CANDIDATES_NOTE, width) if width else CANDIDATES_NOTE + "\n"
    return "".join(out) + fit_table(header, rows, {6, 7, 8, 9}, width) + note


NOT_FINITE = "?"


def _finite_median(values: list[float]) -> float | None:
    finite = [v for v in values if math.isfinite(v)]
    return median(finite) if finite else None


def sparkline(values: list[float], shifts: list[int], width: int) -> tuple[str, str]:
    """A trend of at most ``width`` characters (bucket medians) and a line marking the shifts.

    The scale runs from the 2nd to the 98th percentile, so one slow run does not flatten it.
    Non-finite values (a store keeps values as read) take no part in the scale; a bucket with
    nothing else shows ``NOT_FINITE``."""
    width = max(width, 8)
    size = max(1, math.ceil(len(values) / width))
    buckets = [_finite_median(values[i:i + size]) for i in range(0, len(values), size)]
    ordered = sorted(v for v in values if math.isfinite(v)) or [0.0]
    low = ordered[int(0.02 * (len(ordered) - 1))]
    high = ordered[math.ceil(0.98 * (len(ordered) - 1))]
    spark_ = "".join(NOT_FINITE if b is None else spark(b, low, high) for b in buckets)
    marks = [" "] * len(buckets)
    for index in shifts:
        marks[index // size] = "^"
    return spark_, "".join(marks).rstrip()


def _indent(text: str) -> str:
    return "".join("  " + line + "\n" for line in text.splitlines())


def p_text(p: float) -> str:
    """Two significant figures; below 1e-16 (where doubles stop resolving it) ``<1e-16``."""
    return "<1e-16" if p < 1e-16 else f"{p:.2g}"


def _fill(text: str, width: int) -> str:
    """``text`` as lines of at most ``width`` (broken at spaces), continuation lines indented."""
    import textwrap

    return textwrap.fill(text, width, subsequent_indent="  ", break_long_words=False,
                         break_on_hyphens=False) + "\n"


def change_size(change: Change, unit: str) -> str:
    """A shift's size as ``diff`` shows it: percentage points for a fraction (MFU 20.28 % ->
    19.54 % is -0.74pp, not -3.66 %), else the relative change."""
    if unit != FRACTION:
        return _percent(change.change)
    points = (change.after - change.before) * 100
    if not math.isfinite(points):
        return "n/a"
    return points_text(points)


def _percent(change: float) -> str:
    if not math.isfinite(change):
        return "n/a"
    return f"{'+' if change >= 0 else ''}{significant(change * 100, 3)}%"


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="seconds").replace("+00:00", "Z")
