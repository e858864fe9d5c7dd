"""The profiling tool's own warnings, kept as profile notes with one recognisable form.

A warning qualifies every number read from its profile: a note of the profile and a warning of any
comparison of it (docs/formats.md, "The profiler's warnings"); ``comparison.comparability`` finds
them by ``PREFIX``.
"""

from __future__ import annotations

PREFIX = "profiler warning: "


def tool_warning(message: str, category: str = "") -> str:
    """The note for one warning of the tool (``category`` as the tool names it, if it does)."""
    text = " ".join(message.split())
    return f"{PREFIX}{category.strip()}: {text}" if category.strip() else f"{PREFIX}{text}"


def is_tool_warning(note: str) -> bool:
    return note.startswith(PREFIX)


def add_note(notes: list[str], note: str) -> None:
    """Append ``note`` unless it is there already (the same warning logged and in the JSON)."""
    if note not in notes and not any(n.endswith(note.removeprefix(PREFIX)) for n in notes
                                     if is_tool_warning(n)):
        notes.append(note)
