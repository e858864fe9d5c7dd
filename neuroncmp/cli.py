"""The command line: a thin skin over the library (load -> compute -> render -> echo).

Exit codes: 0 success, 1 the tool could not read an input, 2 usage error, 3 a --fail-on gate
tripped. Heavy modules (rich, pint, pandas) are imported inside the commands that need them.
"""

from __future__ import annotations

import shutil
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
    from .render.lines import Line
    from .render.profile_term import render_lines

    columns = width or shutil.get_terminal_size((100, 24)).columns
    lines: list[Line] = []
    for index, profile in enumerate(profiles):
        lines += ([[], [("─" * columns, "dim")], []] if index else []) + render_lines(profile, columns)
    _print_lines(lines, no_color, width)


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


@cli.command()
@click.argument("files", nargs=-1, required=True, type=click.Path())
@click.option("--baseline", "baseline_name", metavar="LABEL",
              help="Label or section title of the baseline (default: the first profile).")
@click.option("--group", "groups", multiple=True, metavar="GROUP", help="Only these catalog groups.")
@click.option("--metric", "globs", multiple=True, metavar="GLOB", help="Only metrics matching GLOB.")
@click.option("--only-changed", is_flag=True, help="Hide rows inside the noise band (counted).")
@click.option("--sort", type=click.Choice(["group", "change", "name"]), default="group", show_default=True)
@click.option("--basis", type=click.Choice(["auto", "step", "sample"]), default="auto", show_default=True,
              help="Extensive metrics per step or per sample; auto: per sample when batch sizes differ.")
@click.option("--threshold", "thresholds", multiple=True, metavar="[KEY=]N%|Npp",
              help="Noise band: '5%', 'time=2%', 'fraction=1pp', 'spill_*=0.5%'.")
@click.option("--format", "fmt", type=click.Choice(["term", "md", "json", "csv", "html"]), default=None,
              help="Output format (default: term, or from -o's extension).")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Write to FILE (atomically) instead of the terminal.")
@click.option("--fail-on", "rules", multiple=True, metavar="RULE",
              help="Exit 3 if RULE trips, e.g. 'mfu_estimated_percent<-2pp', 'total_time/sample>+5%'.")
@format_in_option
@no_color_option
@width_option
@_guard
def diff(files: tuple[str, ...], baseline_name: str | None, groups: tuple[str, ...],
         globs: tuple[str, ...], only_changed: bool, sort: str, basis: str,
         thresholds: tuple[str, ...], fmt: str | None, output: str | None, rules: tuple[str, ...],
         format_in: str | None, no_color: bool, width: int | None) -> None:
    """Compare a baseline against variants: FILES are profiles or multi-section exports."""
    from .comparison import compare
    from .loader import load_many
    from .thresholds import Thresholds

    fmt = _output_format(fmt, output)
    parsed_rules = _rules(rules)
    _usage(Thresholds, list(thresholds))
    profiles = _baseline_first(load_many(files, format_in), baseline_name)
    comparison = compare(profiles[0], *profiles[1:], basis=basis, thresholds=thresholds,
                         groups=groups, metrics=globs, only_changed=only_changed, sort=sort)
    if parsed_rules:
        from .gates import evaluate

        _usage(evaluate, comparison, parsed_rules)
    _emit(comparison, fmt, output, no_color, width)
    if comparison.tripped():
        sys.exit(EXIT_GATE)


def _rules(rules: tuple[str, ...]) -> list[Any]:
    if not rules:
        return []
    from .gates import parse_rule

    return [_usage(parse_rule, rule) for rule in rules]


def _usage(func: Callable[..., Any], *args: Any) -> Any:
    """Call ``func``; a RuleError becomes a usage error (exit 2) naming the bad option."""
    from .errors import RuleError

    try:
        return func(*args)
    except RuleError as exc:
        raise click.UsageError(str(exc)) from None


def _output_format(fmt: str | None, output: str | None) -> str:
    from .render import BY_EXTENSION

    if fmt or not output:
        return fmt or "term"
    suffix = Path(output).suffix.lower()
    if suffix not in BY_EXTENSION:
        raise click.UsageError(f"-o {output}: cannot tell the format from '{suffix or 'no extension'}'; "
                               "add --format term|md|json|csv|html")
    return BY_EXTENSION[suffix]


def _baseline_first(profiles: list[Any], name: str | None) -> list[Any]:
    labels = {p.label for p in profiles}
    if len(labels) < 2:
        raise NeuroncmpError(
            f"diff needs profiles with at least two labels, got only {sorted(labels)}: files sharing a "
            "label are repeated captures of one side; name the variant's file differently")
    if name is None:
        return profiles
    chosen = [p for p in profiles if name in (p.label, p.source.section)]
    if not chosen:
        raise click.UsageError(f"--baseline {name!r}: no profile has that label or section title "
                               f"(labels: {', '.join(dict.fromkeys(p.label for p in profiles))})")
    label = chosen[0].label
    return [p for p in profiles if p.label == label] + [p for p in profiles if p.label != label]


def _emit(comparison: Any, fmt: str, output: str | None, no_color: bool, width: int | None) -> None:
    from .render import render_text

    if output:
        from .atomic import write_atomic

        write_atomic(Path(output), render_text(comparison, fmt, width=width or 100))
    elif fmt == "term":
        _print_term(comparison, no_color, width)
    else:
        click.echo(render_text(comparison, fmt), nl=False)


def _wants_colour(no_color: bool) -> bool:
    """Colour only on a terminal, and never with --no-color or NO_COLOR (FORCE_COLOR forces it)."""
    import os

    if no_color or os.environ.get("NO_COLOR"):
        return False
    return bool(os.environ.get("FORCE_COLOR")) or sys.stdout.isatty()


def _print_term(comparison: Any, no_color: bool, width: int | None) -> None:
    from .render import term

    columns = width or shutil.get_terminal_size((100, 24)).columns
    _print_lines(term.render_lines(comparison, columns), no_color, width)


def _print_lines(lines: list[Any], no_color: bool, width: int | None) -> None:
    """Plain text when piped or --no-color (rich is not even imported), else colour via rich."""
    from .render.lines import plain, to_rich

    if not _wants_colour(no_color):
        click.echo(plain(lines), nl=False)
        return
    _console(no_color, width).print(to_rich(lines), soft_wrap=True)


def main() -> None:
    cli(prog_name="neuroncmp")


if __name__ == "__main__":
    main()
