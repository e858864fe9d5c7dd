"""``neuroncmp history METRIC``: every series of a metric in time order, with its level shifts."""

from __future__ import annotations

from typing import Any

import click

from .app import cli
from .options import width_option
from .store_options import echo_or_write, engine_options, output_format, pairs, store_option, where_option


@cli.command()
@click.argument("metric")
@where_option
@click.option("--format", "fmt", type=click.Choice(["term", "json", "png"]), default=None,
              help="term (default), json, or png (needs the plot extra; with -o).")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Write to FILE (atomically): .txt, .json or .png.")
@click.option("--last", type=click.IntRange(1), default=None, metavar="N",
              help="Show only the last N points of each series (shifts use them all).")
@width_option
@store_option
@engine_options
def history(metric: str, where: tuple[str, ...], fmt: str | None, output: str | None,
            last: int | None, width: int | None, store_path: str, engine: Any) -> None:
    """Show METRIC's history: one series per distinct tag set, shifts marked."""
    from ..errors import UsageError
    from ..store import Store
    from .output import columns

    chosen = output_format(fmt, output, ("term", "json", "png"))
    if chosen == "png" and not output:
        raise UsageError("--format png needs -o FILE.png")
    result = Store(store_path, engine=engine).history_where(metric, pairs(where, "--where"))
    if chosen == "png":
        from ..render.store_plot import history_png

        history_png(result, output)  # type: ignore[arg-type]
        return
    if chosen == "json":
        from ..render.store_json import history as render
        echo_or_write(render(result), output)
        return
    from ..render.store_text import history as text

    echo_or_write(text(result, columns(width), last), output)
