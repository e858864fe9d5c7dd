"""``neuroncmp convert``: split a multi-profile export into a run folder, one file per variant."""

from __future__ import annotations

from pathlib import Path

import click

from ..escape import text
from .app import BoundaryCommand
from .options import format_in_option, output_folder_option


@click.command(cls=BoundaryCommand)
@click.argument("report", type=click.Path())
@output_folder_option("Folder to write one summary-json file per profile into.", "out_dir",
                      click.Path(file_okay=False))
@format_in_option
def convert(report: str, out_dir: str, format_in: str | None) -> None:
    """Split a multi-profile REPORT (the profiler UI's export) into one file per variant."""
    from ..commands.convert import ConvertOptions, convert_report
    from ..render.convert_folder import convert as write_folder

    loaded = convert_report(report, ConvertOptions(format_in))
    for path in write_folder(list(loaded.profiles), Path(report), Path(out_dir)):
        click.echo(text(str(path)))
