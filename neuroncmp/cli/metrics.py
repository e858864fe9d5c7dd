"""``neuroncmp metrics [GLOB]``: what every metric means, its unit, and which way is better."""

from __future__ import annotations

import click

from .app import BoundaryCommand
from .options import output_options, terminal_options


@click.command(cls=BoundaryCommand)
@click.argument("glob", default="*")
@output_options("metrics")
@terminal_options
def metrics(glob: str, fmt: str | None, output: str | None, no_color: bool, width: int | None) -> None:
    """List the metric catalog (name, group, unit, better direction, kind, meaning), or the
    metrics matching GLOB ('mfu*', '*spill*', 'memory.*')."""
    from ..commands.metrics import MetricsOptions, metrics_report
    from .output import choose, emit

    renderer = choose("metrics", fmt, output)
    emit(renderer, "metrics", metrics_report(MetricsOptions(glob)), output, no_color, width)
