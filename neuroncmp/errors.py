"""The exception hierarchy and the exit code each maps to (``exit_code``).

The library raises these and never exits. The CLI's single error boundary (``cli.app``) turns
them into one-line messages and these exit codes. What each code means to a user is written in
one place only, the "Exit codes" page (docs/exit-codes.md); ``tests/test_docs.py`` checks that table against
the classes here.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from .escape import clip, quote

EXIT_OK, EXIT_INPUT, EXIT_USAGE, EXIT_GATE = 0, 1, 2, 3


class NeuroncmpError(Exception):
    """Base class for every error neuroncmp raises on purpose."""

    exit_code = EXIT_INPUT


class InputError(NeuroncmpError):
    """An input could not be read or used (missing file, unknown format, bad content)."""


class ParseError(InputError):
    """An input file could not be parsed: names the file, the place and what was expected.

    The message is one line whatever the input holds: the path is quoted, and the place and
    what was found are escaped and cut short (``escape.py``).
    """

    def __init__(self, path: str, where: str, expected: str, found: str | None = None) -> None:
        self.path, self.where, self.expected, self.found = str(path), where, expected, found
        message = f"{quote(self.path)}: {clip(where, 120)}: expected {clip(expected, 200)}"
        if found is not None:
            message += f", found {clip(found)}"
        super().__init__(message)


class LimitError(InputError):
    """An input is beyond a limit (size, nesting, values); the message names the setting to raise."""


class UnknownFormatError(InputError):
    """The format of a file could not be recognised, or a forced format name is unknown."""


class NoProfileError(ParseError, UnknownFormatError):
    """No input format found a profile in a file: the message names what each one looked for
    (a parse error of the whole file, and a format that could not be recognised)."""

    def __init__(self, path: str, looked_for: str) -> None:
        self.path, self.where, self.found = str(path), "whole file", "none"
        self.expected = f"a Neuron profile; looked for {looked_for}"
        InputError.__init__(self, f"{quote(self.path)}: no Neuron profile found in it (text around a "
                            f"profile is allowed); looked for {looked_for}. Force a format with "
                            "--format-in NAME if it is one")


class MissingDependencyError(InputError):
    """An optional extra (pyarrow, matplotlib, ...) is needed but not installed."""


def optional(module: str, needs: str) -> Any:
    """The optional extra's ``module``, imported when first needed; else ``needs`` (who needs which
    extra and how to install it) as a ``MissingDependencyError``."""
    try:
        return import_module(module)
    except ImportError:
        raise MissingDependencyError(needs) from None


class OutputError(NeuroncmpError):
    """The output file could not be written (exit 1); the message names the target, not a temp file."""


class UsageError(NeuroncmpError):
    """An option is malformed or names something that does not exist (exit 2)."""

    exit_code = EXIT_USAGE


class RuleError(UsageError):
    """A ``--fail-on`` rule or a ``--threshold`` band is malformed."""


class GateTripped(NeuroncmpError):
    """At least one ``--fail-on`` gate tripped; raised by the CLI after the report is written."""

    exit_code = EXIT_GATE
