"""The interface every input format implements: a name, suffixes, a content sniff and a parse.

A format is one module in ``ingest/formats/`` that defines ``PARSER = Parser(...)`` (or several,
in ``PARSERS``); ``ingest/registry.py`` lists the modules in sniffing order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

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
