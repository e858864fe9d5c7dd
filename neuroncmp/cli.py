"""The command line: a thin skin over the library (load -> compute -> render -> echo).

Exit codes: 0 success, 1 the tool could not read an input, 2 usage error, 3 a --fail-on gate
tripped. Heavy modules (rich, pint, pandas) are imported inside the commands that need them.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Callable

import click

from . import __version__
from .errors import NeuroncmpError

EXIT_INPUT, EXIT_GATE = 1, 3


class InputError(click.ClickException):
    """A NeuroncmpError shown as one line, exit code 1."""

    exit_code = EXIT_INPUT


def _guard(func: Callable[..., Any]) -> Callable[..., Any]:
    """Turn the library's errors into one-line CLI errors (never a traceback)."""
    import functools

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except NeuroncmpError as exc:
            raise InputError(str(exc)) from None
        except OSError as exc:
            raise InputError(f"{exc.filename or ''}: {exc.strerror}") from None
    return wrapper


def _console(no_color: bool, width: int | None) -> Any:
    from rich.console import Console

    return Console(no_color=no_color, width=width, highlight=False, soft_wrap=False)


format_in_option = click.option(
    "--format-in", "format_in", metavar="NAME", default=None,
    help="Force the input parser (see 'neuroncmp formats'); default: by suffix and content.")
no_color_option = click.option("--no-color", is_flag=True, help="Plain text, no colour.")
width_option = click.option("--width", type=click.IntRange(40, 400), default=None,
                            help="Terminal width in columns (default: the terminal's).")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="neuroncmp")
def cli() -> None:
    """Compare AWS Neuron profiles: is this run better than that one, and why?"""


@cli.command()
@click.argument("files", nargs=-1, required=True, type=click.Path())
@click.option("--format", "output", type=click.Choice(["table", "json"]), default="table",
              show_default=True, help="table: grouped, human units; json: normalized, base units.")
@format_in_option
@no_color_option
@width_option
@_guard
def show(files: tuple[str, ...], output: str, format_in: str | None, no_color: bool,
         width: int | None) -> None:
    """Show every profile in FILES, grouped by catalog group, in human units."""
    from .loader import load_many

    profiles = load_many(files, format_in)
    if output == "json":
        import json

        from .serialize import profile_dict

        data: Any = [profile_dict(p) for p in profiles]
        click.echo(json.dumps(data[0] if len(data) == 1 else data, indent=2))
        return
    from .render.profile_term import render

    console = _console(no_color, width)
    for index, profile in enumerate(profiles):
        if index:
            console.rule()
        console.print(render(profile))


@cli.command()
@_guard
def formats() -> None:
    """List the input formats neuroncmp reads."""
    from .parsers import parsers

    for parser in parsers():
        suffixes = "directory" if parser.reads_directory else " ".join(parser.suffixes)
        click.echo(f"{parser.name:<18} {suffixes:<22} {parser.description}")


@cli.command()
@click.argument("report", type=click.Path())
@click.option("-o", "--output", "out_dir", required=True, type=click.Path(file_okay=False),
              help="Folder to write one summary-json file per profile into.")
@format_in_option
@_guard
def convert(report: str, out_dir: str, format_in: str | None) -> None:
    """Split a multi-profile REPORT (the profiler UI's export) into one file per variant."""
    from .convert import convert as run
    from .loader import load

    profiles = load(report, format_in)
    for path in run(profiles, Path(report), Path(out_dir)):
        click.echo(str(path))


def main() -> None:
    cli(prog_name="neuroncmp")


if __name__ == "__main__":
    sys.exit(main())
