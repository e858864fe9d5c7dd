"""The site of ``neuroncmp report -o DIR`` (what it holds: ``docs/history/report.md``): ``commands.report``
reads the store; here ``pages`` writes the HTML (its style and filter script inline), ``svg`` the charts.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from ...atomic import write_folder
from ...commands.report import SiteData, page_name
from .pages import index, series_page

MARKER = ".neuroncmp-report"  # in every folder the site is written to: what may be replaced


def build(data: SiteData, commit_url: str | None = None) -> dict[str, str]:
    """The site's files: ``index.html`` and one ``series-*.html`` per series."""
    stamp = f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC"
    files = {"index.html": index(data, commit_url, stamp)}
    for tags in data.by_series:
        files[page_name(tags)] = series_page(data, tags, commit_url)
    return files


def write_site(data: SiteData, out: str | Path, commit_url: str | None = None) -> dict[str, str]:
    """Build the site and write it to ``out`` at once (the old site or the whole new one);
    returns the files written."""
    files = build(data, commit_url)
    write_folder(Path(out), files, MARKER)
    return files
