"""The terminal format, drawn by rich: each view (``diff``, ``sweep``, ``show``, ``ops``, the listings)
builds rich renderables for a width; ``text`` renders them to plain text (``-o FILE``, the Python API,
tests) and ``printed`` prints them in colour and at the width rich's rules give (``docs/commands/diff.md``:
``--no-color``, ``--width``).

Every string from an input passes ``escape.text`` (``piece``), so a label cannot move the cursor;
nothing here is read as rich markup. Lines end without trailing blanks, in colour as in text.
"""

from __future__ import annotations

import io
import re
from collections.abc import Collection, Iterable, Sequence
from typing import TypeAlias

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.measure import Measurement
from rich.segment import Segment, Segments
from rich.table import Table
from rich.text import Text

from ... import escape

Piece = tuple[str, str]  # (text, rich style)
Cell: TypeAlias = "str | Text | Wrapped"  # a table's cell: text to escape, or drawn already


def piece(text: str, style: str = "") -> Text:
    """``text`` (escaped) in ``style``: a table's cell (a paragraph is ``Wrapped``)."""
    return Text(escape.text(text), style=style)


def table(header: Sequence[str], rows: Iterable[Sequence[Cell]], right: Collection[int] = (),
          wrap: Collection[int] = ()) -> Table:
    """Columns two spaces apart, the header bold; a column's cells never wrap (a number is never
    cut) but those in ``wrap``, which break as ``Name`` does (a paragraph cell: ``Wrapped``)."""
    out = Table(box=None, padding=(0, 1), pad_edge=False, show_edge=False, header_style="bold",
                show_header=any(header))
    for index, title in enumerate(header):
        out.add_column(piece(title), justify="right" if index in right else "left", no_wrap=index not in wrap)
    for row in rows:
        out.add_row(*(cell if not isinstance(cell, str) else Name(cell) if index in wrap else piece(cell)
                      for index, cell in enumerate(row)))
    return out


MAX_LABEL = 12  # widest a side's label is shown in a column header (SHORT_LABEL where room is short)
SHORT_LABEL = 8  # (a change with its mark: ``+9.52pp✔``); ``labels.py`` shortens them


def tables(header: Sequence[str], rows: Sequence[Sequence[str]], right: Collection[int],
           width: int) -> list[RenderableType]:
    """``table`` of ``rows`` with its first column wrapping at spaces; wider than ``width``, it
    continues below (a blank line between), the first column repeated, so no number is cut."""
    size = [max(len(title), *(len(row[at]) for row in rows)) for at, title in enumerate(header)]
    first = max((len(word) for cell in [header[0], *(row[0] for row in rows)] for word in cell.split()), default=0)
    parts: list[list[int]] = [[0]]
    for at in range(1, len(header)):
        if len(parts[-1]) > 1 and first + sum(size[i] + 2 for i in parts[-1][1:]) + 2 + size[at] > width:
            parts.append([0])
        parts[-1].append(at)
    out: list[RenderableType] = []
    for part in parts:
        shown = table([header[at] for at in part], [[row[at] for at in part] for row in rows],
                      {part.index(at) for at in right if at in part}, {0})
        out += [Text(), shown] if out else [shown]
    return out


def fitted(header: Sequence[str], rows: Sequence[Sequence[str]], right: Collection[int], wrap: Collection[int],
           width: int) -> list[RenderableType]:
    """``table`` when its unwrapped columns, and the longest word of each wrapped one, fit ``width``;
    else one block per row: its first two cells, then the others as ``name value`` pairs on indented
    lines (each value named, as a block has no column header above it)."""
    least = [max(len(piece) for cell in [title, *(row[at] for row in rows)] for piece in
                 (cell.split() or [""] if at in wrap else [cell])) for at, title in enumerate(header)]
    if sum(least) + 2 * (len(header) - 1) <= width:
        return [table(header, rows, right, wrap)]
    out: list[RenderableType] = []
    for row in rows:
        packed: list[str] = []  # as many pairs a line as fit, never one split across two
        for name, cell in zip(header[2:], row[2:], strict=True):
            pair = f"{name or 'mark'} {cell}".strip()
            if cell and packed and len(packed[-1]) + 2 + len(pair) <= width - 4:
                packed[-1] += "  " + pair
            elif cell:
                packed.append(pair)
        out += [Wrapped("  ".join(cell for cell in row[:2] if cell)), *(Hanging("    ", line) for line in packed)]
    return out


def words(text: str, separators: str) -> list[str]:
    """``total_time/sample [ms]`` -> ``total_``, ``time/``, ``sample ``, ``[ms]``: pieces that end at
    a separator; a bracketed unit stays whole; a ``[`` no ``]`` follows is a piece of its own (a
    metric named ``a[b`` in an input file keeps its bracket)."""
    seps = re.escape(separators)
    return re.findall(rf"\[[^\]]*\][^{seps}]*[{seps}]*|[^{seps}\[]*[{seps}]+|[^{seps}\[]+|\[", text) or [text]


