"""Immutable copies of added files, named by the sha256 of their content."""

from __future__ import annotations

import hashlib
import os
import secrets
import shutil
from pathlib import Path

CHUNK = 1 << 20


def digest(path: Path) -> str:
    """sha256 of a file's bytes; of a folder: of every file's relative path and bytes, sorted."""
    sha = hashlib.sha256()
    if path.is_dir():
        for file in sorted(p for p in path.rglob("*") if p.is_file()):
            sha.update(file.relative_to(path).as_posix().encode() + b"\0")
            sha.update(hashlib.sha256(file.read_bytes()).digest())
        return sha.hexdigest()
    with open(path, "rb") as handle:
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
    target.parent.mkdir(parents=True, exist_ok=True)
    staged = target.parent / f".incoming-{os.getpid()}-{secrets.token_hex(4)}-{target.name}"
    try:
        if source.is_dir():
            shutil.copytree(source, staged)
            os.rename(staged, target)
        else:
            shutil.copyfile(source, staged)
            os.replace(staged, target)
    finally:
        if staged.is_dir():
            shutil.rmtree(staged, ignore_errors=True)
        else:
            staged.unlink(missing_ok=True)


def verify(root: Path, relative: str, content_hash: str) -> bool:
    """Whether the copy is there and still has the content its name says."""
    target = root / relative
    return target.exists() and digest(target) == content_hash
