"""Text laid out as lines of (text, style) pieces: plain for pipes, rich only for colour.

Both terminal renderers (``diff`` and ``show``) lay their grids out here with string padding;
rich's Table measured and wrapped every cell, which cost most of a cold run.
"""

from __future__ import annotations

import textwrap
from typing import Any

from .. import escape

Piece = tuple[str, str]  # (text, rich style)
Line = list[Piece]


def wrapped(text: str, style: str, width: int) -> list[Line]:
    return [[(part, style)] for part in textwrap.wrap(text, width, break_on_hyphens=False) or [""]]


def grid(header: list[str], rows: list[list[Piece]], right: set[int], gap: str = "  ") -> list[Line]:
    """A table: columns as wide as their widest cell, ``right`` the right-aligned column indexes."""
    widths = [len(h) for h in header]
    for row in rows:
        for i, (text, _) in enumerate(row):
            widths[i] = max(widths[i], len(text))

    def fit(i: int, text: str) -> str:
        return text.rjust(widths[i]) if i in right else text.ljust(widths[i])

    out: list[Line] = [[(gap.join(fit(i, h) for i, h in enumerate(header)), "bold")]]
    for row in rows:
        line: Line = []
        for i, (text, style) in enumerate(row):
            line.append(((gap if i else "") + fit(i, text), style))
        out.append(line)
    return out


def plain(lines: list[Line]) -> str:
    """The lines as text; characters a terminal would act on are shown escaped (``escape.text``)."""
    return "".join(escape.text("".join(text for text, _ in line)).rstrip() + "\n" for line in lines)


def to_rich(lines: list[Line]) -> Any:
    """One rich Text of the lines; print it with ``soft_wrap=True`` (it is laid out already)."""
    from rich.text import Text

    text = Text()
    for line in lines:
        for piece, style in line:
            text.append(escape.text(piece), style=style or None)
        text.append("\n")
    text.rstrip()
    return text
