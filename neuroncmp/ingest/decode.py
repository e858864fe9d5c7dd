"""Bytes on disk to text and JSON, with errors that name the file and the place."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..errors import InputError, ParseError

HEAD_BYTES = 65536  # what sniffing looks at


def read_text(path: Path) -> str:
    """The file as text; empty files and binary data are errors naming the file."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror}") from None
    if not data.strip():
        raise ParseError(str(path), "whole file", "a Neuron profile", "an empty file")
    nul = data.find(b"\0", 0, HEAD_BYTES)
    if nul >= 0:
        raise ParseError(str(path), f"byte {nul}", "UTF-8 text", "binary data (a NUL byte)")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ParseError(str(path), f"byte {exc.start}", "UTF-8 text", "binary data") from None


def loads(text: str, path: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ParseError(path, f"line {exc.lineno} column {exc.colno}", "valid JSON",
                         exc.msg) from None


def head_is_json_object(head: str) -> bool:
    return head.lstrip().startswith("{")
