"""Times of runs: parsed from ISO 8601, read from the profile, or the file's modification time."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..model import Profile

STATED_KEYS = ("captured_at", "capture_time", "timestamp", "start_time")


def parse_time(text: str) -> datetime:
    """ISO 8601 (``2024-05-01``, ``2024-05-01T02:00``, ``...Z``, ``...+02:00``) as UTC; a time
    without an offset is taken as UTC. Raises ValueError."""
    value = text.strip()
    if value.endswith(("Z", "z")):
        value = value[:-1] + "+00:00"
    return as_utc(datetime.fromisoformat(value))


def as_utc(moment: datetime) -> datetime:
    """``moment`` in UTC (no offset: taken as UTC). Raises ValueError when UTC has no such day:
    ``9999-12-31T23:59:59-01:00`` is in year 10000, ``0001-01-01T00:00:00+01:00`` in year 0,
    which ``datetime`` cannot hold (it raised OverflowError)."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=timezone.utc)
    try:
        return moment.astimezone(timezone.utc)
    except OverflowError:
        raise ValueError("outside the calendar datetime holds (years 1 to 9999 in UTC)") from None


def stated_time(profile: Profile) -> datetime | None:
    """The time the profile itself states (metadata or a text metric named like one), if any."""
    for key in STATED_KEYS:
        value = profile.metadata.get(key)
        if value is None and key in profile.metrics:
            value = profile.metrics[key].value
        if isinstance(value, str):
            try:
                return parse_time(value)
            except ValueError:
                continue
    return None


def now() -> datetime:
    return datetime.now(timezone.utc)


def iso(moment: datetime) -> str:
    """``2024-05-01T02:00:00Z``: UTC, seconds (micro when present), a Z."""
    text = moment.astimezone(timezone.utc).isoformat()
    return text.replace("+00:00", "Z")
