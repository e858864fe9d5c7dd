"""Getting text to the user: a file written atomically, plain text when piped, colour on a terminal."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import click


def columns(width: int | None) -> int:
    """``--width``, else ``COLUMNS``, else the terminal's width, else 100 (shutil's rule; importing
    shutil costs 2 ms of a cold run)."""
    if width:
        return width
    if os.environ.get("COLUMNS", "").isdigit() and int(os.environ["COLUMNS"]) > 0:
        return int(os.environ["COLUMNS"])
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 100  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        return 100


def wants_colour(no_color: bool) -> bool:
    """Colour only on a terminal, and never with --no-color or NO_COLOR (FORCE_COLOR forces it)."""
    if no_color or os.environ.get("NO_COLOR"):
        return False
    return bool(os.environ.get("FORCE_COLOR")) or sys.stdout.isatty()


def print_lines(lines: list[Any], no_color: bool, width: int | None) -> None:
    """Styled lines: plain text when piped or --no-color (rich is not even imported), else colour."""
    from ..render.layout import plain, to_rich

    if not wants_colour(no_color):
        click.echo(plain(lines), nl=False)
        return
    from rich.console import Console

    console = Console(no_color=no_color, width=width, highlight=False, soft_wrap=False)
    console.print(to_rich(lines), soft_wrap=True)


def warn(messages: Any) -> None:
    """Warnings on standard error (for outputs that must stay pure data, such as CSV)."""
    for message in messages:
        click.echo(f"warning: {message}", err=True)


def write_file(path: str, text: str) -> None:
    from ..atomic import write_atomic

    write_atomic(Path(path), text)


def choose(document: str, fmt: str | None, output: str | None) -> Any:
    """The renderer ``--format`` names, else the one ``-o``'s extension implies, else ``term``."""
    from ..render.registry import by_name, for_output

    return by_name(fmt or "term", document) if fmt or not output else for_output(output, document)


def emit(renderer: Any, document: str, value: Any, output: str | None, no_color: bool,
         width: int | None) -> None:
    """Render ``value`` (a ``document`` such as ``"diff"``) to ``-o FILE``, else to standard output:
    styled lines where the format has them (colour on a terminal), else text."""
    if output:
        write_file(output, renderer.render(document, value, width or 100))
    elif (styled := renderer.styled(document, value, columns(width))) is not None:
        print_lines(styled, no_color, width)
    else:
        click.echo(renderer.render(document, value, columns(width)), nl=False)
