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

CHUNK = 1 << 20
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


def object_path(content_hash: str, source: Path) -> str:
    """Where the copy lives, relative to the store: ``objects/ab/<hash><suffix>`` (``.d`` folders)."""
    suffix = ".d" if source.is_dir() else "".join(source.suffixes[-1:]).lower()
    return f"objects/{content_hash[:2]}/{content_hash}{suffix}"


def keep(root: Path, relative: str, source: Path) -> None:
    """Copy ``source`` to ``root / relative`` unless it is there already (same name, same content),
    under a hidden temporary name first and then renamed: the copy is whole or absent."""
    target = root / relative
    if target.exists():
        return
    staged = target.parent / f".incoming-{os.getpid()}-{secrets.token_hex(4)}-{target.name}"
    try:
        if source.is_dir():
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
