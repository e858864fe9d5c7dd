"""The profiler's own warnings, as warnings of a comparison: they qualify the numbers compared."""

from __future__ import annotations

from ..ingest.tool_notes import PREFIX, is_tool_warning
from .result import Side


def warnings_for(sides: list[Side]) -> list[str]:
    """One line per distinct warning, naming the sides whose profiles carry it."""
    having: dict[str, list[str]] = {}
    for side in sides:
        for profile in side.profiles:
            for note in profile.notes:
                labels = having.setdefault(note.removeprefix(PREFIX), [])
                if is_tool_warning(note) and side.label not in labels:
                    labels.append(side.label)
    return [f"{', '.join(labels)}: the profiler warns: {message}"
            for message, labels in having.items() if labels]
