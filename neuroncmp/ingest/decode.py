"""Bytes on disk to text and JSON, within limits, with errors that name the file and the place.

Only regular files are read: a FIFO would block, ``/dev/zero`` never ends, so both are refused
before a byte is read (the file is opened non-blocking and checked again after opening). Size,
JSON nesting and value counts are bounded by limits read from the environment when an input is read
(``SETTINGS``; docs/limits.md), so a caller raises one for one run; an input beyond one is refused before
the work it would cost, with a ``LimitError`` naming the variable. JSON numbers too large for a float
(``1e400``, a 5,000-digit integer) decode to an infinity, which validation flags; an object that
names a key twice keeps the first value and remembers the others (``JsonObject.repeated``).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from itertools import accumulate
from pathlib import Path
from typing import Any

from ..errors import InputError, LimitError, ParseError, UsageError
from ..escape import quote
from ..paths import file_kind
from ..units import plain_number

# name -> (default, the limit's unit, what it bounds)
SETTINGS = {
    "NEURONCMP_MAX_INPUT_MB": (64, " MiB", "the size of one input file"),
    "NEURONCMP_MAX_JSON_DEPTH": (64, " levels", "the nesting of a JSON input"),
    "NEURONCMP_MAX_VALUES": (100_000, " values", "one input (JSON object members, or text lines)"),
}


def setting(name: str) -> int:
    """The limit ``name`` (a key of ``SETTINGS``): the environment's value, else the default."""
    default = SETTINGS[name][0]
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    if not text.isascii() or not text.isdigit() or int(text) < 1:
        raise UsageError(f"{name}={text[:40]!r}: expected a whole number >= 1 (default {default})")
    return int(text)


def max_input_bytes() -> int:
    return setting("NEURONCMP_MAX_INPUT_MB") * 1024 * 1024


def exceeded(path: object, name: str, found: str) -> LimitError:
    """The error for an input beyond limit ``name``: what was found, the limit, how to raise it."""
    _, unit, what = SETTINGS[name]
    return LimitError(f"{quote(path)}: {found}, beyond the limit of {setting(name):,}{unit} on {what}; "
                      f"set {name} to raise it")


