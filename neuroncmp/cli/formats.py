"""``neuroncmp formats``: the input formats neuroncmp reads and the output formats it writes."""

from __future__ import annotations

import click

from .app import cli


@cli.command()
def formats() -> None:
    """List the input formats neuroncmp reads (and the output formats it writes)."""
    from ..ingest.registry import parsers
    from ..render.registry import renderers

    for parser in parsers():
        suffixes = "directory" if parser.reads_directory else " ".join(parser.suffixes)
        click.echo(f"{parser.name:<18} {suffixes:<22} {parser.description}")
    click.echo("\noutput formats (--format):")
    for renderer in renderers():
        click.echo(f"{renderer.name:<18} {' '.join(renderer.extensions):<22} {renderer.description}")
