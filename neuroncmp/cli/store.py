"""``neuroncmp store add|ls|check|compact``: keep every run in a folder any engine can read."""

from __future__ import annotations

from typing import Any

import click

from ..errors import InputError, UsageError
from .app import App
from .options import (
    engine_options,
    listing_options,
    pairs,
    series_by_option,
    store_option,
    where_option,
)

INTERRUPTED = ("store add interrupted: an add is all or nothing, so none of this add's runs were "
               "added unless its last step had finished ('neuroncmp store ls' shows the runs); "
               "add the same files again to finish, or run 'neuroncmp store compact' to remove "
               "the files the unfinished add left")


@click.group(cls=App)
def store() -> None:
    """Keep profiles in a store (a folder of Parquet tables) for history and regressions."""


@store.command("add")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--runs", "listing", type=click.Path(dir_okay=False), default=None,
              help="A CSV listing: path (relative to it), optional time and commit, other columns tags.")
@click.option("--tag", "tags", multiple=True, metavar="KEY=VALUE", help="Tag every run (repeatable).")
@click.option("--at", "at", metavar="ISO-TIME", default=None,
              help="The runs' time (default: the time the profile states, else the file's mtime).")
@click.option("--commit", metavar="SHA", default=None, help="The source commit of the runs.")
@click.option("--skip-bad", is_flag=True, help="Add what can be added and list what was skipped.")
@click.option("--commit-from-name", is_flag=True,
              help="A run with no --commit takes the commit-like part of its file name "
                   "(model-b8-3f2a9c1.json -> 3f2a9c1).")
@store_option
@engine_options
def add(paths: tuple[str, ...], listing: str | None, tags: tuple[str, ...], at: str | None,
        commit: str | None, skip_bad: bool, commit_from_name: bool, store_path: str,
        engine: Any) -> None:
    """Add profiles (files, run folders, folders of files) to the store."""
    from ..render.base import StoreReport
    from ..store import Store
    from .output import term

    if bool(paths) == bool(listing):
        raise UsageError("give either PATH... or --runs LISTING")
    if listing and (tags or at or commit or commit_from_name):
        raise UsageError("--tag, --at, --commit and --commit-from-name apply to PATH...; a listing "
                         "has its own columns")
    target = Store(store_path, engine=engine)
    try:
        if listing:
            report = target.add_listing(listing, skip_bad=skip_bad)
        else:
            given = {k: v[-1] for k, v in pairs(tags, "--tag").items()}
            report = target.add(*paths, tags=given, at=at, commit=commit, skip_bad=skip_bad,
                                commit_from_name=commit_from_name)
    except KeyboardInterrupt:
        click.echo(INTERRUPTED, err=True)
        raise
    term("store_add", StoreReport(report, store_path))


@store.command("ls")
@where_option
@series_by_option
@listing_options
@store_option
@engine_options
def ls(where: tuple[str, ...], series_by: str | None, fmt: str | None, output: str | None,
       no_color: bool, width: int | None, store_path: str, engine: Any) -> None:
    """List the runs in the store, in time order, with the series each belongs to."""
    from ..render.base import StoreRunsReport
    from ..render.registry import by_name
    from ..store import folder, queries
    from ..store.options import keys, tags
    from .output import check_output, emit, listing_format

    renderer = by_name(listing_format(fmt, output), "store_runs")
    check_output(output, (), store=store_path)  # -o into the store would replace its own files
    root = folder.root_of(store_path)
    chosen = queries.series_by(engine, root, keys(series_by))
    runs = queries.runs(engine, root, tags(pairs(where, "--where")), chosen)
    emit(renderer, "store_runs", StoreRunsReport(tuple(runs), chosen), output, no_color, width)


@store.command("series-by")
@click.argument("keys", required=False, default=None, metavar="[KEY,KEY...]")
@click.option("--all-tags", is_flag=True, help="Form series by every tag again (the default).")
@store_option
@engine_options
def series_by(keys: str | None, all_tags: bool, store_path: str, engine: Any) -> None:
    """Re-key the store's series by these tags (e.g. model,batch_size), without re-adding;
    with no KEYS, print the current keys."""
    from ..render.base import StoreReport
    from ..store import folder, queries
    from ..store.options import keys as key_list
    from .output import term

    root = folder.root_of(store_path)
    if keys is not None and all_tags:
        raise UsageError("give KEYS or --all-tags, not both")
    if keys is not None and not keys.strip(", "):  # checked before the store changes
        raise UsageError(f"store series-by {keys!r}: no tag named; e.g. model,batch_size "
                         "(--all-tags: every tag)")
    if keys is not None or all_tags:
        queries.set_series_by(engine, root, () if all_tags else key_list(keys) or ())
    term("store_series_by", StoreReport(queries.series_by(engine, root, None), store_path))


@store.command("check")
@listing_options
@store_option
def check(fmt: str | None, output: str | None, no_color: bool, width: int | None,
          store_path: str) -> None:
    """Verify the store: hashes, every run complete, no leftovers (exit 1 on a problem)."""
    from ..render.base import StoreReport
    from ..render.registry import by_name
    from ..store import Store
    from .output import check_output, emit, listing_format

    renderer = by_name(listing_format(fmt, output), "store_check")
    check_output(output, (), store=store_path)
    report = Store(store_path).check()
    emit(renderer, "store_check", StoreReport(report, store_path), output, no_color, width)
    if not report.ok:
        raise InputError(f"{store_path}: store check found {len(report.problems)} problems")


@store.command("compact")
@store_option
def compact(store_path: str) -> None:
    """Merge the store's part files into one and remove leftovers (no answer changes)."""
    from ..render.base import StoreReport
    from ..store import Store
    from .output import term

    term("store_compact", StoreReport(Store(store_path).compact(), store_path))
