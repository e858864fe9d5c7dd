"""``store compact`` (merge parts, remove leftovers) and ``store check`` (verify everything)."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InputError
from . import damage, folder, objects, parts, schema
from .table_rows import Columns


@dataclass(frozen=True, slots=True)
class CompactReport:
    """Parts before and after, runs kept, and the leftovers removed (files of killed adds)."""

    parts_before: int
    parts_after: int
    runs: int
    removed: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class CheckReport:
    """What ``store check`` found: facts, problems (data missing or wrong) and leftovers (files no
    committed state names: a killed add's, removed by ``store compact``)."""

    runs: int
    parts: int
    objects: int
    problems: tuple[str, ...]
    leftovers: tuple[str, ...]
    held: tuple[str, ...] = ()  # files a damaged part may still need: neither problems nor leftovers

    @property
    def ok(self) -> bool:
        return not self.problems


def compact(root: Path) -> CompactReport:
    """Merge every committed part into one and remove leftovers; no query's answer changes.

    The merged part is written and published like an add's; only then are the old parts
    deleted (a reader holding the old snapshot may fail once and read again)."""
    folder.check(root)
    with folder.locked(root):
        snapshot = folder.read_snapshot(root)
        _refuse_damage(root, snapshot)
        old = [part["id"] for part in snapshot["parts"]]
        gone = [path for table in schema.TABLES for path in parts.files(root, snapshot, table)]
        leftovers = _leftovers(root, snapshot)
        if len(old) > 1:
            merged = parts.read_all(root, snapshot)
            part = parts.new_part_id()
            parts.write(root, part, merged)
            snapshot = {**snapshot, "parts": [parts.entry(part, merged)]}
            folder.write_snapshot(root, snapshot)
            for path in gone:
                path.unlink(missing_ok=True)
        removed = [_remove(root, path) for path in leftovers]
    runs = sum(p["runs"] for p in snapshot["parts"])
    return CompactReport(len(old), len(snapshot["parts"]), runs, tuple(removed))


def _refuse_damage(root: Path, snapshot: dict[str, Any]) -> None:
    """Compaction rewrites every part and deletes files: over a damaged part it would lose runs
    or call their copies leftovers, so it refuses, naming the damage."""
    for part in snapshot["parts"]:
        problems = _check_part(root, part, Columns())
        if problems:
            raise InputError(f"{root}: refusing to compact a damaged store: {problems[0]}; "
                             "run 'neuroncmp store check'")


def check(root: Path) -> CheckReport:
    """Verify the store: every committed part readable with the runs and hashes the snapshot
    says, every metric and memory row belonging to a run, every copy present with its hash.
    Files a damaged part (or a damaged snapshot) may still need are ``held``, never leftovers."""
    folder.check(root)
    try:
        snapshot = folder.read_snapshot(root)
    except damage.StoreDamage as exc:
        return CheckReport(0, 0, 0, (f"{exc.what} (leftovers cannot be told from live files until "
                                     "it is repaired)",), ())
    problems: list[str] = []
    rows = Columns()
    damaged: list[dict[str, Any]] = []
    for part in snapshot["parts"]:
        found = _check_part(root, part, rows)
        problems += found
        if found:
            damaged.append(part)
    runs = rows.tables["runs"]
    problems += _check_rows(rows)
    for run, content_hash, relative in zip(runs["run"], runs["content_hash"], runs["object"], strict=True):
        if not objects.verify(root, relative, content_hash):
            problems.append(f"run {run}: its copy {relative} is missing or does not match its hash")
    for run, copies in zip(runs["run"], runs["sidecars"], strict=True):
        problems += [f"run {run}: its sidecar copy {relative} is missing or does not match its hash"
                     for relative in copies or [] if not objects.verify(root, relative, _hash_of(relative))]
    referenced = runs["object"] + [r for copies in runs["sidecars"] for r in copies or []]
    found = [str(p.relative_to(root)) for p in _leftovers(root, snapshot, referenced)]
    held = [name for name in found if _may_need(name, damaged)]
    leftovers = [name for name in found if name not in held]
    return CheckReport(len(set(runs["run"])), len(snapshot["parts"]), len(set(runs["object"])),
                       tuple(problems), tuple(leftovers), tuple(held))


def _may_need(name: str, damaged: list[dict[str, Any]]) -> bool:
    """A copy a damaged part's runs may name: its runs are not all readable, and its sidecars
    are listed nowhere else, so every copy no readable run names is kept while it is damaged."""
    return bool(damaged) and name.startswith("objects/") and not Path(name).name.startswith(".")


def _check_part(root: Path, part: dict[str, Any], rows: Columns) -> list[str]:
    single = {"parts": [part]}
    try:
        found = parts.read_all(root, single)
    except damage.StoreDamage as exc:  # an unreadable file is a finding, not a crash
        return [f"part {part['id']}: {exc.what}"]
    out = []
    if found.count("runs") != part["runs"]:
        out.append(f"part {part['id']}: {found.count('runs')} runs, the snapshot says {part['runs']}")
    if sorted(set(found.tables["runs"]["content_hash"])) != sorted(part["hashes"]):
        out.append(f"part {part['id']}: its content hashes differ from the snapshot's")
    rows.extend(found)
    return out


def _check_rows(rows: Columns) -> list[str]:
    runs = rows.tables["runs"]["run"]
    out = []
    if len(set(runs)) != len(runs):
        out.append(f"{len(runs) - len(set(runs))} runs appear twice")
    known, with_metrics = set(runs), set(rows.tables["metrics"]["run"])
    for table in ("metrics", "memory"):
        stray = set(rows.tables[table]["run"]) - known
        if stray:
            out.append(f"{len(stray)} runs have {table} rows but no run row: {sorted(stray)[:3]}")
    if known - with_metrics:
        out.append(f"{len(known - with_metrics)} runs have no metric rows: {sorted(known - with_metrics)[:3]}")
    return out


def _leftovers(root: Path, snapshot: dict[str, Any], referenced: list[str] | None = None) -> list[Path]:
    """Files no committed state names: unpublished parts, unreferenced copies, staging folders."""
    live = {path for table in schema.TABLES for path in parts.files(root, snapshot, table)}
    found = [p for table in schema.TABLES for p in (root / "tables" / table).glob("*") if p not in live]
    found += sorted((root / "objects").glob("*/.incoming-*"))
    if referenced is None:
        referenced = parts.read_column(root, snapshot, "runs", "object")
        referenced += [r for copies in parts.read_column(root, snapshot, "runs", "sidecars")
                       for r in copies or []]
    keep = set(referenced)
    found += [p for p in (root / "objects").glob("*/*")
              if not p.name.startswith(".") and str(p.relative_to(root)) not in keep]
    found += sorted(root.glob(f".{folder.SNAPSHOT}.*.tmp"))
    return sorted(found)


def _hash_of(relative: str) -> str:
    """The content hash an object's name states (``objects/ab/<hash>.<suffix>``)."""
    return Path(relative).name.split(".", 1)[0]


def _remove(root: Path, path: Path) -> str:
    if path.is_dir():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)
    return str(path.relative_to(root))