HEAD_BYTES = 65536  # what sniffing looks at
_BOMS = ((b"\xff\xfe\x00\x00", "utf-32"), (b"\x00\x00\xfe\xff", "utf-32"), (b"\xef\xbb\xbf", "utf-8-sig"),
         (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16"))
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)


def check_regular(path: Path) -> None:
    """An InputError unless ``path`` is a regular file (symlinks followed) within the size limit."""
    try:
        info = os.stat(path)
    except OSError as exc:
        raise InputError(f"{quote(path)}: cannot read: {_reason(exc)}") from None
    kind = file_kind(info.st_mode)
    if kind is not None:
        raise InputError(f"{quote(path)}: {kind}, not a regular file; neuroncmp reads only files "
                         "and folders")
    if info.st_size > max_input_bytes():
        raise exceeded(path, "NEURONCMP_MAX_INPUT_MB", f"{info.st_size:,} bytes")


def read_bytes(path: Path) -> bytes:
    """The bytes of a regular file, at most the input size limit."""
    check_regular(path)
    limit = max_input_bytes()
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError as exc:
        raise InputError(f"{quote(path)}: cannot read: {_reason(exc)}") from None
    try:
        info = os.fstat(fd)
        if file_kind(info.st_mode) is not None:  # swapped for a FIFO since the check
            raise InputError(f"{quote(path)}: not a regular file; neuroncmp reads only files and folders")
        try:
            data = _read_at_most(fd, limit + 1, info.st_size)
        except OSError as exc:
            raise InputError(f"{quote(path)}: cannot read: {_reason(exc)}") from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise exceeded(path, "NEURONCMP_MAX_INPUT_MB", f"more than {limit:,} bytes")
    return data


_CHUNK = 1 << 20  # the most one read asks for past the file's size (each read allocates what it asks)


def _read_at_most(fd: int, count: int, size: int) -> bytes:
    """At most ``count`` bytes, to the end of the file: its ``size`` (+1) first, without a buffer
    of ``count`` bytes (64 MiB by default); the rest only if it grew."""
    chunks = [os.read(fd, min(count, size + 1))]
    got = len(chunks[0])
    while chunks[-1] and got < count:
        chunks.append(os.read(fd, min(count - got, _CHUNK)))
        got += len(chunks[-1])
    return b"".join(chunks)


def _reason(exc: OSError) -> str:
    return (exc.strerror or type(exc).__name__).lower()


def read_text(path: Path) -> str:
    """The file as text (UTF-8, or UTF-16/32 with a byte-order mark); empty and binary files are
    errors naming the file."""
    text = _decode(read_bytes(path), path)
    if not text or text.isspace():  # as "not text.strip()", without copying the text
        raise ParseError(str(path), "whole file", "a Neuron profile", "an empty file")
    nul = text.find("\0", 0, HEAD_BYTES)
    if nul >= 0:
        raise ParseError(str(path), f"character {nul}", "text", "binary data (a NUL byte)")
    lines = text.count("\n")
    if lines >= setting("NEURONCMP_MAX_VALUES"):
        raise exceeded(path, "NEURONCMP_MAX_VALUES", f"{lines:,} lines")
    return text


def _decode(data: bytes, path: Path) -> str:
    encoding = next((name for bom, name in _BOMS if data.startswith(bom)), "utf-8")
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise ParseError(str(path), f"byte {exc.start}", f"{encoding.upper().removesuffix('-SIG')} text",
                         "binary data") from None


class JsonObject(dict[str, Any]):
    """A decoded JSON object that named a key twice with different values: the first is kept,
    the others listed in ``repeated`` as (key, kept value, ignored value)."""

    __slots__ = ("repeated",)

    def __init__(self, pairs: list[tuple[str, Any]]) -> None:
        super().__init__()
        self.repeated: list[tuple[str, Any, Any]] = []
        for key, value in pairs:
            if key not in self:
                self[key] = value
            elif self[key] != value:
                self.repeated.append((key, self[key], value))


def repeated(obj: Any) -> list[tuple[str, Any, Any]]:
    """The keys ``obj`` (a decoded JSON object) named twice with different values."""
    return obj.repeated if isinstance(obj, JsonObject) else []


def loads(text: str, path: str, seen: list[int] | None = None) -> Any:
    """JSON within the depth and value limits; errors name the line and column. Documents
    decoded from one file (JSON lines) share one count of values through ``seen``."""
    _check_depth(text, path)
    try:
        return json.loads(text, object_pairs_hook=_objects(path, [0] if seen is None else seen),
                          parse_int=plain_number)
    except json.JSONDecodeError as exc:
        if exc.msg == "Extra data":  # two documents in a row: this format reads one per file
            raise ParseError(path, f"line {exc.lineno} column {exc.colno}", "one JSON document "
                             "(this format reads one per file)", "the start of a second one") from None
        raise ParseError(path, f"line {exc.lineno} column {exc.colno}", "valid JSON",
                         exc.msg) from None
    except RecursionError:  # the depth limit was raised above what the decoder can nest
        raise exceeded(path, "NEURONCMP_MAX_JSON_DEPTH", "JSON nested too deep to decode") from None


_SPACE = re.compile(r"[ \t\n\r]*")


def documents(text: str, path: str) -> list[tuple[int, Any]]:
    """Every JSON document in ``text`` with the line it starts on: one, or several one after
    another (two ``view`` outputs saved in one log). Every object goes through the hook (first
    value of a repeated key kept, members counted against the limit, one count for all the
    documents), every integer through ``units.plain_number``; an error names the line and column
    in the whole text."""
    _check_depth(text, path)
    decoder = _decoder(path)
    found: list[tuple[int, Any]] = []
    index = skip_space(text, 0)
    while not found or index < len(text):
        try:
            value, end = decoder.raw_decode(text, index)
        except json.JSONDecodeError as exc:
            raise ParseError(path, f"line {exc.lineno} column {exc.colno}", "valid JSON", exc.msg) from None
        except RecursionError:
            raise exceeded(path, "NEURONCMP_MAX_JSON_DEPTH", "JSON nested too deep to decode") from None
        found.append((text.count("\n", 0, index) + 1, value))
        index = skip_space(text, end)
    return found


def _decoder(path: str) -> json.JSONDecoder:
    return json.JSONDecoder(object_pairs_hook=_objects(path, [0]), parse_int=plain_number)


def sections(text: str, path: str, keep: frozenset[str], index: int = 0,
             on_drop: Callable[[str, Any], None] | None = None) -> tuple[dict[str, Any], dict[str, int], int]:
    """The JSON object starting at ``index``, member by member: the members named in ``keep``
    decoded as ``loads`` does (limits, first value of a repeated key), every other one decoded
    by the plain C decoder and dropped at once, only its size kept (rows of a list, members of
    an object); ``on_drop(name, value)`` sees each dropped member first (a caller that sums a
    few fields of a large section keeps the sums, not the rows). Returns (kept, dropped sizes,
    the index after the object): a view JSON's per-instruction sections are most of its bytes and
    are not read now. The depth limit applies to the kept members (a dropped one nested beyond
    what the decoder can is refused as well)."""
    decoder = _decoder(path)
    kept: dict[str, Any] = {}
    dropped: dict[str, int] = {}
    try:
        index = _expect(text, skip_space(text, index), "{")
        while text[index:index + 1] != "}":
            if text[index:index + 1] != '"':
                raise json.JSONDecodeError("Expecting property name enclosed in double quotes", text, index)
            key, index = _PLAIN.raw_decode(text, index)  # a JSON string: the member's name
            index = skip_space(text, _expect(text, skip_space(text, index), ":"))
            if key in keep:  # small: its depth checked on its own text, then decoded with limits
                _check_depth(text[index:_PLAIN.raw_decode(text, index)[1]], path)
                value, index = decoder.raw_decode(text, index)
                kept.setdefault(key, value)
            else:
                value, index = _PLAIN.raw_decode(text, index)
                dropped[key] = len(value) if isinstance(value, (list, dict)) else 1
                if on_drop is not None:
                    on_drop(key, value)
            index = skip_space(text, index)
            if text[index:index + 1] == ",":
                index = skip_space(text, index + 1)
            elif text[index:index + 1] != "}":
                raise json.JSONDecodeError("Expecting ',' delimiter", text, index)
    except json.JSONDecodeError as exc:
        raise ParseError(path, f"line {exc.lineno} column {exc.colno}", "valid JSON", exc.msg) from None
    except RecursionError:
        raise exceeded(path, "NEURONCMP_MAX_JSON_DEPTH", "JSON nested too deep to decode") from None
    return kept, dropped, index + 1


def _expect(text: str, index: int, char: str) -> int:
    if text[index:index + 1] != char:
        raise json.JSONDecodeError(f"Expecting '{char}'", text, index)
    return index + 1


def skip_space(text: str, index: int) -> int:
    match = _SPACE.match(text, index)
    return match.end() if match else index


def _objects(path: str, seen: list[int]) -> Callable[[list[tuple[str, Any]]], dict[str, Any]]:
    """The object hook of one decode: counts members against the limit, keeps first values."""
    limit = setting("NEURONCMP_MAX_VALUES")

    def build(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        seen[0] += len(pairs)
        if seen[0] > limit:
            raise exceeded(path, "NEURONCMP_MAX_VALUES", f"more than {limit:,} JSON values")
        made = dict(pairs)
        return made if len(made) == len(pairs) else JsonObject(pairs)
    return build


# No object hook, integers read by float (C, and never refused for length): for sections that are
# only counted, and for member names.
_PLAIN = json.JSONDecoder(parse_int=float)


_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)  # unrolled: linear, no backtracking
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def _check_depth(text: str, path: str) -> None:
    """Refuse JSON nested deeper than the limit before the decoder recurses into it."""
    limit = setting("NEURONCMP_MAX_JSON_DEPTH")
    if text.count("[") + text.count("{") <= limit:
        return  # cannot be deeper than the number of openings
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    depth = max(accumulate(map(_STEP.__getitem__, brackets)), default=0)
    if depth > limit:
        raise exceeded(path, "NEURONCMP_MAX_JSON_DEPTH", f"JSON nested {depth:,} deep")


def head_is_json_object(head: str) -> bool:
    return head.lstrip().startswith("{")
