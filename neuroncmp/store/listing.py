"""``store add --runs runs.csv``: a listing of profiles to add, one row each, checked row by row
(its columns: docs/history/store.md, "store add").
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from ..errors import ParseError
from .times import parse_time

RESERVED = ("path", "time", "commit")


@dataclass(frozen=True, slots=True)
class Entry:
    """One thing to add: a path with where it sits in history (``where`` names it in messages)."""

    path: Path
    tags: dict[str, str]
    at: datetime | None
    commit: str | None
    where: str
    at_source: str = "listing"
    commit_from_name: bool = False  # a run with no commit takes its file name's commit-like part


@dataclass(frozen=True, slots=True)
class Problem:
    """A listing row that cannot be added, and why (one line)."""

    where: str
    message: str

    def __str__(self) -> str:
        """``where: message``, without saying the place twice (a loader's message names its file)."""
        return self.message if self.message.startswith(self.where) else f"{self.where}: {self.message}"


def read(listing: Path) -> tuple[list[Entry], list[Problem]]:
    """The listing's entries and its bad rows (a missing file, a bad time, a duplicate path)."""
    try:
        with open(listing, newline="", encoding="utf-8-sig") as handle:
            rows = list(csv.reader(handle))
    except UnicodeDecodeError as exc:
        raise ParseError(str(listing), "text", "a UTF-8 CSV file", str(exc)) from None
    if not rows or "path" not in [c.strip() for c in rows[0]]:
        raise ParseError(str(listing), "line 1", "a header with a 'path' column",
                         ",".join(rows[0]) if rows else "an empty file")
    header = [c.strip() for c in rows[0]]
    entries: list[Entry] = []
    problems: list[Problem] = []
    seen: dict[str, int] = {}
    for number, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        where = f"{listing}: line {number}"
        found = _entry(listing, header, row, where)
        if isinstance(found, Problem):
            problems.append(found)
            continue
        real = str(found.path.resolve())
        if real in seen:
            cell = row[header.index("path")].strip()
            problems.append(Problem(where, f"path '{cell}' is listed already on line {seen[real]}"))
        else:
            seen[real] = number
            entries.append(found)
    return entries, problems


def _entry(listing: Path, header: list[str], row: list[str], where: str) -> Entry | Problem:
    if len(row) > len(header):
        return Problem(where, f"{len(row)} cells for {len(header)} columns")
    cells = {name: (row[i].strip() if i < len(row) else "") for i, name in enumerate(header)}
    if not cells["path"]:
        return Problem(where, "an empty path")
    path = listing.parent / cells["path"]
    if not path.exists():
        return Problem(where, f"path '{cells['path']}': no such file ({path})")
    at = None
    if cells.get("time"):
        try:
            at = parse_time(cells["time"])
        except ValueError:
            return Problem(where, f"time '{cells['time']}': expected an ISO 8601 time "
                                  "(2024-05-01T02:00:00Z)")
    tags = {k: v for k, v in cells.items() if k not in RESERVED and k and v}
    return Entry(path, tags, at, cells.get("commit") or None, where)
