"""The store's queries, written once over any engine's primitives (``engines.base.Engine``).

Which runs a query takes and how they form series is decided here from the runs' tag sets
(``trends.choose_keys``: ``--where``, ``--series-by``, a store's setting, and their usage errors);
the engine reads each series and applies the per-series step (``trends.build_series`` or
``trends.series_shifts``) where the values are; the results are put in one order here (metric,
then series key), so DuckDB and Spark give the same answers by construction.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from pathlib import Path

from ..catalog import resolve_metric
from . import recomputed, trends
from .engines.base import Engine, Where
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
    if metric in recomputed.RULED:  # as today's rules make it from the stored values (``recomputed``)
        found = [trends.build_series(values) for values in recomputed.series(engine, root, keys, [metric])]
    else:
        found = engine.series(root, keys, metric, partial(trends.build_series, points=True))
    return trends.History(metric, units[metric], tuple(sorted(found, key=lambda s: s.key.text)))


def regressions(engine: Engine, root: Path | str, options: RegressionsOptions) -> trends.Regressions:
    """Shifts in every series of every metric, filtered and ordered by ``trends.select``."""
    keys = trends.choose_keys(engine.tag_sets(root), options.where,
                              series_by(engine, root, options.series_by))
    found = sorted(recomputed.regressions_series(engine, root, keys), key=lambda s: (s.metric, s.key.text))
    chosen = trends.select((c for s in found for c in s.changes), all_changes=options.all_changes,
                           min_change=options.min_change, since=options.since)
    short = sum(s.size < trends.SHIFT_TEST_RUNS for s in found)
    return trends.Regressions(chosen, len(found), len({s.metric for s in found}),
                              options.all_changes, options.min_change, options.since,
                              options.where, short)


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
