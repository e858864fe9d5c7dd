"""Whether a path lies inside a folder, and what kind of file it is: the tests every guard of a written
or read path uses."""

from __future__ import annotations

import os
import stat
from pathlib import Path

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"))


def inside(path: str | Path, folder: str | Path) -> bool:
    """``path`` is ``folder`` or lies below it, both resolved first (symbolic links followed, ``..``
    removed), so no link and no ``..`` leads a path out of its folder unseen. A path that cannot be
    resolved (an embedded NUL) raises ``ValueError``."""
    return Path(os.path.realpath(path)).is_relative_to(os.path.realpath(folder))


def file_kind(mode: int) -> str | None:
    """None for a regular file, else what it is (``"a FIFO (named pipe)"``)."""
    if stat.S_ISREG(mode):
        return None
    return next((what for test, what in _KINDS if test(mode)), "not a regular file")
