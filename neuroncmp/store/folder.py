"""The store's folder (its layout: docs/history/store.md, "The folder"), how it is recognised, and
the lock that serializes writers. A part is visible only once ``snapshot.json`` names it; the
snapshot is replaced atomically (``os.replace``), so a reader sees a run wholly or not at all.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..atomic import write_atomic
from ..errors import InputError, UsageError
from .schema import TABLES

SCHEMA = "neuroncmp.store/1"
SCHEMA_VERSION = 1
MARKER = "STORE.json"
SNAPSHOT = "snapshot.json"
DEFAULT = ".neuroncmp"
ENV = "NEURONCMP_STORE"


def root_of(path: str | Path | None) -> Path | str:
    """The store's location (``None``: ``NEURONCMP_STORE``, else ``.neuroncmp`` here): a local folder
    (a Path), or a URI (``hdfs://``, ``s3a://``, ``file://``, ...) kept as text for an engine that reads
    such paths (Spark)."""
    if path is None:
        return Path(os.environ.get(ENV) or DEFAULT)
    text = str(path)
    return text.rstrip("/") if is_uri(text) else Path(path)


def is_uri(text: str) -> bool:
    scheme, sep, _ = text.partition("://")
    return bool(sep) and scheme.replace("+", "").replace("-", "").replace(".", "").isalnum()


def local(root: Path | str, doing: str) -> Path:
    """``root`` as a local folder; a URI is a usage error saying what needs a local path."""
    if isinstance(root, Path):
        return root
    raise UsageError(f"{root}: {doing} needs the store as a local or mounted folder (the lock and "
                     "snapshot.json are local file operations); a URI is read by --engine spark "
                     "(store ls, history, regressions)")


def check(root: Path) -> None:
    """Refuse, without touching it, a folder that is not a store or is from a newer schema."""
    marker = root / MARKER
    if not root.exists():
        raise InputError(f"{root}: no store here (create one with 'neuroncmp store add --store "
                         f"{root} FILE')")
    if not root.is_dir():
        raise InputError(f"{root}: not a neuroncmp store (a file, not a folder); refusing to use it")
    if not marker.is_file():
        raise InputError(f"{root}: not a neuroncmp store (no {MARKER}); refusing to use it")
    check_marker(marker.read_text(encoding="utf-8"), str(marker), str(root))


def check_marker(text: str, marker: str, root: str) -> None:
    """Refuse a ``STORE.json`` that is not a store marker, or one of a newer schema."""
    try:
        found = json.loads(text)
        schema = str(found.get("schema", ""))
        version = int(schema.rsplit("/", 1)[1]) if schema.startswith("neuroncmp.store/") else None
    except (ValueError, AttributeError, IndexError) as exc:
        raise InputError(f"{marker}: not a neuroncmp store marker ({exc})") from None
    if version is None:
        raise InputError(f"{marker}: expected schema {SCHEMA!r}, found {schema!r}")
    if version > SCHEMA_VERSION:
        raise InputError(f"{root}: store schema {schema} is newer than this neuroncmp reads "
                         f"({SCHEMA}); upgrade neuroncmp")


def usable(root: Path) -> None:
    """Refuse, before any work, a path an add could not make or use as a store: a file, a folder
    with other things in it, a store from a newer schema. Missing or empty is fine."""
    if root.exists() and ((root / MARKER).exists() or not root.is_dir() or any(root.iterdir())):
        check(root)


def create(root: Path) -> None:
    """Make ``root`` a store if it is missing or an empty folder; else check it is one.

    The store is built in a temporary sibling and renamed into place, so another process sees
    no store or a whole one, never a half-made folder; if two processes race, one rename wins
    and the other uses the store it made."""
    usable(root)
    if (root / MARKER).is_file():
        return
    root.parent.mkdir(parents=True, exist_ok=True)
    temp = Path(tempfile.mkdtemp(dir=root.parent, prefix=f".{root.name}.creating-"))
    try:
        for sub in ["objects"] + [f"tables/{table}" for table in TABLES]:
            (temp / sub).mkdir(parents=True)
        (temp / "lock").touch()
        (temp / MARKER).write_text(json.dumps({"schema": SCHEMA, "created_by": "neuroncmp"}) + "\n")
        os.rename(temp, root)  # replaces a missing or empty folder, never a non-empty one
    except OSError:
        if not (root / MARKER).is_file():
            raise
    finally:
        shutil.rmtree(temp, ignore_errors=True)
    check(root)


def read_snapshot(root: Path) -> dict[str, Any]:
    """The committed state: ``{"parts": [{"id", "runs", "hashes"}]}`` (empty for a new store)."""
    path = root / SNAPSHOT
    if not path.exists():
        return {"schema": SCHEMA, "parts": []}
    from .damage import snapshot  # every check of its shape lives there

    return snapshot(root, SNAPSHOT)


def write_snapshot(root: Path, snapshot: dict[str, Any]) -> None:
    """Publish a new state in one atomic rename: the commit point of every add and compaction."""
    write_atomic(root / SNAPSHOT, json.dumps(snapshot, separators=(",", ":")) + "\n")


@contextmanager
def locked(root: Path) -> Iterator[None]:
    """Hold the store's writer lock (released by the OS if the process dies)."""
    import fcntl

    with open(root / "lock", "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def series_by(root: Path | str) -> tuple[str, ...]:
    """The store's series keys (``store series-by``; empty: every tag keys a series). A URI has
    no local snapshot here: the Spark engine reads its setting (``snapshot_series_by``)."""
    if not isinstance(root, Path) or not (root / MARKER).is_file():
        return ()
    return snapshot_series_by(read_snapshot(root))


def snapshot_series_by(snapshot: dict[str, Any]) -> tuple[str, ...]:
    """The series keys a snapshot holds (none: every tag keys a series)."""
    keys = snapshot.get("series_by") or []
    return tuple(str(k) for k in keys) if isinstance(keys, list) else ()


def set_series_by(root: Path, keys: tuple[str, ...]) -> None:
    """Re-key the store: its series are formed by ``keys`` from now on (empty: by every tag).
    Only the snapshot changes, in the one atomic rename every writer publishes with: no run is
    added or rewritten, and a reader sees the old keys or the new ones."""
    check(root)
    with locked(root):
        snapshot = read_snapshot(root)
        if keys:
            snapshot["series_by"] = list(keys)
        else:
            snapshot.pop("series_by", None)
        write_snapshot(root, snapshot)
