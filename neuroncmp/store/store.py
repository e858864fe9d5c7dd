"""``Store``: the Python API of a profile store, the same results the CLI prints
(docs/history/store.md, "From Python").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from .. import arguments
from ..choices import AUTO, BASES, Basis, check
from ..comparison.bands import Bands
from ..comparison.differ import compare
from ..comparison.result import Comparison
from ..errors import UsageError
from ..ingest import load
from ..ingest.inputs import assemble
from ..model import Profile
from . import (
    adding,
    baseline,
    engines,
    folder,
    listing,
    maintenance,
    queries,
    reading,
    schema,
    trends,
)
from .options import HistoryOptions, RegressionsOptions, keys, moment, tags


class Store:
    """A store: a local folder (default: ``NEURONCMP_STORE``, else ``.neuroncmp``), or for the
    Spark engine any path Spark reads (``hdfs://``, ``s3a://``, ...). ``engine`` is ``"duckdb"``
    (the default, or ``NEURONCMP_ENGINE``), ``"spark"``, or an engine from ``engines.choose``
    (``choose("spark", master="local[2]", conf={...}, session=spark)``)."""

    def __init__(self, path: str | Path | None = None, *,
                 engine: str | engines.Engine | None = None) -> None:
        if path is not None:
            arguments.path("path", path)
        if engine is not None and not isinstance(engine, str) and not hasattr(engine, "add"):
            raise UsageError(f"{arguments.shown('engine', engine)}: expected 'duckdb', 'spark' or an engine")
        self.path = folder.root_of(path)
        self.engine = engine if engine is not None and not isinstance(engine, str) else \
            engines.choose(engine)

    def __repr__(self) -> str:
        return f"Store({str(self.path)!r}, engine={self.engine.name!r})"

    def add(self, *paths: str | Path, tags: Mapping[str, str] | None = None,
            at: str | datetime | None = None, commit: str | None = None,
            skip_bad: bool = False, commit_from_name: bool = False) -> adding.AddReport:
        """Add profiles (files, run folders, folders of files); the store is made if missing.
        ``commit_from_name``: a run with no ``commit`` takes the commit-like part of its file
        name (``model-b8-3f2a9c1.json`` -> ``3f2a9c1``); never without asking."""
        given = arguments.string_map("tags", tags)
        when = moment(arguments.moment("at", at), "--at")
        arguments.optional_text("commit", commit), arguments.flag("skip_bad", skip_bad)
        arguments.flag("commit_from_name", commit_from_name)
        paths = tuple(arguments.path("paths", p) for p in paths)
        if len(paths) > 1:  # a glob over a run folder is the folder, as diff reads it
            paths = tuple(assemble(paths).paths)
        entries = [listing.Entry(Path(p), given, when, commit, str(p), "--at", commit_from_name)
                   for p in paths]
        return self.engine.add(self.path, entries, skip_bad=skip_bad, problems=[])

    def add_listing(self, runs_csv: str | Path, *, skip_bad: bool = False) -> adding.AddReport:
        """Add every row of a listing (``path``, optional ``time`` and ``commit``, tag columns)."""
        arguments.path("runs_csv", runs_csv), arguments.flag("skip_bad", skip_bad)
        entries, problems = listing.read(Path(runs_csv))
        return self.engine.add(self.path, entries, skip_bad=skip_bad, problems=problems)

    def runs(self, *, series_by: str | Iterable[str] | None = None,
             **where: str | Iterable[str]) -> tuple[reading.Run, ...]:
        """The stored runs as a tuple of ``Run`` (run, time, time_source, commit, tags, series, label,
        source, format, batch_size), in time order. Each keyword is a tag filter: ``model="bert-large"``
        keeps the runs with that tag value, ``model=["a", "b"]`` either value; none keeps every run.
        ``series`` is each run's series key by ``series_by`` (tag names: ``"model,batch_size"`` or a
        list; default: the store's setting, else every tag). A filter with no value, or one no run
        matches, and a ``series_by`` tag no run has, are a ``UsageError`` naming it."""
        return tuple(queries.runs(self.engine, self.path, tags(where, keywords=True),
                                  queries.series_by(self.engine, self.path, keys(series_by))))

    def history(self, metric: str, *, series_by: str | Iterable[str] | None = None,
                **where: str | Iterable[str]) -> trends.History:
        """Every series of ``metric`` (one per distinct tag set) with its shifts; the keywords are tag
        filters, as ``runs`` takes them."""
        options = HistoryOptions.of(metric, tags(where, keywords=True), series_by)
        return queries.history(self.engine, self.path, options)

    def regressions(self, *, where: Mapping[str, str | Iterable[str]] | None = None,
                    since: str | datetime | None = None, all_changes: bool = False,
                    min_change: float | None = None,
                    series_by: str | Iterable[str] | None = None) -> trends.Regressions:
        """Level shifts in every series of every metric, worst first. By default only changes for
        the worse; ``min_change`` is a fraction (0.02: at least 2 %); ``since`` keeps changes
        whose best estimate of the first new run (at run) is later."""
        return queries.regressions(self.engine, self.path, RegressionsOptions.of(
            where, since, all_changes, min_change, series_by))

    def survey(self, metrics: Iterable[str], *, where: Mapping[str, str | Iterable[str]] | None = None,
               since: str | datetime | None = None, all_changes: bool = False,
               series_by: str | Iterable[str] | None = None) -> tuple[trends.Regressions, dict[str, trends.History]]:
        """``regressions`` and, from the same read of the store, the history of each of ``metrics``
        the store has and of every metric with a change listed: metric -> its ``History``."""
        options = RegressionsOptions.of(where, since, all_changes, None, series_by)
        return queries.survey(self.engine, self.path, options, arguments.texts("metrics", metrics))

    def series_by(self) -> tuple[str, ...]:
        """The store's series keys (empty: every tag keys a series)."""
        return self.engine.series_by(self.path)

    def set_series_by(self, series_by: str | Iterable[str]) -> tuple[str, ...]:
        """Re-key the store without re-adding: series formed by ``keys`` (``"model,batch"``;
        ``""`` or ``()``: by every tag again). A key no run carries is a UsageError."""
        return queries.set_series_by(self.engine, self.path, keys(series_by) or ())

    def baseline_for(self, new: Profile, *, runs: int = baseline.HISTORY_RUNS,
                     **where: str | Iterable[str]) -> baseline.HistoryBaseline:
        """The last ``runs`` runs of ``new``'s series (``where`` picks it when several match)."""
        runs = arguments.integer("runs", runs, 1, MAX_RUNS)
        return baseline.history_baseline(self.engine, self.path, new, tags(where, keywords=True), runs)

    def diff_history(self, path: str | Path, *, runs: int = baseline.HISTORY_RUNS,
                     where: Mapping[str, str | Iterable[str]] | None = None, basis: Basis = AUTO,
                     thresholds: Iterable[str] = ()) -> Comparison:
        """Compare the profile in ``path`` with the recent runs of its series: their median as the
        baseline (label ``history``), noise bands measured from them. ``thresholds`` given as
        metric globs override the measured bands; kind and global ones apply where none was
        measured."""
        runs = arguments.integer("runs", runs, 1, MAX_RUNS)
        basis = check("basis", basis, BASES)
        thresholds = arguments.texts("thresholds", thresholds)
        (new, *more) = load(arguments.path("path", path))
        if more:
            raise UsageError(f"{path}: {len(more) + 1} profiles; --baseline-history compares one")
        found = baseline.history_baseline(self.engine, self.path, new, tags(where or {}), runs)
        bands = Bands([*thresholds, *found.bands])
        return compare(found.profiles, new, baseline=baseline.LABEL, basis=basis, thresholds=bands)

    def compact(self) -> maintenance.CompactReport:
        return maintenance.compact(self._local("store compact"))

    def check(self) -> maintenance.CheckReport:
        return maintenance.check(self._local("store check"))

    def table(self, name: str) -> Any:
        """A table (``runs``, ``metrics``, ``memory``) as a pandas DataFrame."""
        if name not in schema.TABLES:
            raise UsageError(f"no table '{name}' (tables: {', '.join(schema.TABLES)})")
        return reading.retrying(self._local("Store.table"),
                                lambda con: con.execute(f"SELECT * FROM {name}").df())

    def _local(self, doing: str) -> Path:
        return folder.local(self.path, doing)


MAX_RUNS = 1_000_000
