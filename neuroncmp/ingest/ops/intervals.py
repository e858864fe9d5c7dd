"""Interval unions: the time a set of possibly overlapping [start, end) intervals covers."""

from __future__ import annotations

from collections.abc import Iterable


def union_length(intervals: Iterable[tuple[float, float]]) -> float:
    """Covered length: overlapping and touching intervals merged, each stretch counted once."""
    total, start, end = 0.0, None, None
    for low, high in sorted(intervals):
        if end is None or low > end:
            if end is not None and start is not None:
                total += end - start
            start, end = low, high
        elif high > end:
            end = high
    if start is not None and end is not None:
        total += end - start
    return total
