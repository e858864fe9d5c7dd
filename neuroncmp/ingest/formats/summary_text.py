"""``neuron-profile view --output-format summary-text``: one ``key value`` pair per line."""

from __future__ import annotations

import re
from pathlib import Path

from ...errors import ParseError
from ...model import Profile, Skipped, Source
from ..naming import params_from_name
from ..registry import Parser
from ..values import add_metric, number, raw_metric

NAME = "summary-text"
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")


def split_line(line: str) -> tuple[str, str] | None:
    """``"total_time  0.017"`` (or ``key: value``, ``key = value``) -> (key, value); else None.

    String methods rather than one regular expression: a pattern with a lazy value and optional
    trailing space takes quadratic time on a long line with long runs of spaces.
    """
    text = line.strip()
    match = _KEY.match(text)
    if match is None:
        return None
    rest = text[match.end():]
    value = rest.lstrip()
    if value[:1] in (":", "=") and value[1:2].isspace():
        value = value[1:].lstrip()
    elif value == rest:
        return None  # the key runs straight into something that is not a separator
    return (match.group(), value) if value else None


def parse(text: str, path: str) -> list[Profile]:
    label, params = params_from_name(Path(path).stem, "file name")
    profile = Profile(Source(path, NAME), label, params)
    for line_number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        pair = split_line(line)
        if pair is None:
            profile.skipped.append(Skipped(f"line {line_number}", line.strip()[:80], "not 'key value'"))
            continue
        where = f"line {line_number}"
        value = number(pair[1])
        add_metric(profile, raw_metric(path, where, pair[0], pair[1] if value is None else value), where)
    if not profile.metrics:
        raise ParseError(path, "whole file", "'key value' lines of summary-text", "none")
    return [profile]


def sniff(head: str) -> bool:
    lines = [line for line in head.splitlines()[:20] if line.strip()]
    if not lines or any("|" in line or line.lstrip().startswith(("#", "{", "*")) for line in lines):
        return False
    matched = sum(1 for line in lines if split_line(line) and "=" not in line)
    return matched >= max(2, int(0.8 * len(lines)))


PARSER = Parser(NAME, "neuron-profile summary-text ('key value' lines)", (".txt", ".text"),
                sniff, parse, signature="'key value' lines (most of the first 20)")
