"""A profile inside the text around it: found by content, whatever the file is called.

``unwrap(text)`` returns the text with everything that is not profile content *blanked* (its
line replaced by an empty line, so every later error still names the right line) and the
blanked lines as ``Skipped`` runs (``lines 1-3``). What is set aside, and when: docs/formats.md
("Text around a profile").

The common case costs two string scans: a text that starts with ``{`` and ends with ``}`` and
has no line that could not be part of JSON is returned as it is.
"""

from __future__ import annotations

import json
import re
from typing import NamedTuple

from ..model import Skipped
from ..units import counted

# Patterns are compiled on first use (through re's cache), not at import: most runs read clean
# files and need two of them; a cold CLI start pays for every pattern compiled at import.
_ANSI = r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"
# A line that may not be part of a JSON document: one that starts with neither indentation nor a
# bracket or a string, as every line of a pretty-printed or compact (JSON lines) document does.
# Conservative on purpose: a document written without indentation also goes the slow way, which
# reads it just as well; a regular expression with a literal first character is the fast scan.
_MAYBE_NOT_JSON = r'\n[^ \t\r\n\[\]{}"]'
# A line that may be one to set aside; only a text holding one (or a "{") is scanned line by
# line, so a plain text profile costs one search.
_MAYBE_MARKED = r"(?im)^[ \t]*(?:time=|level=|command|cmd|stdout|stderr|exit|return|[a-z]{4}\[\d)"
# Lines that are never profile content: logrus-style tool logs (neuron-profile, neuron-explorer),
# as written to a file (time="..." level=info msg="...") or to a terminal (ERRO[0000] message
# key=value), and the section headers of runner scripts.
_LOG_LINE = (r'^[ \t]*(?:(?:time="[^"]*"[ \t]+)?level=[A-Za-z]+\b'
             r'|(?:INFO|WARN|ERRO|DEBU|FATA|PANI|TRAC)\[\d+\])')
_WARNING = (r'(?i)^[ \t]*(?:time="[^"]*"[ \t]+)?level=(?:warn|warning|error|fatal)[ \t]+'
            r'msg=(?:"((?:[^"\\]|\\.)*)"|(\S+))')
_TTY_WARNING = r"^[ \t]*(?:WARN|ERRO|FATA)\[\d+\][ \t]+(.*?)(?:[ \t]{2,}\w+=.*)?$"  # message, then fields
_HEADER = (r"(?i)^[ \t]*(?:COMMAND|CMD|STDOUT|STDERR|EXIT[ _]?CODE|RETURN[ _]?CODE|"
           r"EXIT[ _]?STATUS)[ \t]*:")
# A JSON document may follow a label on its own line: ``STDOUT: {"n_...": {...}}``.
_LABELLED_JSON = r"^[ \t]*[A-Za-z][\w .-]{0,40}:[ \t]*(?=\{)"
# Plain C decoding, only to find where a document ends (an integer of 5,000 digits would exceed
# Python's int-conversion limit: its value does not matter here).
_DECODER = json.JSONDecoder(parse_int=lambda digits: 0)


class Unwrapped(NamedTuple):
    """The profile's text (other lines blanked) and what was blanked."""

    text: str
    skipped: tuple[Skipped, ...]
    warnings: tuple[str, ...] = ()  # what the tool's level=warning / level=error lines say


def unwrap(text: str) -> Unwrapped:
    """``text`` with the lines around the profile blanked (see the module's docstring)."""
    text = _clean(text)
    if _bare_json(text) or _plain_text(text):
        return Unwrapped(text, ())
    lines = text.split("\n")
    spans = _json_spans(text, lines)
    if _broken_json(lines, spans):
        return Unwrapped(text, ())  # the JSON parser names where the document breaks
    if spans:
        return _keep_json(lines, spans)
    return _drop_marked(lines)


def _broken_json(lines: list[str], spans: list[tuple[int, int, int]]) -> bool:
    """Whether the text starts as a JSON object that does not decode (cut short, a stray comma):
    such a file is a damaged profile, not a profile inside other text."""
    first = next((i for i, line in enumerate(lines) if line.strip()), 0)
    return lines[first].lstrip().startswith("{") and not (spans and spans[0][0] == first)


def _clean(text: str) -> str:
    """Colour codes, byte-order marks inside the text (after ``STDOUT:``) and CRs removed."""
    if "\x1b" in text:
        text = re.sub(_ANSI, "", text)
    if "\ufeff" in text:
        text = text.replace("\ufeff", "")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def _bare_json(text: str) -> bool:
    """Starts with { or [, ends with } or ], no line between that may not be JSON (the text is
    not copied: inputs reach tens of megabytes)."""
    first, end = first_content(text), len(text)
    while end > first and text[end - 1] in " \t\r\n":
        end -= 1
    if text[first:first + 1] not in ("{", "[") or text[end - 1:end] not in ("}", "]"):
        return False
    if text.find("\n", first, end) < 0:
        return True  # one line (a view JSON's usual form): a one-character search
    if text.find("\n{", first, end) < 0 and text.count("\n}", first, end) <= 1:
        return True  # one document (pretty-printed or on one line): no line between documents
    return re.compile(_MAYBE_NOT_JSON).search(text, first, end) is None


