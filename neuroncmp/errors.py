"""Exception hierarchy.

The library raises these and never exits; only ``cli.main`` turns them into exit codes, so
"the tool could not read this" (exit 2) stays distinct from "a gate tripped" (exit 3).
"""

from __future__ import annotations


class NeuroncmpError(Exception):
    """Base class for every error neuroncmp raises on purpose."""


class ParseError(NeuroncmpError):
    """An input file could not be read: names the file, the place and what was expected."""

    def __init__(self, path: str, where: str, expected: str, found: str | None = None) -> None:
        self.path, self.where, self.expected, self.found = str(path), where, expected, found
        message = f"{self.path}: {where}: expected {expected}"
        if found is not None:
            message += f", found {found}"
        super().__init__(message)


class UnknownFormatError(NeuroncmpError):
    """The format of a file could not be recognised, or a forced format name is unknown."""


class MissingDependencyError(NeuroncmpError):
    """An optional extra (pyarrow, matplotlib, ...) is needed but not installed."""


class RuleError(NeuroncmpError):
    """A ``--fail-on`` rule or another user option is malformed."""
