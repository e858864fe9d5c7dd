"""Paths a tool call may name: only under the folders the server was started with, links followed
and a named folder walked (docs/commands/mcp.md, "Safe by default").
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from ..errors import UsageError
from ..paths import inside

MAX_WALKED = 100_000  # entries of a folder argument checked for links; beyond it the call is refused


class Sandbox:
    def __init__(self, roots: Sequence[str | Path]) -> None:
        if not roots:
            raise UsageError("serve at least one folder")
        self.roots = tuple(Path(os.path.realpath(root)) for root in roots)
        missing = [str(root) for root in self.roots if not root.is_dir()]
        if missing:
            raise UsageError(f"not a folder: {', '.join(missing)}")

    @property
    def home(self) -> Path:
        return self.roots[0]

    def check(self, paths: Iterable[str]) -> None:
        for given in paths:
            path = Path(given) if os.path.isabs(given) else self.home / given
            self._inside(given, path)
            if path.is_dir() and not path.is_symlink():
                self._walk(given, path)

    def _inside(self, given: str, path: Path) -> None:
        if not any(inside(path, root) for root in self.roots):
            raise UsageError(f"{given}: outside the folders this server reads ({', '.join(map(str, self.roots))})")

    def _walk(self, given: str, folder: Path) -> None:
        seen = 0
        for top, folders, files in os.walk(folder, followlinks=False):
            for name in (*folders, *files):
                seen += 1
                if seen > MAX_WALKED:
                    raise UsageError(f"{given}: more than {MAX_WALKED:,} entries to check: name the files")
                entry = Path(top) / name
                if entry.is_symlink():
                    self._inside(f"{given}: {entry.relative_to(folder)}", entry)
