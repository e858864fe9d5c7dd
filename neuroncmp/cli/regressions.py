"""``neuroncmp regressions``: the level shifts in every series of every metric, worst first."""

from __future__ import annotations

from typing import Any

import click

from .app import cli
from .store_options import echo_or_write, engine_options, output_format, pairs, store_option, where_option


@cli.command()
@where_option
@click.option("--since", metavar="ISO-TIME", default=None,
              help="Only changes whose first new run is later than this.")
@click.option("--all-changes", is_flag=True, help="Also improvements and changes with no better direction.")
@click.option("--min-change", type=click.FloatRange(0), default=None, metavar="PCT",
              help="Only changes of at least PCT percent (relative).")
@click.option("--fail-on-regression", is_flag=True, help="Exit 3 when a change for the worse is listed.")
@click.option("--format", "fmt", type=click.Choice(["term", "json"]), default=None)
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Write to FILE (atomically): .txt or .json.")
@store_option
@engine_options
def regressions(where: tuple[str, ...], since: str | None, all_changes: bool, min_change: float | None,
                fail_on_regression: bool, fmt: str | None, output: str | None, store_path: str, engine: Any) -> None:
    """List level shifts in every series: changes for the worse first (by the catalog's direction)."""
    from ..errors import GateTripped
    from ..store import Store

    chosen = output_format(fmt, output, ("term", "json"))
    result = Store(store_path, engine=engine).regressions(
        where=pairs(where, "--where"), since=since, all_changes=all_changes,
        min_change=None if min_change is None else min_change / 100)
    if chosen == "json":
        from ..render.store_json import regressions as render

        echo_or_write(render(result), output)
    else:
        from ..render.store_text import regressions as text

        echo_or_write(text(result, store_path), output)
    if fail_on_regression and any(change.direction == "worse" for change in result.changes):
        raise GateTripped("a change for the worse was found")
