"""Whether a path lies inside a folder: the one test every guard of a written or read path uses."""

from __future__ import annotations

import os
from pathlib import Path


def inside(path: str | Path, folder: str | Path) -> bool:
    """``path`` is ``folder`` or lies below it, both resolved first (symbolic links followed, ``..``
    removed), so no link and no ``..`` leads a path out of its folder unseen. A path that cannot be
    resolved (an embedded NUL) raises ``ValueError``."""
    return Path(os.path.realpath(path)).is_relative_to(os.path.realpath(folder))
