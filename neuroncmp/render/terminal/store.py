"""The store's commands in the terminal: add, ls, check, compact, series-by, history, regressions. The
words are ``store_words``'s, shared with Markdown and the report site; this module draws them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.console import RenderableType
from rich.padding import Padding
from rich.text import Text

from ...store.times import iso
from ...units import format_value
from ..changes import DIRECTION_MARK  # a shift reads with the verdicts' own marks
from ..store_words import (
    CANDIDATES_NOTE,
    candidates_text,
    change_size,
    change_text,
    display_scale,
    iso_time,
    shift_cells,
    sparkline,
    tags_text,
)
from . import Indented, fitted, table

if TYPE_CHECKING:  # the records only: the store's modules stay off the import path of a render
    from ...store.adding import AddedRun, AddReport
    from ...store.maintenance import CheckReport, CompactReport
    from ...store.trends import Series
    from ..base import (
        HistoryReport,
        RegressionsReport,
        StoreReport,
        StoreRunsReport,
    )

ADDS_SHOWN = 20  # runs listed after an add; the rest counted by where their times came from
SPLIT_AT = 10  # an add of this many runs, most of them alone in their series, is worth a word
LEFTOVERS_SHOWN = 5


def store_add(report: StoreReport[AddReport], width: int) -> list[RenderableType]:
    """What an add did: added and already-present runs, where each run's time came from, skips."""
    added, store = report.report, report.store
    out: list[RenderableType] = [Indented(f"added {len(added.added)} runs, {len(added.present)} already present "
                                         f"(store {store})")]
    rows = [[r.run, r.label, r.time, r.time_source, "present" if r.present else "added", r.source]
            for r in added.runs[:ADDS_SHOWN]]
    if rows:
        out.append(table(["run", "label", "time", "time from", "status", "source"], rows, wrap={1, 5}))
    if len(added.runs) > ADDS_SHOWN:
        sources = Counter(r.time_source for r in added.runs)
        froms = ", ".join(f"{n} from {s}" for s, n in sources.items())
        out.append(Indented(f"... and {len(added.runs) - ADDS_SHOWN} more (times: {froms})"))
    out += [Indented(f"skipped {problem}") for problem in added.skipped]
    out += _split_warning(added.added)
    kept = [r for r in added.runs if r.present and r.kept_tags is not None]
    if kept:
        first = kept[0]
        out.append(Indented(f"{len(kept)} runs already present keep the tags of their first add "
                           f"({tags_text(first.kept_tags or ())}, not {tags_text(first.tags)}); adding "
                           "again changes no tag ('neuroncmp store series-by' regroups series without re-adding)"))
    return out


def _split_warning(added: Sequence[AddedRun]) -> list[RenderableType]:
    """A warning when most runs of a bulk add are alone in their series (nightly file names that
    split them); said at add time, before a gate trusts an all-clear."""
    if len(added) < SPLIT_AT or not any(r.tags for r in added):
        return []
    sizes = Counter(run.tags for run in added)
    alone = sum(1 for n in sizes.values() if n == 1)
    if alone * 2 <= len(added):
        return []
    return [Indented(f"warning: the {len(added)} runs added form {len(sizes)} series, {alone} of them of one run; "
                    "if they are runs of fewer configurations, their names or tags split them ('neuroncmp store "
                    "ls' shows each run's series; see --series-by)", "yellow")]


def store_runs(report: StoreRunsReport, width: int) -> list[RenderableType]:
    """Each run with the series it belongs to (the tags that key it) and any other tags, so a
    name that split a series shows in the listing."""
    runs = report.runs
    if not runs:
        return [Text("no runs")]
    rows = []
    for r in runs:
        keyed = dict(r.series)
        other = {k: v for k, v in r.tags.items() if k not in keyed}
        rows.append([r.run, iso(r.time), r.commit or "", r.label,
                     tags_text(keyed), tags_text(other) if other else ""])
    header = ["run", "time", "commit", "label", "series", "other tags"]
    if not any(row[-1] for row in rows):
        header, rows = header[:-1], [row[:-1] for row in rows]
    count = len({r.series for r in runs})
    return [*fitted(header, rows, (), {3, 4, 5}, width), Text(f"{len(runs)} runs in {count} series")]


