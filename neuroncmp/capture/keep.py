"""What a captured graph keeps in the run folder: ``<label>.json`` from ``view`` (checked by the
summary-json parser before it is written, so ``diff`` accepts it); with Neuron Explorer, its Parquet
tables in the raw folder plus the ``<label>.memory.md`` sidecar made from them; and the Trainer's
metrics (docs/commands/capture.md, "Where files land"). The memory table is written in the ui-markdown
layout (``| ND Idx | NC Idx | Usage Type | Amount |``, bytes) so ``load`` reads it as it reads any."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..atomic import write_atomic
from ..errors import InputError, NeuroncmpError
from ..ingest.formats.trainer import HEADER
from ..ingest.formats.ui_markdown import memory_table
from ..ingest.registry import by_name
from ..ingest.surround import unwrap
from .discovery import Pair
from .record import rel
from .tools import EXPLORER, ToolError, Tools, view_parquet, view_summary

SUMMARY_FORMAT = "summary-json"
TRAINER_FILES = ("all_results.json", "train_results.json")


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
    from ..ingest import load

    try:
        profiles = load(parquet, format="explorer-parquet")
    except NeuroncmpError as exc:  # no pyarrow, or a table it cannot read: keep the raw files
        raw["memory_error"] = str(exc)
        return None
    rows = [row for p in profiles for row in p.memory]
    if not rows:
        raw["memory_error"] = "no HbmUsageSummaryByType rows"
        return None
    name = f"{label}.memory.md"
    write_atomic(out_dir / name, "\n".join(memory_table(rows)) + "\n")
    return name


def view(out_dir: Path, label: str, tools: Tools, pair: Pair, raw_dir: Path,
         raw: dict[str, Any]) -> tuple[str, str | None]:
    """What ``view`` gives of one pair, in a sweep or a single graph capture: the summary-json
    file's name and the memory sidecar's (None without one)."""
    summary = write_summary(out_dir, label, tools, pair, raw_dir)
    return summary, explorer_memory(out_dir, label, tools, pair, raw_dir, raw)


def trainer_file(raw_dir: Path, skip: Path) -> Path | None:
    """The Trainer's results file the job wrote under ``raw_dir`` (not under ``skip``)."""
    for name in TRAINER_FILES:
        found = sorted(p for p in raw_dir.rglob(name) if skip not in p.parents)
        if found:
            return found[0]
    return None


def trainer_block(log_text: str) -> str | None:
    """The last printed ``***** train metrics *****`` block of a log (header + ``k = v`` lines)."""
    lines = log_text.splitlines()
    starts = [i for i, line in enumerate(lines) if HEADER.match(line)]
    if not starts:
        return None
    block = [lines[starts[-1]].strip()]
    for line in lines[starts[-1] + 1:]:
        if "=" not in line or not line.startswith(" "):
            break  # Trainer.log_metrics indents each "key = value" line
        block.append(line.rstrip())
    return "\n".join(block) + "\n" if len(block) > 1 else None


def keep_trainer(raw_dir: Path, inspect_dir: Path, log_text: str, out_dir: Path,
                 label: str) -> str | None:
    """Write the variant's Trainer sidecar into ``out_dir``; its file name, or None."""
    found = trainer_file(raw_dir, inspect_dir)
    data = _json_object(found) if found is not None else None
    if data is not None:
        name = f"{label}.all_results.json"
        write_atomic(out_dir / name, json.dumps(data, indent=2) + "\n")
        return name
    block = trainer_block(log_text)
    if block is None:
        return None
    name = f"{label}.train_metrics.txt"
    write_atomic(out_dir / name, block)
    return name


def _json_object(path: Path) -> dict[str, Any] | None:
    """The file's JSON object; None for a half-written or foreign file (the log block is next)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data else None

