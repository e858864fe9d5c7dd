"""Escaping for every place neuroncmp prints text it did not write itself: the one module for it.

Metric names, labels, section titles, notes, versions and paths come from input files, and an input
file can hold anything (terminal escape codes, newlines, right-to-left overrides, lone surrogates,
``=HYPERLINK(...)``, ``<script>``): each output escapes them its own way, one function per output
(docs/limits.md, "What is printed").
"""

from __future__ import annotations

import re
from typing import Any

_ACTIVE = ("Cc", "Cf", "Cs", "Zl", "Zp")  # Unicode categories escaped by ``text``
_FORMULA_START = ("=", "+", "-", "@")  # (a tab or carriage return is escaped first)
# Markdown: code spans, table cells and links break on these; ``<`` opens raw HTML only before a
# letter, ``/``, ``!`` or ``?`` and ``&`` an entity only before a letter or ``#`` (CommonMark),
# so ``<-2pp`` and ``a & b`` stay as they are.
_MARKDOWN = re.compile(r"[\\`|\[\]]|<(?=[A-Za-z/!?])|&(?=[A-Za-z#])")
_MARKDOWN_AS = {"<": "&lt;", "&": "&amp;"}


def text(value: object) -> str:
    """``value`` as text with every character a terminal would act on as its backslash escape:
    controls, format characters (bidi overrides, zero-width joiners), line and paragraph
    separators, lone surrogates. Spaces of any width are kept."""
    string = value if isinstance(value, str) else str(value)
    if string.isprintable():  # the common case, at C speed
        return string
    from unicodedata import category

    return "".join(ch.encode("unicode_escape").decode("ascii") if not ch.isprintable() and category(ch) in _ACTIVE
                   else ch for ch in string)


def quote(path: object) -> str:
    """A path for a message: ``'dir/file.json'``, control characters escaped."""
    return f"'{text(path)}'"


def clip(value: object, limit: int = 80) -> str:
    """``text(value)`` cut to ``limit`` characters (with ``...``): what a one-line message quotes."""
    shown = text(value)
    return shown if len(shown) <= limit else shown[: limit - 3] + "..."


def csv_cell(value: Any) -> Any:
    """A CSV cell: numbers as they are, ``None`` empty; text with control characters escaped (a
    bare carriage return splits a row in most readers) and, when a spreadsheet would run it as a
    formula, behind a leading apostrophe (a negative number written as text stays a number)."""
    if value is None:
        return ""
    if not isinstance(value, str):
        return value
    value = text(value)
    return "'" + value if value.startswith(_FORMULA_START) and not _is_number(value) else value


def _is_number(value: str) -> bool:
    try:
        float(value)
    except ValueError:
        return False
    return value.strip() == value and value[1:2] in tuple("0123456789.")


def markdown(value: object) -> str:
    """Text for a Markdown table cell or line: no HTML, links, code spans or cell breaks."""
    return _MARKDOWN.sub(lambda m: _MARKDOWN_AS.get(m.group(), "\\" + m.group()), text(value))


def markdown_code(value: object) -> str:
    """Text as a Markdown code span: fenced with more backticks than it holds, pipes escaped
    (GitHub splits table cells on ``|`` even inside code)."""
    shown = text(value).replace("|", "\\|")
    if "`" not in shown:
        return f"`{shown}`"
    fence = "`" * (max(len(run) for run in re.findall("`+", shown)) + 1)
    return f"{fence} {shown} {fence}"


def html(value: object) -> str:
    """Text for HTML content or a quoted attribute (``& < > " '`` as entities)."""
    from html import escape  # here: only the HTML views need it

    return escape(text(value), quote=True)
