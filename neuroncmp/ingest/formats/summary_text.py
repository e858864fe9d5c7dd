"""``neuron-profile view --output-format summary-text``: one ``key value`` pair per line."""

from __future__ import annotations

import re
from pathlib import Path

from ...errors import ParseError
from ..naming import params_from_name
from ...model import Profile, Skipped, Source
from ..values import add_metric, raw_metric
from ..parser import Parser

NAME = "summary-text"
_LINE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_.]*)\s*[:=]?\s+(\S.*?)\s*$")


def _raw_value(text: str) -> int | float | str:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def parse(text: str, path: str) -> list[Profile]:
    label, params = params_from_name(Path(path).stem, "file name")
    profile = Profile(Source(path, NAME), label, params)
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        match = _LINE.match(line)
        if match is None:
            profile.skipped.append(Skipped(f"line {number}", line.strip()[:80], "not 'key value'"))
            continue
        where = f"line {number}"
        add_metric(profile, raw_metric(path, where, match.group(1), _raw_value(match.group(2))), where)
    if not profile.metrics:
        raise ParseError(path, "whole file", "'key value' lines of summary-text", "none")
    return [profile]


def sniff(head: str) -> bool:
    lines = [line for line in head.splitlines()[:20] if line.strip()]
    if not lines or any("|" in line or line.lstrip().startswith(("#", "{", "*")) for line in lines):
        return False
    matched = sum(1 for line in lines if _LINE.match(line) and "=" not in line)
    return matched >= max(2, int(0.8 * len(lines)))


PARSER = Parser(NAME, "neuron-profile summary-text ('key value' lines)", (".txt", ".text"),
                sniff, parse)
