"""``neuroncmp report -o DIR``: a static site of a store's history, self-contained (inline CSS, JS
and SVG; nothing fetched), so it works from ``file://``, a bucket or GitHub Pages.

    options = SiteOptions(where={"model": ["llama"]}, commit_url="https://host/repo/commit/{commit}")
    site = build(Store(".neuroncmp"), options)     # file name -> text
    report(Store(".neuroncmp"), options, "site/")  # built and written at once

``gather`` reads the store through its public API, ``pages`` writes the HTML, ``svg`` the charts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ...atomic import write_folder
from ...errors import UsageError
from .gather import gather, page_name
from .pages import index, series_page

MARKER = ".neuroncmp-report"  # in every folder the site is written to: what may be replaced


@dataclass(frozen=True)
class SiteOptions:
    """What the site shows: ``where`` tags (key -> accepted values), changes ``since`` a time,
    series keyed by ``series_by`` (default: the store's setting), commits linked through
    ``commit_url`` (holding ``{commit}``)."""

    where: Mapping[str, list[str]] = field(default_factory=dict)
    since: str | datetime | None = None
    series_by: str | None = None
    commit_url: str | None = None


def check_commit_url(template: str | None) -> None:
    if template is not None and "{commit}" not in template:
        raise UsageError(f"--commit-url {template!r}: expected a URL holding {{commit}} "
                         "(https://github.com/owner/repo/commit/{commit})")


def build(store: Any, options: SiteOptions, built: datetime | None = None) -> dict[str, str]:
    """The site's files: ``index.html`` and one ``series-*.html`` per series."""
    check_commit_url(options.commit_url)
    data = gather(store, options.where, options.since, options.series_by)
    stamp = f"{(built or datetime.now(timezone.utc)):%Y-%m-%d %H:%M} UTC"
    files = {"index.html": index(data, options.commit_url, stamp)}
    for tags in data.by_series:
        files[page_name(tags)] = series_page(data, tags, options.commit_url)
    return files


def report(store: Any, options: SiteOptions, out: str | Path) -> dict[str, str]:
    """Build the site and write it to ``out`` at once (the old site or the whole new one);
    returns the files written."""
    files = build(store, options)
    write_folder(Path(out), files, MARKER)
    return files
