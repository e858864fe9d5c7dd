"""``neuroncmp metrics [GLOB]``: what every metric means, its unit, and which way is better."""

from __future__ import annotations

import click

from .app import cli
from .options import no_color_option, output_options, width_option


@cli.command()
@click.argument("glob", default="*")
@output_options("metrics")
@no_color_option
@width_option
def metrics(glob: str, fmt: str | None, output: str | None, no_color: bool, width: int | None) -> None:
    """List the metric catalog (name, group, unit, better direction, kind, meaning), or the
    metrics matching GLOB ('mfu*', '*spill*', 'memory.*')."""
    from ..catalog import GROUPS, closest, listing, resolve_name
    from ..errors import UsageError
    from .output import choose, emit

    renderer = choose("metrics", fmt, output)
    specs = listing(glob)
    if not specs and glob in GROUPS:
        specs = [spec for spec in listing() if spec.group == glob]
    if not specs and resolve_name(glob) != glob:  # an alias or a prefix, as history takes it
        specs = listing(resolve_name(glob))
    if not specs:
        known = [spec.name for spec in listing()] + list(GROUPS)
        hint = closest(glob, known)
        raise UsageError(f"no metric matches '{glob}'" + (f"; did you mean {', '.join(hint)}?" if hint else ""))
    emit(renderer, "metrics", specs, output, no_color, width)
