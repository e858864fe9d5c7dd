"""Text laid out as lines of (text, style) pieces: plain for pipes, ANSI codes for colour.

Both terminal renderers (``diff`` and ``show``) lay their grids out here with string padding;
rich's Table measured and wrapped every cell, which cost most of a cold run. Colour is written
as the SGR codes rich writes for the same styles (``ansi``); rich itself (``to_rich``) serves
the Python API's ``__rich_console__`` and a console ``ansi`` cannot serve.
"""

from __future__ import annotations

import re
from typing import Any

from .. import escape

Piece = tuple[str, str]  # (text, rich style)
Line = list[Piece]


def wrapped(text: str, style: str, width: int) -> list[Line]:
    """``text`` in lines of at most ``width``, broken at spaces; a word wider than that (a long
    metric name, a path) at ``_`` or ``/``, and cut only where it has neither."""
    out: list[Line] = []
    for part in wrap(text, width, break_long_words=False) or [""]:
        out += [[(piece, style)] for piece in (fold(part, width, "_/ ") if len(part) > width else [part])]
    return out


def hanging(lead: str, text: str, style: str, width: int) -> list[Line]:
    """``lead`` then ``text`` wrapped, later lines indented under the text."""
    lines = wrap(text, width, initial_indent=lead, subsequent_indent=" " * len(lead)) or [lead]
    return [[(line, style)] for line in lines]


_AS_SPACE = str.maketrans(dict.fromkeys("\t\n\x0b\x0c\r", " "))  # textwrap's whitespace, each read as a space
_SPACES = re.compile("( +)")


def wrap(text: str, width: int, *, initial_indent: str = "", subsequent_indent: str = "",
         break_long_words: bool = True) -> list[str]:
    """``textwrap.wrap(text, width, break_on_hyphens=False, ...)`` without importing textwrap (its
    regexes: 1 ms of a cold diff): tabs expanded, whitespace read as spaces, lines broken at
    spaces (dropped at either end of a line but the first's start); a word longer than a line
    cut there (``break_long_words``) or put whole on a line of its own.
    ``tests/test_layout.py`` holds it to textwrap."""
    if width <= 0:
        raise ValueError(f"invalid width {width!r} (must be > 0)")
    chunks = [chunk for chunk in _SPACES.split(text.expandtabs(8).translate(_AS_SPACE)) if chunk]
    chunks.reverse()  # the next chunk last
    lines: list[str] = []
    while chunks:
        indent = subsequent_indent if lines else initial_indent
        room = width - len(indent)
        if not lines and not chunks[-1]:  # left of a word cut on a first line narrower than its
            del chunks[-1]                  # indent, where textwrap would loop for ever
            continue
        if lines and chunks[-1].strip() == "":
            del chunks[-1]
        line: list[str] = []
        size = 0
        while chunks and size + len(chunks[-1]) <= room:
            size += len(chunks[-1])
            line.append(chunks.pop())
        if chunks and len(chunks[-1]) > room:  # a word longer than the line
            if break_long_words:
                end = room - size if room >= 1 else 1  # (0 when the line is full: the word starts the next)
                line.append(chunks[-1][:end])
                chunks[-1] = chunks[-1][end:]
            elif not line:
                line.append(chunks.pop())
        if line and line[-1].strip() == "":
            del line[-1]
        if line:
            lines.append(indent + "".join(line))
    return lines


def words(text: str, separators: str) -> list[str]:
    """``total_time/sample [ms]`` -> ``total_``, ``time/``, ``sample ``, ``[ms]``: pieces that end at
    a separator; a bracketed unit stays whole; a ``[`` no ``]`` follows is a piece of its own (a
    metric named ``a[b`` in an input file keeps its bracket)."""
    seps = separators
    return re.findall(rf"\[[^\]]*\][^{seps}]*[{seps}]*|[^{seps}\[]*[{seps}]+|[^{seps}\[]+|\[", text) or [text]


def fold(text: str, width: int, separators: str = "_/ -") -> list[str]:
    """``text`` in lines of at most ``width``, broken after a separator; a word longer than the
    width (rare: no separator in 24 characters) is cut as a last resort."""
    width = max(width, 1)
    # A text that fits is one line, without the regex (~1 ms of a cold diff)
    if len(text) <= width:
        return [text.rstrip() or text]
    out = [""]
    for word in words(text, re.escape(separators)):
        if out[-1] and len(out[-1]) + len(word) > width:
            out.append("")
        out[-1] += word
        if len(out[-1]) > width:  # cut once into width-sized pieces (a megabyte name stays linear)
            long = out.pop()
            out += [long[start:start + width] for start in range(0, len(long), width)]
    return [part.rstrip() or part for part in out]


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


