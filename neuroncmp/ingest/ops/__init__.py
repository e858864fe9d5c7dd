"""Operation tables (``neuroncmp ops``): read only when asked for, from a view JSON or an Explorer
Parquet folder, or from a run folder / capture folder holding them."""

from __future__ import annotations

from pathlib import Path

from ...errors import ParseError
from .table import OpTable


def read_ops(path: str | Path, level: str, label: str | None = None) -> OpTable:
    """The op table of the profile read from ``path``: a view JSON file, an Explorer Parquet
    folder, or (a capture's ``DIR/<label>.json``) the Parquet folder the capture kept beside it,
    ``DIR/raw/<label>/explorer/``."""
    source = op_source(Path(path), label)
    if source.is_dir():
        from . import explorer

        return explorer.read(source, level)
    from . import view_json

    return view_json.read(source, level)


def op_source(path: Path, label: str | None = None) -> Path:
    from .explorer import has_tables

    if path.is_dir() and has_tables(path):
        return path
    if path.is_file() and _is_view_json(path):
        return path
    for stem in dict.fromkeys(s for s in (label, path.stem) if s):
        kept = (path if path.is_dir() else path.parent) / "raw" / stem / "explorer"
        if kept.is_dir() and has_tables(kept):
            return kept
    raise ParseError(str(path), "operation tables",
                     "a view JSON with its instruction section, an Explorer Parquet folder with Instruction, "
                     "OpcodeSummary or HloInstruction, or a capture's raw/<label>/explorer/ folder", "none of them")


def _is_view_json(path: Path) -> bool:
    from ..formats.view_json import sniff

    with open(path, encoding="utf-8", errors="replace") as handle:
        return sniff(handle.read(65536))
