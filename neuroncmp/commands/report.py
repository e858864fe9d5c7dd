"""``report`` (the site) as one library call: ``site_report(store, SiteOptions(...))`` reads what
the site shows once, through the Store API: the runs, the regressions, and the history of every
metric a page draws (``render.report`` writes the pages)."""

from __future__ import annotations

import hashlib
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from typing import Any

from ..catalog import HEADLINE
from ..choices import WORSE
from ..errors import UsageError

Tags = tuple[tuple[str, str], ...]  # a series' tags, sorted: hashable, the same in every result


def tags_of(value: Iterable[Any] | Mapping[str, str]) -> Tags:
    """A series' tags from a result: a mapping or (key, value) pairs (the store's SeriesKey)."""
    return tuple(sorted(dict(value).items()))


def page_name(tags: Tags) -> str:
    """The series page's file name: a digest of its tags, so any tag text makes a safe name."""
    digest = hashlib.sha1(repr(tags).encode("utf-8", "backslashreplace")).hexdigest()[:12]
    return f"series-{digest}.html"


@dataclass(frozen=True, slots=True)
class SiteOptions:
    """What the site shows: ``where`` tags (key -> accepted values), changes ``since`` a time,
    series keyed by ``series_by`` (default: the store's setting), commits linked through
    ``commit_url`` (a URL holding ``{commit}``)."""

    where: Mapping[str, list[str]] = field(default_factory=dict)
    since: str | datetime | None = None
    series_by: str | None = None
    commit_url: str | None = None

    def __post_init__(self) -> None:
        url = self.commit_url
        # http(s) or a relative link only: the template lands in every page's href, where a
        # javascript: or data: scheme would run or carry content when clicked
        if url is not None and (not isinstance(url, str) or "{commit}" not in url
                                or not _web_or_relative(url)):
            raise UsageError(f"--commit-url {url!r}: expected an http(s) or relative URL holding {{commit}} "
                             "(https://github.com/owner/repo/commit/{commit})")


def _web_or_relative(url: str) -> bool:
    scheme = re.match(r"\s*([A-Za-z][A-Za-z0-9+.-]*):", url)
    return scheme is None or scheme.group(1).lower() in ("http", "https")


@dataclass(frozen=True)
class SiteData:
    runs: tuple[Any, ...]              # store.reading.Run, in time order
    worse: tuple[Any, ...]             # store.trends.Change: the regressions, worst first
    since: datetime | None             # what they are later than
    histories: Mapping[str, Any]       # metric -> store.trends.History
    headline: tuple[str, ...]          # headline metrics the store has, in the headline's order

    @cached_property
    def by_series(self) -> dict[Tags, dict[str, Any]]:
        """Series tags -> metric -> the store's Series (its points and changes), series in the
        order of their tags."""
        found: dict[Tags, dict[str, Any]] = defaultdict(dict)
        for metric, history in self.histories.items():
            for series in history.series:
                found[tags_of(series.tags)][metric] = series
        return dict(sorted(found.items()))

    @cached_property
    def worse_by_series(self) -> Counter[Tags]:
        """How many regressions each series has."""
        return Counter(tags_of(change.series) for change in self.worse)

    def metrics_of(self, tags: Tags) -> tuple[str, ...]:
        """What a series page draws: the headline metrics, then every metric shifting in it."""
        drawn = self.by_series.get(tags, {})
        shifting = sorted(m for m, series in drawn.items() if series.changes)
        return tuple(m for m in dict.fromkeys((*self.headline, *shifting)) if m in drawn)


def site_report(store: Any, options: SiteOptions) -> SiteData:
    """What the site of ``store`` (a ``Store``) shows, read once: the changes since ``options.since``
    (the regressions are its changes for the worse, in its order, worst first) and, from the same
    read, the history of every metric drawn (the headline ones the store has and every one that changed)."""
    where, series_by = options.where, options.series_by
    runs = store.runs(series_by=series_by, **where)
    every, found = store.survey([h.metric for h in HEADLINE], where=where, since=options.since, all_changes=True,
                                series_by=series_by)
    worse = tuple(change for change in every.changes if change.direction == WORSE)
    shifting = sorted({c.metric for c in every.changes})
    drawn = dict.fromkeys([h.metric for h in HEADLINE] + shifting)
    histories = {metric: found[metric] for metric in drawn if metric in found and found[metric].series}
    headline = tuple(m for m in dict.fromkeys(h.metric for h in HEADLINE) if m in histories)
    return SiteData(tuple(runs), worse, every.since, histories, headline)