def fitted_grid(header: list[str], rows: list[list[Piece]], right: set[int], width: int) -> list[Line]:
    """``grid`` when it fits ``width``; else each row stacked: its first cell on one line, the
    others indented on the next (a long metric name never pushes its value past the width)."""
    table = grid(header, rows, right)
    if max(sum(len(text) for text, _ in line) for line in table) <= width:
        return table
    out: list[Line] = [[(header[0], "bold")], [("    " + "  ".join(header[1:]), "bold")]]
    for row in rows:
        out += [[piece] for part in fold(row[0][0], width, "_/ ") for piece in [(part, row[0][1])]] \
            if len(row[0][0]) > width else [[row[0]]]
        rest = [piece for piece in row[1:] if piece[0]]
        out += [[(line, rest[0][1])] for line in _packed([text for text, _ in rest], width, "    ")]
    return out


def text_table(header: list[str], rows: list[list[str]], right: set[int] | None = None) -> str:
    """``grid`` of plain cells as text: columns as wide as their widest cell, two spaces apart."""
    return plain(grid(header, [[(cell, "") for cell in row] for row in rows], right or set()))


def fitted_text_table(header: list[str], rows: list[list[str]], right: set[int] | None, width: int | None) -> str:
    """``text_table`` when it fits ``width``; else one block per row: its first two cells, then the
    others as ``name value`` pairs on indented lines of at most ``width`` (each value named, as a
    stacked row has no column header above it)."""
    text = text_table(header, rows, right)
    if width is None or max(len(line) for line in text.splitlines()) <= width:
        return text
    out = []
    for row in rows:
        out.append(escape.text("  ".join(c for c in row[:2] if c)) + "\n")
        pieces = [f"{name or 'mark'} {cell}".strip() for name, cell in zip(header[2:], row[2:]) if cell]
        out += [escape.text(line) + "\n" for line in _packed(pieces, width, "    ")]
    return "".join(out)


def _packed(pieces: list[str], width: int, indent: str) -> list[str]:
    """As many pieces a line as fit ``width``, two spaces apart, each line indented."""
    lines: list[str] = []
    for piece in pieces:
        if lines and len(lines[-1]) + 2 + len(piece) <= width:
            lines[-1] += "  " + piece
        else:
            lines.append(indent + piece)
    return lines


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


# The SGR codes of the styles the views use, in the order rich writes them: attributes, then the
# colour (rich writes the eight standard colours with these codes in every colour system).
_ATTRIBUTES = {"bold": "1", "dim": "2", "italic": "3", "underline": "4"}
_COLOURS = {"black": "30", "red": "31", "green": "32", "yellow": "33", "blue": "34", "magenta": "35",
            "cyan": "36", "white": "37"}


def sgr(style: str) -> str | None:
    """``"bold cyan"`` -> ``"1;36"``; None for a style outside the set above."""
    words = style.split()
    codes = [code for name, code in _ATTRIBUTES.items() if name in words]
    colours = [_COLOURS[word] for word in words if word in _COLOURS]
    return ";".join(codes + colours) if len(codes) + len(colours) == len(words) and len(colours) <= 1 else None


def ansi(lines: list[Line], colour: bool = True) -> str | None:
    """The lines as rich prints ``to_rich(lines)`` with ``soft_wrap=True``, byte for byte, without
    rich (importing it and building its objects took ~45 ms of a ~185 ms colour diff): each
    styled piece in its SGR codes (``\\x1b[1;36mheadline\\x1b[0m``), the whitespace at the very
    end dropped, one newline after. ``colour=False``: as rich prints to a terminal it gives no
    colour (no codes, lines unstripped). None when a style is not one ``sgr`` knows."""
    codes: dict[str, str | None] = {}
    pieces: list[tuple[str, str | None]] = []  # (text, its SGR codes or None)
    for line in lines:
        for piece, style in line:
            text, code = escape.text(piece), None
            if style and colour and text:
                code = codes[style] if style in codes else codes.setdefault(style, sgr(style))
                if code is None:
                    return None
            pieces.append((text, code))
        pieces.append(("\n", None))
    while pieces and not pieces[-1][0].rstrip():  # rich's Text.rstrip(): the text's trailing whitespace
        pieces.pop()
    if pieces:
        pieces[-1] = (pieces[-1][0].rstrip(), pieces[-1][1])
    return "".join(f"\x1b[{code}m{text}\x1b[0m" if code else text for text, code in pieces) + "\n"
