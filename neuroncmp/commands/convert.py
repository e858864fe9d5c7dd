"""``convert`` as one library call: ``convert_report(path, ConvertOptions(...))``, the profiles of a
multi-profile export that ``render.convert_folder`` writes as a run folder, one file per variant."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .. import arguments
from .documents import Loaded


@dataclass(frozen=True, slots=True)
class ConvertOptions:
    """``format``: force an input parser (``neuroncmp formats`` lists them); None: by suffix and content."""

    format: str | None = None

    def __post_init__(self) -> None:
        arguments.optional_text("format", self.format)


def convert_report(path: str | Path, options: ConvertOptions) -> Loaded:
    """Every profile in the export ``path``, labelled, to be written one file per variant."""
    from ..ingest import load

    return Loaded(tuple(load(arguments.path("path", path), options.format)))
