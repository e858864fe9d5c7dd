"""Input limits: how much neuroncmp agrees to read, and the environment variables that raise them.

Every limit is read from the environment when an input is read (docs/limits.md),
so a caller raises one for one run: ``NEURONCMP_MAX_INPUT_MB=200 neuroncmp show big.json``.
An input beyond a limit is refused before the work it would cost, with a ``LimitError`` that
names the limit and the variable.
"""

from __future__ import annotations

import os

from ..errors import LimitError, UsageError
from ..escape import quote

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
