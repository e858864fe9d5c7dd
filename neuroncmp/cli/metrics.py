"""``neuroncmp metrics [GLOB]``: what every metric means, its unit, and which way is better."""

from __future__ import annotations

import click

from .app import cli
from .options import FormatChoice, no_color_option, width_option


@cli.command()
@click.argument("glob", default="*")
@click.option("--format", "fmt", type=FormatChoice("metrics"), default=None,
              help="term (default): a table; json: one record per metric.")
@no_color_option
@width_option
def metrics(glob: str, fmt: str | None, no_color: bool, width: int | None) -> None:
    """List the metric catalog (name, group, unit, better direction, kind, meaning), or the
    metrics matching GLOB ('mfu*', '*spill*', 'memory.*')."""
    from ..catalog import GROUPS, closest, listing
    from ..errors import UsageError
    from .output import choose, emit

    renderer = choose("metrics", fmt, None)
    specs = listing(glob)
    if not specs and glob in GROUPS:
        specs = [spec for spec in listing() if spec.group == glob]
    if not specs:
        known = [spec.name for spec in listing()] + list(GROUPS)
        hint = closest(glob, known)
        raise UsageError(f"no metric matches '{glob}'" + (f"; did you mean {', '.join(hint)}?" if hint else ""))
    emit(renderer, "metrics", specs, None, no_color, width)
