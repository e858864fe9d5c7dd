"""The store's own files, read in one place: damage becomes one line naming the file
(docs/history/store.md, "Damage"). Every command reads ``snapshot.json`` through ``snapshot`` (its
whole shape checked: a part id or file name that could lead outside the store is damage, never a
path) and every part file through ``reading``/``parquet_error``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..escape import clip, quote
from .schema import TABLES

# What neuroncmp itself writes: part ids from ``parts.new_part_id`` and Spark's ``<id>-<k>.parquet``.
# No ``/``, no ``..``: a part names a file in its table folder and nothing else.
PART_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,199}")
PART_FILE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,199}\.parquet")
HASH = re.compile(r"[0-9a-f]{64}")


class StoreDamage(InputError):
    """A file of the store itself cannot be used; ``file`` names it (relative to the store)."""

    def __init__(self, root: Path, file: str, what: str) -> None:
        self.file = file
        self.what = f"{file}: {what}"  # without the advice (store check reports it as a problem)
        super().__init__(f"{quote(str(root / file))}: {what}; the store is damaged: run "
                         f"'neuroncmp store check --store {root}'")


def snapshot(root: Path, name: str) -> dict[str, Any]:
    """``snapshot.json`` parsed and checked (``{"parts": [{"id", "runs", "hashes", "files"?}]}``)."""
    try:
        data = json.loads((root / name).read_bytes())
    except OSError as exc:
        raise StoreDamage(root, name, f"cannot be read ({exc.strerror or exc})") from None
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise StoreDamage(root, name, f"not JSON ({clip(exc, 100)})") from None
    if not isinstance(data, dict) or not isinstance(data.get("parts"), list):
        raise StoreDamage(root, name, "expected an object with a 'parts' list")
    for index, part in enumerate(data["parts"]):
        problem = _part_problem(part)
        if problem:
            raise StoreDamage(root, name, f"parts[{index}]{problem}")
    return data


def _part_problem(part: Any) -> str:
    """What is wrong with one part record ('' when nothing)."""
    if not isinstance(part, dict):
        return ": expected an object"
    if not isinstance(part.get("id"), str) or not PART_ID.fullmatch(part["id"]):
        return f".id: expected a part id (letters, digits, '_', '.', '-'), found {clip(repr(part.get('id')), 60)}"
    if type(part.get("runs")) is not int or part["runs"] < 0:
        return f".runs: expected a count of runs, found {clip(repr(part.get('runs')), 60)}"
    hashes = part.get("hashes")
    if not isinstance(hashes, list) or not all(isinstance(h, str) and HASH.fullmatch(h) for h in hashes):
        return ".hashes: expected a list of sha256 content hashes"
    return _files_problem(part.get("files"))


def _files_problem(files: Any) -> str:
    if files is None:
        return ""
    if not isinstance(files, dict) or not set(files) <= set(TABLES):
        return f".files: expected an object with keys among {', '.join(TABLES)}"
    for table, names in files.items():
        if not isinstance(names, list) or not all(isinstance(n, str) and PART_FILE.fullmatch(n) for n in names):
            return f".files.{table}: expected a list of part file names (NAME.parquet)"
    return ""


def parquet_error(root: Path, paths: list[Path], error: BaseException) -> StoreDamage:
    """The damage behind a failed read of ``paths``: the first file whose Parquet footer cannot
    be read (or that is missing), else the first line of the reader's own error."""
    for path in paths:
        problem = footer_problem(path)
        if problem:
            return StoreDamage(root, _relative(root, path), problem)
    first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    return StoreDamage(root, "tables", f"a part file cannot be read ({clip(first, 160)})")


def footer_problem(path: Path) -> str:
    """Why ``path`` is not a readable Parquet file ('' when it is)."""
    try:
        import pyarrow.parquet as pq

        _ = pq.ParquetFile(path).metadata  # reading the footer is the check
    except FileNotFoundError:
        return "missing (the snapshot names it)"
    except Exception as exc:  # pyarrow raises several types; any of them means unreadable
        first_line = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return f"not a readable Parquet file ({clip(first_line, 120)})"
    return ""


def _relative(root: Path, path: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)
