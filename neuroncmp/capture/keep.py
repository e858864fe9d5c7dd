"""What a captured graph keeps in the run folder: ``<label>.json`` from ``view`` (checked by the
summary-json parser before it is written, so ``diff`` accepts it) and, with Neuron Explorer, its
Parquet tables in the raw folder plus the ``<label>.memory.md`` sidecar made from them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..atomic import write_atomic
from ..errors import InputError
from ..ingest.registry import by_name
from ..ingest.surround import unwrap
from . import sidecars
from .discovery import Pair
from .record import rel
from .tools import EXPLORER, ToolError, Tools, view_parquet, view_summary

SUMMARY_FORMAT = "summary-json"


def write_summary(out_dir: Path, label: str, tools: Tools, pair: Pair, raw_dir: Path) -> str:
    """``<label>.json`` as ``view`` printed it; ToolError when that is not usable summary-json."""
    text = view_summary(tools, pair.neff, pair.ntff, raw_dir / "view.stderr")
    name = f"{label}.json"
    try:
        by_name(SUMMARY_FORMAT).parse(unwrap(text).text, str(out_dir / name))  # log lines allowed
    except InputError as exc:
        raise ToolError(f"{tools.kind} view printed no usable summary-json: {exc}") from None
    write_atomic(out_dir / name, text if text.endswith("\n") else text + "\n")
    return name


def explorer_memory(out_dir: Path, label: str, tools: Tools, pair: Pair, raw_dir: Path,
                    raw: dict[str, Any]) -> str | None:
    """Explorer's Parquet tables (kept in ``raw_dir/explorer``) and the memory sidecar made from
    them. A failure here is noted in ``raw``, never fatal: the summary-json is already kept."""
    if tools.kind != EXPLORER:
        return None
    parquet = raw_dir / "explorer"
    try:
        view_parquet(tools, pair.neff, pair.ntff, parquet, raw_dir / "parquet.stderr")
    except ToolError as exc:
        raw["parquet_error"] = str(exc)
        return None
    raw["parquet"] = rel(parquet, out_dir)
    name, why_not = sidecars.keep_memory(parquet, out_dir, label)
    if why_not:
        raw["memory_error"] = why_not
    return name


def view(out_dir: Path, label: str, tools: Tools, pair: Pair, raw_dir: Path,
         raw: dict[str, Any]) -> tuple[str, str | None]:
    """What ``view`` gives of one pair, in a sweep or a single graph capture: the summary-json
    file's name and the memory sidecar's (None without one)."""
    summary = write_summary(out_dir, label, tools, pair, raw_dir)
    return summary, explorer_memory(out_dir, label, tools, pair, raw_dir, raw)
