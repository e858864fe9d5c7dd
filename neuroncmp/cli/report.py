"""``neuroncmp report -o DIR``: the store's history as a static site (index and a page per series)."""

from __future__ import annotations

from typing import Any

import click

from ..errors import UsageError
from ..escape import quote
from ..paths import inside
from .app import BoundaryCommand
from .options import (
    engine_options,
    output_folder_option,
    pairs,
    series_by_option,
    since_option,
    store_option,
    where_option,
)


@click.command(cls=BoundaryCommand)
@where_option
@series_by_option
@since_option(": the regressions listed, and which metrics besides the headline ones are drawn "
              "(each chart shows every run)")
@click.option("--commit-url", metavar="TEMPLATE", default=None,
              help="Link commits to the code: a URL holding {commit} "
                   "(https://github.com/owner/repo/commit/{commit}).")
@output_folder_option("The folder to write (replaced at once; a folder this command did not write is refused).",
                      type=click.STRING)
@store_option
@engine_options
def report(where: tuple[str, ...], series_by: str | None, since: str | None, commit_url: str | None,
           output: str, store_path: str, engine: Any) -> None:
    """Write a static site of the store's history to DIR: the regressions worst first, every
    series by its tags with a trend chart per headline metric, a page per series. Self-contained
    (inline CSS, JS and SVG): it works from file://, a bucket or GitHub Pages."""
    from ..commands.report import SiteOptions, site_report
    from ..render.report import write_site
    from ..store import Store

    options = SiteOptions(pairs(where, "--where"), since, series_by, commit_url)  # checked here
    check_apart(output, store_path)
    data = site_report(Store(store_path, engine=engine), options)
    files = write_site(data, output, options.commit_url)
    click.echo(f"wrote {len(files)} pages to {output}/ (open {output}/index.html)")


def check_apart(output: str, store: str) -> None:
    """The site folder is replaced whole: it may neither lie inside the store nor hold it."""
    if output == "":
        raise UsageError("-o '': an empty path; name the folder to write the site to")
    holds = inside(store, output)
    if holds or inside(output, store):
        where = "holds the store" if holds else "is inside the store"
        raise UsageError(f"-o {quote(output)}: that {where} {quote(store)}; the site folder is "
                         "replaced whole, write it elsewhere")