_SPACE = re.compile(r"[ \t\r\n\f\v]*")  # compiled here: used on every file


def first_content(text: str) -> int:
    """The index of the first character that is not white space (``len(text)`` if none)."""
    match = _SPACE.match(text)
    return match.end() if match else 0


def _plain_text(text: str) -> bool:
    """No JSON object and no line to set aside can be in it."""
    if "{" in text:
        return False
    # every line to set aside holds "=" (level=), ":" (COMMAND:) or "[" (ERRO[0000]): one-character
    # searches are much cheaper than the pattern, and most text profiles have none of them
    return not ("=" in text or ":" in text or "[" in text) or re.search(_MAYBE_MARKED, text) is None


def _json_spans(text: str, lines: list[str]) -> list[tuple[int, int, int]]:
    """(first line, last line, columns of label before the ``{``) of each JSON object that
    starts a line (or follows a ``LABEL:``) and decodes to a non-empty object."""
    spans: list[tuple[int, int, int]] = []
    number = 0
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    while number < len(lines):
        line = lines[number]
        offset = starts[number]
        start = _object_start(line)
        end = _object_end(text, offset + start) if start >= 0 else None
        if end is None or text[end:starts[_line_of(starts, end) + 1] - 1].strip():
            number += 1
            continue
        last = _line_of(starts, end - 1)
        spans.append((number, last, start))
        number = last + 1
    return spans


def _object_start(line: str) -> int:
    """Column of the ``{`` that opens a document on this line, or -1."""
    stripped = line.lstrip()
    if stripped.startswith("{"):
        return len(line) - len(stripped)
    label = re.match(_LABELLED_JSON, line)
    return label.end() if label and not re.match(_LOG_LINE, line) else -1


def _object_end(text: str, index: int) -> int | None:
    try:
        value, end = _DECODER.raw_decode(text, index)
    except (ValueError, RecursionError):
        return None
    return end if isinstance(value, dict) and value else None


def _line_of(starts: list[int], index: int) -> int:
    """The line number (0-based) holding character ``index``."""
    from bisect import bisect_right  # here: only text around a profile needs it

    return bisect_right(starts, index) - 1


def _keep_json(lines: list[str], spans: list[tuple[int, int, int]]) -> Unwrapped:
    keep = [False] * len(lines)
    out = list(lines)
    for first, last, label in spans:
        keep[first:last + 1] = [True] * (last - first + 1)
        out[first] = " " * label + lines[first][label:]  # columns kept: errors name the right one
    return _blank(lines, out, keep)


def _drop_marked(lines: list[str]) -> Unwrapped:
    keep = [not (re.match(_LOG_LINE, line) or re.match(_HEADER, line)) for line in lines]
    return _blank(lines, list(lines), keep)


def _blank(lines: list[str], out: list[str], keep: list[bool]) -> Unwrapped:
    """Blank the lines not kept and list each run of them that has text as one Skipped."""
    skipped: list[Skipped] = []
    run: list[int] = []
    for number, line in enumerate(lines):
        if keep[number]:
            skipped += _run(lines, run)
            run = []
            continue
        out[number] = ""
        if line.strip():
            run.append(number)
    skipped += _run(lines, run)
    warned = tuple(_message(m) for number, line in enumerate(lines)
                   if not keep[number] and (m := re.match(_WARNING, line) or re.match(_TTY_WARNING, line)))
    return Unwrapped("\n".join(out), tuple(skipped), warned)


def _message(match: re.Match[str]) -> str:
    quoted = match.group(1)
    if match.re.groups == 1:  # the terminal form: the message as written
        return quoted.strip()
    return quoted.replace('\\"', '"').replace("\\\\", "\\") if quoted is not None else match.group(2)


def _run(lines: list[str], run: list[int]) -> list[Skipped]:
    if not run:
        return []
    first, last = run[0] + 1, run[-1] + 1
    where = f"line {first}" if len(run) == 1 else f"lines {first}-{last}"
    what = _kind(lines[run[0]])
    return [Skipped(where, lines[run[0]].strip()[:80],
                    f"{counted(len(run), 'line')} around the profile ({what})")]


def _kind(line: str) -> str:
    if re.match(_LOG_LINE, line):
        return "tool log"
    if re.match(_HEADER, line):
        return "runner output"
    return "other text"
