"""``neuroncmp formats``: the input and output formats, as terminal text within a width, or JSON."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .json_out import dumps
from .layout import wrapped

FORMATS_SCHEMA = "neuroncmp.formats/1"


def formats_text(parsers: Sequence[Any], renderers: Sequence[Any], width: int) -> str:
    """One line per format (name, suffixes, description); a description that does not fit the
    width continues on indented lines."""
    out = [_format_line(p.name, "directory" if p.reads_directory else " ".join(p.suffixes),
                        p.description, width) for p in parsers]
    out.append("\noutput formats (--format):\n")
    out += [_format_line(r.name, " ".join(r.extensions), r.description, width) for r in renderers]
    return "".join(out)


def _format_line(name: str, suffixes: str, description: str, width: int) -> str:
    head = f"{name:<18} {suffixes:<22} "
    if len(head) + len(description) <= width:
        return head + description + "\n"
    indent = " " * 4
    lines = wrapped(description, "", max(width - len(indent), 20))
    return head.rstrip() + "\n" + "".join(indent + "".join(t for t, _ in line) + "\n" for line in lines)


def formats_json(parsers: Sequence[Any], renderers: Sequence[Any]) -> str:
    document = {
        "schema": FORMATS_SCHEMA,
        "inputs": [{"name": p.name, "suffixes": list(p.suffixes), "directory": p.reads_directory,
                    "description": p.description} for p in parsers],
        "outputs": [{"name": r.name, "extensions": list(r.extensions), "description": r.description}
                    for r in renderers],
    }
    return dumps(document, indent=1, ensure_ascii=False) + "\n"
