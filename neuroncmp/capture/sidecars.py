"""What a variant keeps beside its summary-json: Trainer metrics and the device memory table
(docs/commands/capture.md, "Where files land"). The memory table is written in the ui-markdown
layout (``| ND Idx | NC Idx | Usage Type | Amount |``, bytes) so ``load`` reads it as it reads any.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..atomic import write_atomic
from ..errors import NeuroncmpError
from ..ingest.formats.trainer import HEADER
from ..ingest.formats.ui_markdown import memory_table

TRAINER_FILES = ("all_results.json", "train_results.json")


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


def keep_memory(parquet_dir: Path, out_dir: Path, label: str) -> tuple[str | None, str | None]:
    """(sidecar file name or None, why not) for Explorer's memory table of one variant."""
    from ..ingest import load

    try:
        profiles = load(parquet_dir, format="explorer-parquet")
    except NeuroncmpError as exc:  # no pyarrow, or a table it cannot read: keep the raw files
        return None, str(exc)
    rows = [row for p in profiles for row in p.memory]
    if not rows:
        return None, "no HbmUsageSummaryByType rows"
    name = f"{label}.memory.md"
    write_atomic(out_dir / name, "\n".join(memory_table(rows)) + "\n")
    return name, None
