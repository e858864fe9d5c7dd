"""Atomic file writes: a reader never sees a half-written output file, and nothing else is touched.

The text goes to a temporary file beside the target, which is renamed over it (the rules a user
relies on: docs/limits.md, "What is written"). ``follow_symlinks=False`` replaces a link itself,
for writers confined to a folder. The temporary file is removed on any error or interruption that
reaches Python (SIGINT; SIGTERM once the CLI turns it into ``SystemExit``).
"""

from __future__ import annotations

import os
import secrets
import shutil
import stat
import tempfile
from collections.abc import Mapping
from pathlib import Path

from .errors import OutputError
from .escape import quote
from .paths import file_kind


def target_of(path: Path, follow_symlinks: bool = True) -> tuple[Path, int | None]:
    """(the file a write to ``path`` replaces, its permission bits or None if it is new).

    Raises ``OutputError`` when that is anything but a regular file.
    """
    target = Path(os.path.realpath(path)) if follow_symlinks else Path(os.path.abspath(path))
    try:
        info = os.stat(target, follow_symlinks=follow_symlinks)
    except FileNotFoundError:
        return target, None
    except OSError as exc:
        raise OutputError(f"cannot write {quote(path)}: {exc.strerror or exc}") from None
    if stat.S_ISREG(info.st_mode) or stat.S_ISLNK(info.st_mode):  # a link itself: replaced
        return target, None if stat.S_ISLNK(info.st_mode) else stat.S_IMODE(info.st_mode)
    raise OutputError(f"cannot write {quote(path)}: it is {file_kind(info.st_mode)}; outputs replace regular "
                      "files only")


def write_atomic(path: Path, content: str | bytes, follow_symlinks: bool = True) -> None:
    """Write ``content`` to ``path`` via a temporary file in the same folder and a rename."""
    target, mode = target_of(path, follow_symlinks)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, temp = _temporary(target)
    except OSError as exc:
        raise OutputError(f"cannot write {quote(path)}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(handle, "wb") as out:
            # backslashreplace: a lone surrogate (from a JSON "\ud800") is written as \ud800
            out.write(content if isinstance(content, bytes)
                      else content.encode("utf-8", errors="backslashreplace"))
        if mode is not None:  # a new file already has the usual mode: 0o666 less the umask
            os.chmod(temp, mode)
        os.replace(temp, target)
    except BaseException as exc:
        Path(temp).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise OutputError(f"cannot write {quote(path)}: {exc.strerror or exc}") from None
        raise


def _temporary(target: Path) -> tuple[int, str]:
    """A new hidden file beside ``target``, opened for writing. Created with mode 0o666 so the
    kernel applies the process's umask (``mkstemp`` would make it 0600, and reading the umask
    means changing it, process-wide, for an instant)."""
    for _ in range(100):
        temp = str(target.parent / f".{target.name}.{secrets.token_hex(4)}.tmp")
        try:
            return os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666), temp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name beside {target}")


def write_folder(path: Path, files: Mapping[str, str | bytes], marker: str) -> None:
    """Replace the folder ``path`` with one holding ``files`` (relative name -> content), all at
    once: the files are written into a hidden folder beside it, which is renamed into place, so
    a reader sees the old folder or the whole new one, never a half-written mix. ``marker`` is a
    file every such folder holds: an existing folder without it is refused, never replaced (it
    may hold anything); an empty folder is taken."""
    path = Path(os.path.abspath(path))
    _check_replaceable(path, marker)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fresh = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent))
    except OSError as exc:
        raise OutputError(f"cannot write {quote(path)}: {exc.strerror or exc}") from None
    old = path.parent / f".{path.name}.{secrets.token_hex(4)}.old"
    try:
        for name, content in {**files, marker: ""}.items():
            target = fresh / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content if isinstance(content, bytes)
                               else content.encode("utf-8", errors="backslashreplace"))
        os.chmod(fresh, 0o777 & ~_umask_of(path.parent))  # mkdtemp makes it 0700
        if path.exists():
            os.replace(path, old)
        os.replace(fresh, path)
    except BaseException as exc:
        shutil.rmtree(fresh, ignore_errors=True)
        if old.exists() and not path.exists():
            os.replace(old, path)
        if isinstance(exc, OSError):
            raise OutputError(f"cannot write {quote(path)}: {exc.strerror or exc}") from None
        raise
    shutil.rmtree(old, ignore_errors=True)


def _check_replaceable(path: Path, marker: str) -> None:
    if path.is_symlink() or (path.exists() and not path.is_dir()):
        raise OutputError(f"cannot write {quote(path)}: it exists and is not a folder")
    if path.is_dir() and any(path.iterdir()) and not (path / marker).is_file():
        raise OutputError(f"cannot write {quote(path)}: a folder with other files in it (no "
                          f"{marker}); give a new or empty folder, or one this command wrote")


def _umask_of(folder: Path) -> int:
    """The process's umask, read without changing it: from a new file's mode (``os.umask``
    would set it process-wide for an instant)."""
    handle, probe = _temporary(folder / "umask")
    os.close(handle)
    try:
        return 0o666 & ~stat.S_IMODE(os.stat(probe).st_mode)
    finally:
        os.unlink(probe)
