"""The parser registry: each format has a name, file suffixes, a content sniff and a parse function.

A format is picked by explicit name, then by suffix (sniffing among the formats sharing it), then
by sniffing every format (sqlite-utils' ``rows_from_file`` order).
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, NamedTuple

from ..errors import UnknownFormatError
from ..model import Profile

ParseFn = Callable[[str, str], list[Profile]]  # (text or directory path, path) -> profiles


class Parser(NamedTuple):
    name: str
    description: str
    suffixes: tuple[str, ...]
    sniff: Callable[[str], bool]
    parse: ParseFn
    reads_directory: bool = False


_PARSERS: list[Parser] = []


def register(parser: Parser) -> Parser:
    _PARSERS.append(parser)
    return parser


def parsers() -> list[Parser]:
    # Import order is sniffing order: specific formats first, catch-alls (summary-*) last.
    from . import (monitor, markdown, trainer, summary_json, summary_text,  # noqa: F401
                   parquet)
    return list(_PARSERS)


def by_name(name: str) -> Parser:
    for parser in parsers():
        if parser.name == name:
            return parser
    known = ", ".join(p.name for p in parsers())
    raise UnknownFormatError(f"unknown format '{name}'; known formats: {known}")


def for_directory(path: Path) -> Parser:
    for parser in parsers():
        if parser.reads_directory and parser.sniff(str(path)):
            return parser
    raise UnknownFormatError(
        f"{path}: a directory, but not a Neuron Explorer profile (no Summary.parquet inside)")


def for_text(path: Path, head: str) -> Parser:
    """The parser for a file: suffix candidates first (sniffed), then every parser's sniff."""
    suffix = path.suffix.lower()
    candidates = [p for p in parsers() if suffix in p.suffixes and not p.reads_directory]
    for parser in candidates:
        if parser.sniff(head):
            return parser
    for parser in parsers():
        if not parser.reads_directory and parser not in candidates and parser.sniff(head):
            return parser
    if candidates:
        return candidates[-1]  # the suffix's fallback parser gives the precise error
    known = ", ".join(p.name for p in parsers())
    raise UnknownFormatError(
        f"{path}: cannot tell its format from the name or content; force one with "
        f"--format-in NAME (known: {known})")