def store_check(report: StoreReport[CheckReport], width: int) -> list[RenderableType]:
    """Facts, each problem, and leftovers summed up: files of an interrupted add (or compaction)
    that no committed state names, so nothing of them was added; a few by name (``--format json``
    lists every one)."""
    found, store = report.report, report.store
    out = [f"store {store}: {found.runs} runs in {found.parts} parts, {found.objects} copies"]
    out += [f"problem: {p}" for p in found.problems]
    if found.leftovers:
        count = len(found.leftovers)
        out.append(f"{count} leftover files of an interrupted add: nothing of that add was added (the store's "
                   "runs are whole); add the same files again to finish it, or run 'neuroncmp store compact' "
                   "to remove them")
        out += [f"  leftover: {p}" for p in found.leftovers[:LEFTOVERS_SHOWN]]
        if count > LEFTOVERS_SHOWN:
            out.append(f"  ... and {count - LEFTOVERS_SHOWN} more (--format json lists them all)")
    out += [f"kept (a damaged part may need it; not a leftover): {p}" for p in found.held]
    if not found.ok:
        out.append(f"{len(found.problems)} problems")
    elif found.leftovers:
        out.append(f"ok: every run complete, every copy matches its hash; {len(found.leftovers)} leftover "
                   "files to remove")
    else:
        out.append("ok: every run complete, every copy matches its hash")
    return [Indented(line) for line in out]


def store_compact(report: StoreReport[CompactReport], width: int) -> list[RenderableType]:
    done = report.report
    return [Indented(f"store {report.store}: {done.parts_before} parts -> {done.parts_after}, {done.runs} runs; "
                    f"removed {len(done.removed)} leftover files of interrupted adds")]


def store_series_by(report: StoreReport[tuple[str, ...]], width: int) -> list[RenderableType]:
    return [Indented(f"series by {','.join(report.report) or 'every tag'}")]


def history(report: HistoryReport, width: int) -> list[RenderableType]:
    """Each series: its trend, its shifts, and its points in time order (the last ``last``)."""
    result = report.history
    values = [p.value for s in result.series for p in s.points]
    if not values:
        return [Indented(f"{result.metric}: no runs match")]
    scale = display_scale(values, result.unit) or (1.0, result.unit)
    out: list[RenderableType] = [Indented(f"{result.metric} [{scale[1] or result.unit}]: {len(result.series)} "
                                         f"series, {len(values)} runs", "bold")]
    out += [Indented(f"warning: {w}", "yellow") for w in result.warnings]
    for series in result.series:
        out += _series(series, result.unit, scale, width, report.last)
    return out


def _series(series: Series, unit: str, scale: tuple[float, str], width: int, last: int | None) -> list[RenderableType]:
    points = series.points
    out: list[RenderableType] = [Text(), Indented(f"{tags_text(series.tags)}: {len(points)} runs, "
                                                 f"{iso_time(points[0].time)} .. {iso_time(points[-1].time)}")]
    spark, marks = sparkline([p.value for p in points], [points.index(c.at) for c in series.changes], width - 8)
    out.append(Text(f"  trend {spark}"))
    out += [Text(f"        {marks}")] if series.changes else []
    for change in series.changes:
        out += [Indented(f"  shift at run {change.at.run}: {change_text(change, unit, scale)}"),
                Indented(f"    first new run {candidates_text(change)}")]
    at = {c.at.run: c for c in series.changes}
    rows = [[iso_time(p.time), p.run, p.commit or "", format_value(p.value, unit, scale, with_unit=False),
             f"◆ {change_size(at[p.run], unit)} {at[p.run].direction}" if p.run in at else ""]
            for p in (points[-last:] if last else points)]
    out.append(Padding(table(["time", "run", "commit", "value", "shift"], rows, right={3}), (0, 0, 0, 2)))
    if last and len(points) > last:
        out.append(Text(f"  ({len(points) - last} earlier runs not shown: --all shows every one)"))
    return out


def regressions(report: RegressionsReport, width: int) -> list[RenderableType]:
    result = report.regressions
    kind = "changes" if result.all_changes else "changes for the worse"
    out: list[RenderableType] = [Indented(f"{len(result.changes)} {kind} in {result.series_count} series of "
                                         f"{result.metric_count} metrics (store {report.store})")]
    out += [Indented(f"warning: {w}", "yellow") for w in result.warnings]
    if not result.changes:
        return out
    rows = []
    for c in result.changes:
        rows.append([DIRECTION_MARK[c.direction], c.metric, tags_text(c.series), c.at.run, c.at.commit or "",
                     iso_time(c.at.time), *shift_cells(c), candidates_text(c)])
    header = ["", "metric", "series", "at run", "commit", "time", "before", "after", "change", "p", "first new run"]
    return [*out, *fitted(header, rows, {6, 7, 8, 9}, {1, 2, 10}, width), Indented(CANDIDATES_NOTE, "dim")]
