"""Progress of a capture, reported through a callback (the library never prints)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

START, LINE, VIEW, DONE, SKIP = "start", "line", "view", "done", "skip"


@dataclass(frozen=True, slots=True)
class Event:
    """``kind``: start (the command starts), line (it printed one), view (the profile tool runs),
    done (``status`` says how it ended), skip (``--resume``: already captured)."""

    kind: str
    index: int  # 0-based position in the sweep
    total: int
    label: str
    status: str | None = None
    detail: str = ""


Listener = Callable[[Event], None]


def ignore(event: Event) -> None:
    """The default listener: report nothing."""
