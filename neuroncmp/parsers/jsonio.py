"""JSON decoding with errors that name the file and the place."""

from __future__ import annotations

import json
from typing import Any

from ..errors import ParseError


def loads(text: str, path: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ParseError(path, f"line {exc.lineno} column {exc.colno}", "valid JSON",
                         exc.msg) from None


def head_is_json_object(head: str) -> bool:
    return head.lstrip().startswith("{")
