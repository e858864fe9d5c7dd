"""``show`` as one library call: ``show_report(paths, ShowOptions(...))``, every profile in the paths
(files, run folders, Explorer folders) with what the set was read as."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from .. import arguments
from .documents import Loaded


@dataclass(frozen=True, slots=True)
class ShowOptions:
    """``format``: force an input parser (``neuroncmp formats`` lists them); None: by suffix and content."""

    format: str | None = None

    def __post_init__(self) -> None:
        arguments.optional_text("format", self.format)


def show_report(paths: Iterable[str | Path], options: ShowOptions) -> Loaded:
    """The profiles in ``paths``, in order, and the notes on how the set was read."""
    from ..ingest import load_set

    profiles, notes = load_set(paths, options.format)
    return Loaded(tuple(profiles), tuple(notes))
