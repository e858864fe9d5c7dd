"""The profiling tool's own warnings, kept as profile notes with one recognisable form.

The profiler says when its numbers are doubtful ("reported DMA values may be inaccurate"): the
view JSON's ``warnings`` section and the ``level=warning`` lines it logs. They are notes of the
profile (``show`` lists them) and, because they qualify every number read from that profile,
warnings of a comparison too (``comparison.comparability``), which finds them by ``PREFIX``.
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
