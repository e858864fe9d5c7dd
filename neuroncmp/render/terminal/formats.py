"""``neuroncmp formats`` in the terminal: the input and output formats, each described beside it."""

from __future__ import annotations

from typing import Any

from rich.console import RenderableType
from rich.text import Text

from .metrics import described


def formats(report: Any, width: int) -> list[RenderableType]:
    """The input formats, then the output formats, in one set of columns."""
    inputs = [[p.name, "directory" if p.reads_directory else " ".join(p.suffixes), p.description]
              for p in report.parsers]
    outputs = [[r.name, " ".join(r.extensions), r.description] for r in report.renderers]
    sizes = [max(len(row[at]) for row in inputs + outputs) for at in range(2)]

    def listed(rows: list[list[str]]) -> list[RenderableType]:
        return described(["", "", ""], [[row[0].ljust(sizes[0]), row[1].ljust(sizes[1]), row[2]] for row in rows],
                         width, set())

    return [*listed(inputs), Text(), Text("output formats (--format):"), *listed(outputs)]
