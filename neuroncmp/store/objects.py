"""Immutable copies of added files, named by the sha256 of their content."""

from __future__ import annotations

import errno
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
_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | _BINARY


def digest(path: Path) -> str:
    """sha256 of a file's bytes; of a folder: of every file's relative path and bytes, sorted."""
    sha = hashlib.sha256()
    if path.is_dir():
        for file in sorted(p for p in path.rglob("*") if p.is_file()):
            sha.update(file.relative_to(path).as_posix().encode() + b"\0")
            sha.update(hashlib.sha256(file.read_bytes()).digest())
        return sha.hexdigest()
    with open(path, "rb", buffering=0) as handle:  # unbuffered: two system calls fewer
        while chunk := handle.read(CHUNK):
            sha.update(chunk)
    return sha.hexdigest()


class Content(NamedTuple):
    """What ``read`` found: the content hash, the object name, and a small file's bytes."""

    content_hash: str
    object: str
    data: bytes | None  # the bytes hashed (a file of at most SMALL bytes), else None


def read(path: Path) -> Content:
    """``digest(path)`` and ``object_path`` in one open of the file (no stat to ask whether it is a
    folder), a small file's bytes kept: its copy is then written from the very bytes hashed, not
    read again (an add of small files opened each twice more: ~15 us a file)."""
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
                return Content(content_hash, object_path(content_hash, path, folder=False), data)
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


def object_path(content_hash: str, source: Path, folder: bool | None = None) -> str:
    """Where the copy lives, relative to the store: ``objects/ab/<hash><suffix>`` (``.d`` folders).
    ``folder``: whether ``source`` is one, when known (else it is asked)."""
    suffix = ".d" if (source.is_dir() if folder is None else folder) else "".join(source.suffixes[-1:]).lower()
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
            os.replace(staged, target)
        elif source.is_dir():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copytree(source, staged)
            os.rename(staged, target)
        else:
            _copy_file(source, staged)
            os.replace(staged, target)
    except BaseException:
        if staged.is_dir():
            shutil.rmtree(staged, ignore_errors=True)
        else:
            staged.unlink(missing_ok=True)
        raise


def _copy_file(source: Path, staged: Path) -> None:
    """What ``shutil.copyfile(source, staged)`` does, in a third of its system calls (it stats
    each file twice before opening it; an add copies thousands of small files): the source is
    opened once and checked on the open file, a FIFO refused with copyfile's error (opened
    non-blocking, never waited on), and the folder made only when found missing."""
    src = os.open(source, _READ_FLAGS)
    try:
        info = os.fstat(src)
        if stat.S_ISFIFO(info.st_mode):
            raise shutil.SpecialFileError(f"`{source}` is a named pipe")
        out = _create(staged)
        try:
            _copy_bytes(src, out, info.st_size)
        finally:
            os.close(out)
    finally:
        os.close(src)


def _write_file(data: bytes, staged: Path) -> None:
    out = _create(staged)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(out, view):]
    finally:
        os.close(out)


def _create(path: Path) -> int:
    """A new file open for writing; its folder is made if missing (the store has 256, mostly there)."""
    try:
        return os.open(path, _WRITE_FLAGS, 0o666)
    except FileNotFoundError:
        if path.parent.is_dir():
            raise
        path.parent.mkdir(parents=True, exist_ok=True)
        return os.open(path, _WRITE_FLAGS, 0o666)


def _copy_bytes(src: int, out: int, size: int) -> None:
    """Every byte of ``src`` to ``out``: by ``sendfile`` where the kernel copies file to file (as
    copyfile does on Linux), else read and written."""
    offset = 0
    try:
        while sent := os.sendfile(out, src, offset, max(size, CHUNK)):
            offset += sent
        return
    except (AttributeError, OSError) as exc:  # no sendfile, or only to sockets (macOS)
        if offset or getattr(exc, "errno", None) == errno.ENOSPC:
            raise
    while chunk := os.read(src, CHUNK):
        view = memoryview(chunk)
        while view:
            view = view[os.write(out, view):]


def verify(root: Path, relative: str, content_hash: str) -> bool:
    """Whether the copy is there and still has the content its name says. A name that is not
    an object's (``objects/ab/<hash>...``, as an edited part might hold) is never followed."""
    if not isinstance(relative, str) or not OBJECT_NAME.fullmatch(relative):
        return False
    target = root / relative
    return target.exists() and digest(target) == content_hash
