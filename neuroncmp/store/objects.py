"""Immutable copies of added files, named by the sha256 of their content."""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import shutil
import stat
from pathlib import Path
from typing import NamedTuple

CHUNK = 1 << 20
SMALL = 1 << 20  # a file up to this size is hashed from bytes read once and copied from them
OBJECT_NAME = re.compile(r"objects/[0-9a-f]{2}/[0-9a-f]{64}(\.[A-Za-z0-9_-]{1,20})?")
_BINARY = getattr(os, "O_BINARY", 0)  # Windows
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | _BINARY


def digest(path: Path) -> str:
    """sha256 of a file's bytes; of a folder: of every file's relative path and bytes, sorted."""
    sha = hashlib.sha256()
    if path.is_dir():
        for file in sorted(p for p in path.rglob("*") if p.is_file()):
            sha.update(file.relative_to(path).as_posix().encode() + b"\0")
            sha.update(hashlib.sha256(file.read_bytes()).digest())
        return sha.hexdigest()
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


class Content(NamedTuple):
    """What ``read`` found: the content hash, the object name, and a small file's bytes."""

    content_hash: str
    object: str
    data: bytes | None  # the bytes hashed (a file of at most SMALL bytes), else None


def read(path: Path) -> Content:
    """``digest(path)`` and ``object_path``, a small file's bytes kept: its copy is then written from
    the very bytes hashed, so it holds the content its name says even if the file changes before
    the commit."""
    try:
        handle = os.open(path, _READ_FLAGS)
    except OSError:
        handle = None  # a folder on Windows, or gone: as ``digest`` does
    if handle is not None:
        try:
            info = os.fstat(handle)
            if stat.S_ISREG(info.st_mode) and info.st_size <= SMALL:
                data = _read_all(handle, info.st_size)
                content_hash = hashlib.sha256(data).hexdigest()
                return Content(content_hash, object_path(content_hash, path), data)
        finally:
            os.close(handle)
    content_hash = digest(path)
    return Content(content_hash, object_path(content_hash, path), None)


def _read_all(handle: int, size: int) -> bytes:
    """Every byte of an open file (``size`` as its stat said; read on to the end if it grew)."""
    parts = [os.read(handle, size + 1)]
    while parts[-1]:
        parts.append(os.read(handle, CHUNK))
    return b"".join(parts)


def object_path(content_hash: str, source: Path) -> str:
    """Where the copy lives, relative to the store: ``objects/ab/<hash><suffix>`` (``.d`` folders)."""
    suffix = ".d" if source.is_dir() else "".join(source.suffixes[-1:]).lower()
    return f"objects/{content_hash[:2]}/{content_hash}{suffix}"


def keep(root: Path, relative: str, source: Path, data: bytes | None = None) -> None:
    """Copy ``source`` to ``root / relative`` unless it is there already (same name, same content),
    under a hidden temporary name first and then renamed: the copy is whole or absent. ``data``:
    the file's bytes, when read already (``read``): written, the file not opened again."""
    target = root / relative
    if target.exists():
        return
    staged = target.parent / f".incoming-{os.getpid()}-{secrets.token_hex(4)}-{target.name}"
    try:
        if data is not None:
            _write_file(data, staged)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            if source.is_dir():
                shutil.copytree(source, staged)
            else:
                shutil.copyfile(source, staged)  # a named pipe is refused, never waited on
        os.replace(staged, target)
    except BaseException:
        if staged.is_dir():
            shutil.rmtree(staged, ignore_errors=True)
        else:
            staged.unlink(missing_ok=True)
        raise


def _write_file(data: bytes, staged: Path) -> None:
    try:
        staged.write_bytes(data)
    except FileNotFoundError:  # the folder is made when first missing (the store has 256, mostly there)
        staged.parent.mkdir(parents=True, exist_ok=True)
        staged.write_bytes(data)


def verify(root: Path, relative: str, content_hash: str) -> bool:
    """Whether the copy is there and still has the content its name says. A name that is not
    an object's (``objects/ab/<hash>...``, as an edited part might hold) is never followed."""
    if not isinstance(relative, str) or not OBJECT_NAME.fullmatch(relative):
        return False
    target = root / relative
    return target.exists() and digest(target) == content_hash
