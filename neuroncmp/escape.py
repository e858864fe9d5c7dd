"""Escaping for every place neuroncmp prints text it did not write itself: the one module for it.

Metric names, labels, section titles, notes, versions and paths come from input files, and an
input file can hold anything: terminal escape codes, newlines, right-to-left overrides, lone
surrogates, ``=HYPERLINK(...)``, ``<script>``. Each output escapes them its own way:

- ``text``: terminals and one-line messages; characters Python does not call printable
  (controls, newlines, format characters such as U+202E, lone surrogates) become their
  backslash escapes (``\\x1b``, ``\\n``, ``\\u202e``), so what is shown is what the file holds.
- ``quote``: a path in a message, ``'like this'``, escaped as ``text``.
- ``csv_cell``: a text cell starting with ``= + - @`` (or a tab or carriage return) gets a leading
  apostrophe, as spreadsheets expect, so it is never run as a formula; numbers stay numbers.
- ``markdown`` and ``html``: the characters that would change the markup.
"""

from __future__ import annotations

from typing import Any

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
# Order matters: the escape characters themselves first.
_MARKDOWN = (("&", "&amp;"), ("\\", "\\\\"), ("`", "\\`"), ("|", "\\|"), ("[", "\\["), ("]", "\\]"),
             ("<", "&lt;"), (">", "&gt;"))
_HTML = (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ('"', "&quot;"), ("'", "&#x27;"))


def text(value: object) -> str:
    """``value`` as text with every non-printable character as its backslash escape."""
    string = value if isinstance(value, str) else str(value)
    if string.isprintable():  # the common case, at C speed
        return string
    return "".join(ch if ch.isprintable() else _escape_char(ch) for ch in string)


def _escape_char(ch: str) -> str:
    code = ord(ch)
    if ch in "\n\r\t":
        return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}[ch]
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def quote(path: object) -> str:
    """A path for a message: ``'dir/file.json'``, control characters escaped."""
    return f"'{text(path)}'"


def clip(value: object, limit: int = 80) -> str:
    """``text(value)`` cut to ``limit`` characters (with ``...``): what a one-line message quotes."""
    shown = text(value)
    return shown if len(shown) <= limit else shown[: limit - 3] + "..."


def csv_cell(value: Any) -> Any:
    """A CSV cell: numbers as they are, ``None`` empty, text that a spreadsheet would run as a
    formula behind a leading apostrophe (a negative number written as text stays a number)."""
    if value is None:
        return ""
    if not isinstance(value, str) or not value.startswith(_FORMULA_START) or _is_number(value):
        return value
    return "'" + value


def _is_number(value: str) -> bool:
    try:
        float(value)
    except ValueError:
        return False
    return value.strip() == value and value[1:2] in tuple("0123456789.")


def markdown(value: object) -> str:
    """Text for a Markdown table cell or line: no HTML, links, code spans or cell breaks."""
    return _replace(text(value), _MARKDOWN)


def html(value: object) -> str:
    """Text for HTML content or a quoted attribute."""
    return _replace(text(value), _HTML)


def _replace(shown: str, pairs: tuple[tuple[str, str], ...]) -> str:
    for old, new in pairs:
        if old in shown:
            shown = shown.replace(old, new)
    return shown
