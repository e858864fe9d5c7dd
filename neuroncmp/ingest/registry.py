"""The input format registry: the interface every format implements (``Parser``), and the choice of
one by explicit name, then suffix, then content sniffing.

A format is one module in ``ingest/formats/`` that defines ``PARSER = Parser(...)`` (or several, in
``PARSERS``). The choice follows sqlite-utils' ``rows_from_file`` order: a forced name wins; else the
formats claiming the file's suffix are sniffed; else every format is sniffed. Specific formats come
before the catch-alls (summary-json accepts any JSON object), so ``_MODULES`` is the sniffing order.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from importlib import import_module
from pathlib import Path
from typing import NamedTuple

from ..errors import NoProfileError, UnknownFormatError
from ..escape import quote
from ..model import Profile

ParseFn = Callable[[str, str], list[Profile]]  # (text, or a directory's path; path) -> profiles


class Parser(NamedTuple):
    """One input format. ``sniff`` gets the file's first 64 KiB (or a directory's path), after
    the text around a profile is blanked (``surround``); ``signature`` says what the sniff looks
    for, for the error on a file no format claims (the description when empty)."""

    name: str
    description: str
    suffixes: tuple[str, ...]
    sniff: Callable[[str], bool]
    parse: ParseFn
    reads_directory: bool = False
    signature: str = ""


_MODULES = ("neuron_monitor", "trainer", "ui_markdown", "view_json", "summary_json", "summary_text",
            "explorer_parquet")


@lru_cache(maxsize=1)
def parsers() -> tuple[Parser, ...]:
    """Every input format, in sniffing order (format modules are imported on first use)."""
    found: list[Parser] = []
    for name in _MODULES:
        module = import_module(f"{__package__}.formats.{name}")
        found += getattr(module, "PARSERS", None) or [module.PARSER]
    return tuple(found)


def names() -> list[str]:
    return [parser.name for parser in parsers()]


def by_name(name: str) -> Parser:
    for parser in parsers():
        if parser.name == name:
            return parser
    raise UnknownFormatError(f"unknown format {quote(name)}; known formats: {', '.join(names())}")


def for_directory(path: Path) -> Parser:
    for parser in parsers():
        if parser.reads_directory and parser.sniff(str(path)):
            return parser
    raise UnknownFormatError(
        f"{quote(path)}: a directory, but neither a run folder (manifest.json, as written by "
        "'neuroncmp convert' or 'neuroncmp capture') nor a Neuron Explorer output folder "
        "(Summary.parquet)")


def for_text(path: Path, head: str, tail: str = "") -> Parser:
    """The parser for a file: suffix candidates first (sniffed), then every parser's sniff; then
    the same on the file's ``tail`` (a log ends with what a run printed last: its metrics).

    Content decides: a file no format's sniff claims is refused with what each one looked for,
    never handed to the parser its suffix suggests (whose error would be about another format).
    """
    suffix = path.suffix.lower()
    order = sorted((p for p in parsers() if not p.reads_directory), key=lambda p: suffix not in p.suffixes)
    for text in (head, tail) if tail else (head,):
        for parser in order:
            if parser.sniff(text):
                return parser
    looked = "; ".join(f"{p.name}: {p.signature or p.description}" for p in parsers()
                       if not p.reads_directory)
    raise NoProfileError(str(path), looked)
