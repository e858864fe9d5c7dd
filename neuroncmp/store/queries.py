"""The store's queries, written once over any engine's primitives (``engines.base.Engine``), so
DuckDB and Spark give the same answers by construction (docs/history/spark.md, "What runs where").
The results are put in one order here: metric, then series key.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from pathlib import Path

from ..catalog import resolve_metric
from . import recomputed, trends
from .engines.base import Engine, Scan, Where
from .identity import SeriesKey
from .options import HistoryOptions, RegressionsOptions
from .reading import Run


def runs(engine: Engine, root: Path | str, where: Where, series_by: Sequence[str] = ()) -> list[Run]:
    """Every run ``where`` picks, in time order (then by id), keyed by ``series_by``."""
    return trends.chosen_runs(engine.runs(root), where, series_by)


def history(engine: Engine, root: Path | str, options: HistoryOptions) -> trends.History:
    """Every series of the metric among the matching runs, with its shifts. A metric the store
    has no value of is a usage error, named before a ``--where`` typo."""
    metric = options.metric
    units = engine.units(root, metric)
    if metric not in units:  # a prefix of a name the store holds and the catalog does not know
        known = sorted(engine.units(root))
        metric = resolve_metric(metric, known)
        if metric not in known:
            raise trends.unknown_metric(options.metric, root, known)
        units = engine.units(root, metric)
    keys = trends.choose_keys(engine.tag_sets(root), options.where,
                              series_by(engine, root, options.series_by))
    found = histories(engine, root, keys, [metric])
    return found.get(metric, trends.History(metric, units[metric], ()))


def histories(engine: Engine, root: Path | str, keys: Mapping[SeriesKey, SeriesKey],
              metrics: Iterable[str]) -> dict[str, trends.History]:
    """Every series of each of ``metrics`` among the runs ``keys`` picks, with its points and
    shifts: one scan, one detection."""
    chosen = list(metrics)
    read = _series(engine.scan(root, keys, recomputed.needed(chosen)), chosen)
    return _drawn(read, trends.series_shifts(read), set(chosen))


def regressions(engine: Engine, root: Path | str, options: RegressionsOptions) -> trends.Regressions:
    """Shifts in every series of every metric, filtered and ordered by ``trends.select``; with
    ``since``, only the series with a run later than it are read (the others can hold no change
    that late), so a nightly check reads the series that ran."""
    return _regressions(_detected(engine, root, options, options.since)[1], options)


def survey(engine: Engine, root: Path | str, options: RegressionsOptions,
           always: Iterable[str]) -> tuple[trends.Regressions, dict[str, trends.History]]:
    """``regressions`` and, from the same scan and detection, the history of each metric in
    ``always`` the store has and of every metric with a change listed (what a site draws)."""
    read, found = _detected(engine, root, options)
    listed = _regressions(found, options)
    return listed, _drawn(read, found, set(always) | {change.metric for change in listed.changes})


def _detected(engine: Engine, root: Path | str, options: RegressionsOptions,
              since: datetime | None = None) -> tuple[list[trends.SeriesValues], list[trends.Shifts]]:
    """Every series of every metric among the runs ``options`` picks (with a run later than
    ``since``, when given), and its shifts."""
    keys = trends.choose_keys(engine.tag_sets(root), options.where,
                              series_by(engine, root, options.series_by))
    read = _series(engine.scan(root, keys, None, since), None)
    return read, trends.series_shifts(read)


def _regressions(found: Sequence[trends.Shifts], options: RegressionsOptions) -> trends.Regressions:
    ordered = sorted(found, key=lambda s: (s.metric, s.key.text))
    chosen = trends.select((c for s in ordered for c in s.changes), all_changes=options.all_changes,
                           min_change=options.min_change, since=options.since)
    short = sum(s.size < trends.SHIFT_TEST_RUNS for s in ordered)
    return trends.Regressions(chosen, len(ordered), len({s.metric for s in ordered}),
                              options.all_changes, options.min_change, options.since,
                              options.where, short)


def _drawn(read: Sequence[trends.SeriesValues], found: Sequence[trends.Shifts],
           metrics: set[str]) -> dict[str, trends.History]:
    """The history of each of ``metrics`` among the series ``read`` (with their shifts ``found``):
    each series' points and changes, series in the order of their keys."""
    by_metric: dict[str, list[tuple[str, trends.Series]]] = {}
    for values, shifts in zip(read, found, strict=True):
        if values.metric in metrics:
            series = trends.Series(values.key, values.points(), shifts.changes)
            by_metric.setdefault(values.metric, []).append((values.unit, series))
    return {metric: trends.History(metric, each[0][0], tuple(sorted((s for _, s in each), key=lambda s: s.key.text)))
            for metric, each in sorted(by_metric.items())}


def _series(scan: Scan, metrics: Sequence[str] | None) -> list[trends.SeriesValues]:
    """The series of ``metrics`` (every one the scan holds or a rule makes, when None) as a query
    shows them: each metric a rule makes or judges as remade from the scanned values."""
    import numpy as np

    ends = np.cumsum(scan.sizes).tolist()
    named: dict[str, SeriesKey] = {}
    read = [trends.SeriesValues(metric, named.setdefault(key, SeriesKey.parse(key)), unit, scan.runs,
                                scan.at[end - size:end], scan.values[end - size:end])
            for (metric, key, unit), size, end in zip(scan.series, scan.sizes.tolist(), ends, strict=True)]
    wanted = {values.metric for values in read} | recomputed.RULED if metrics is None else set(metrics)
    return recomputed.as_ruled(read, wanted)


def series_by(engine: Engine, root: Path | str, chosen: Sequence[str] | None) -> tuple[str, ...]:
    """The keys asked for, else the store's own setting (empty: every tag)."""
    return engine.series_by(root) if chosen is None else tuple(chosen)


def set_series_by(engine: Engine, root: Path | str, chosen: Sequence[str]) -> tuple[str, ...]:
    """Re-key the store without re-adding (empty: series by every tag again). A key no run carries
    is a usage error naming the closest, raised before anything is written; the setting lives in
    the store's snapshot, which only a local folder can rewrite (a URI is a usage error saying so)."""
    from . import folder

    if chosen:
        trends.choose_keys(engine.tag_sets(root), {}, chosen)
    folder.set_series_by(folder.local(root, "store series-by"), tuple(chosen))
    return tuple(chosen)