BREAKS = "_/- "  # a name or a label breaks after one of these (a file name's words: ``trn2-3xlarge-...``)


def fold(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width``, broken after ``_``, ``/``, ``-`` or a space; a word
    longer than the width (none of them in it) is cut as a last resort."""
    width = max(width, 1)
    if len(text) <= width:
        return [text]
    out = [""]
    for word in words(text, BREAKS):
        if out[-1] and len(out[-1]) + len(word.rstrip()) > width:  # a space may end a line
            out.append("")
        out[-1] += word
        if len(out[-1].rstrip()) > width:  # cut once into width-sized pieces (a megabyte name stays linear)
            long = out.pop()
            out += [long[start:start + width] for start in range(0, len(long), width)]
    return [part.rstrip() or part for part in out]


def wrapped(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width``, broken at spaces; a word longer than a line (a metric
    name, a path, a file's label) broken after ``_``, ``/`` or ``-`` (``fold``), cut only where it has none."""
    if len(text) <= width:
        return [text]
    import textwrap

    return [part for line in textwrap.wrap(text, max(width, 1), break_long_words=False, break_on_hyphens=False)
            or [""] for part in (fold(line, width) if len(line) > width else [line])]


class Wrapped:
    """A paragraph: rich gives it a width, it breaks as ``wrapped`` does; its measure is its longest
    word (or a word's piece) and its whole length."""

    def __init__(self, text: str, style: str = "") -> None:
        self.text, self.style = escape.text(text), style

    def lines(self, width: int) -> list[str]:
        return wrapped(self.text, width)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        longest = max(len(piece.rstrip()) for piece in words(self.text, BREAKS))
        return Measurement(min(longest, options.max_width), min(len(self.text), options.max_width))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield Text("\n".join(self.lines(options.max_width)), style=self.style)


class Hanging(Wrapped):
    """``lead`` (``1. ``, ``   impact: ``) then a paragraph, its later lines indented under it."""

    def __init__(self, lead: str, text: str, style: str = "") -> None:
        super().__init__(text, style)
        self.lead = escape.text(lead)

    def lines(self, width: int) -> list[str]:
        first, *rest = wrapped(self.text, max(width - len(self.lead), 1))
        return [self.lead + first, *(" " * len(self.lead) + line for line in rest)]


class Indented(Wrapped):
    """A paragraph whose later lines are indented two spaces, so each note of a listing (the store's
    commands, ``ops``) reads as one."""

    def lines(self, width: int) -> list[str]:
        first, *later = wrapped(self.text, width)
        if not later:
            return [first]
        rest = self.text[len(first):].lstrip(" ") if self.text.startswith(first) else " ".join(later)
        return [first, *("  " + line for line in wrapped(rest, max(width - 2, 1)))]


def height(renderables: Sequence[RenderableType], width: int) -> int:
    """The lines paragraphs and lines of text (a blank one, a table's row laid out to fit) take at
    ``width``, without drawing them."""
    total = 0
    for item in renderables:
        if isinstance(item, Wrapped):
            total += len(item.lines(width))
        elif isinstance(item, Text) and "\n" not in item.plain:
            total += 1
        else:
            raise TypeError(f"height: a {type(item).__name__} is no paragraph or line")
    return total


class Name(Wrapped):
    """A metric's or an operator's name in a table: broken after any ``_``, ``/`` or space that fills
    the line best (``fold``), not first at spaces as a paragraph is."""

    def lines(self, width: int) -> list[str]:
        return fold(self.text, width)


def console(width: int | None = None, no_color: bool = False, file: io.StringIO | None = None) -> Console:
    """rich's console for standard output (``file``: plain text into it), ``--no-color`` honoured."""
    plain = file is not None or no_color
    return Console(width=width, file=file, color_system=None if plain else "auto",
                   force_terminal=False if file is not None else None, highlight=False, emoji=False, markup=False)


def _stripped(out: Console, renderables: Sequence[RenderableType]) -> list[list[Segment]]:
    """The lines rich renders, each without the blanks at its end (a table pads every cell)."""
    rendered = out.render_lines(Group(*renderables), pad=False)
    for line in rendered:
        while line and not line[-1].control and not line[-1].text.rstrip():
            line.pop()
        if line:
            line[-1] = Segment(line[-1].text.rstrip(), line[-1].style, line[-1].control)
    return rendered


def text(renderables: Sequence[RenderableType], width: int) -> str:
    """The renderables as plain text ``width`` wide."""
    out = console(width, file=io.StringIO())
    return "".join("".join(segment.text for segment in line) + "\n" for line in _stripped(out, renderables))


def printed(renderables: Sequence[RenderableType], out: Console) -> None:
    """The renderables to ``out`` (``console``), in colour where it writes colour."""
    segments = [segment for line in _stripped(out, renderables) for segment in (*line, Segment.line())]
    out.print(Segments(segments), crop=False, soft_wrap=True)
