"""Plain tables as Markdown and HTML, every cell escaped: the one writer of each for every command."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence

from ..escape import html, markdown


def markdown_row(cells: Iterable[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def markdown_table(head: Sequence[str], rows: Iterable[Sequence[str]], right: Collection[int] = (),
                   cell: Callable[[str], str] = markdown) -> list[str]:
    """A GitHub table, the columns in ``right`` right-aligned; ``cell`` escapes each cell (``str``:
    the caller has)."""
    rule = "".join("---:|" if at in right else "---|" for at in range(len(head)))
    return [markdown_row(map(cell, head)), "|" + rule, *(markdown_row(map(cell, row)) for row in rows)]


def html_table(head: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    cells = "".join(f"<th>{html(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{html(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{cells}</tr></thead><tbody>{body}</tbody></table>"
