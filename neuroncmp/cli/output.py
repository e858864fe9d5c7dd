"""Getting text to the user: a file written atomically, plain text when piped, colour on a terminal."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click

from ..errors import UsageError
from ..escape import quote
from ..paths import inside


def warn(messages: Any) -> None:
    """Warnings on standard error (for outputs that must stay pure data, such as CSV)."""
    for message in messages:
        click.echo(f"warning: {message}", err=True)


def notes(messages: Any) -> None:
    """What the set of inputs was read as (sidecars joined, copies read once), on standard
    error so every output format stays what it is."""
    for message in messages:
        click.echo(f"note: {message}", err=True)


def listing_format(fmt: str | None, output: str | None) -> str:
    """``--format`` of a listing command, else ``json`` for ``-o FILE.json``, else ``term``."""
    if output == "":
        raise UsageError("-o '': an empty path; name a file, or leave out -o to print")
    if fmt:
        return fmt
    return "json" if output is not None and output.lower().endswith(".json") else "term"


def term(document: str, value: Any) -> None:
    """``document`` in the terminal format, to standard output (a command with no --format)."""
    from ..render.registry import by_name

    emit(by_name("term", document), document, value, None, False, None)


def choose(document: str, fmt: str | None, output: str | None) -> Any:
    """The renderer ``--format`` names, else the one ``-o``'s extension implies, else ``term``."""
    from ..render.registry import by_name, for_output

    if output == "":
        raise UsageError("-o '': an empty path; name a file, or leave out -o to print")
    return by_name(fmt or "term", document) if fmt or output is None else for_output(output, document)


def check_output(output: str | None, inputs: tuple[str, ...], store: str | None = None) -> None:
    """``check_outputs`` for ``-o`` alone."""
    check_outputs([("-o", output)] if output is not None else [], inputs, store)


def check_outputs(outputs: list[tuple[str, str]], inputs: tuple[str, ...], store: str | None = None) -> None:
    """Before anything is read: the one rule for every file a command writes (``-o``, each chart
    of ``--charts``): each must name a regular file or a new one (``atomic``: a symlink is written
    through to the file it names), never a file this run reads (it would be replaced by a report
    on itself, or by PNG bytes), nothing inside the ``store`` it reads, and no two the same file."""
    seen: dict[str, str] = {}
    for option, output in outputs:
        named = f"{option} {quote(output)}"
        target = _checked_target(named, output, inputs, store)
        if str(target) in seen:
            raise UsageError(f"{named} and {seen[str(target)]} are the same file; a run writes each "
                             "output once")
        seen[str(target)] = named


def _checked_target(named: str, output: str, inputs: tuple[str, ...], store: str | None) -> Path:
    from ..atomic import target_of
    from ..ingest.loader import input_files

    target, mode = target_of(Path(output))
    if store is not None and inside(target, store):
        raise UsageError(f"{named}: that is inside the store this run reads ({quote(store)}); "
                         "write the report elsewhere")
    if mode is None:
        return target  # a new file cannot be an input
    written = os.stat(target)
    for name in inputs:
        for file in input_files(name):
            if _same(file, written):
                raise UsageError(f"{named}: that is an input of this run ({quote(file)}); "
                                 "write it elsewhere")
    return target


def _same(file: Path, written: os.stat_result) -> bool:
    try:
        return os.path.samestat(os.stat(file), written)
    except (OSError, ValueError):
        return False


def emit(renderer: Any, document: str, value: Any, output: str | None, no_color: bool,
         width: int | None) -> None:
    """Render ``value`` (a ``document`` such as ``"diff"``) to ``-o FILE`` (``width`` or 100 wide),
    else to standard output: drawn by rich where the format is (colour and width by its rules,
    ``render/terminal/``), else as text."""
    if renderer.kind == "image" and output is None:
        raise UsageError(f"--format {renderer.name} writes a file: add -o FILE{renderer.extensions[0]}")
    if output is not None:
        from ..atomic import write_atomic

        write_atomic(Path(output), renderer.render(document, value, width or 100))
    elif renderer.draws:
        from ..render.terminal import console, printed

        out = console(width, no_color)
        printed(renderer.drawn(document, value, out.width), out)
    else:
        echo(renderer.render(document, value, width or 100))


def echo(text: str, colour: bool = False) -> None:
    """Print ``text`` as is; a lone surrogate (from a JSON ``"\\ud800"``) as its escape, not a crash.
    ``colour``: keep its colour codes where click would strip them (not a terminal: FORCE_COLOR)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-8", errors="backslashreplace").decode("utf-8")
    click.echo(text, nl=False, color=True if colour else None)
