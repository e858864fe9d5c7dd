"""Single graph mode: ``TOOL capture`` then ``TOOL view`` for one compiled graph (a NEFF), added
to the folder's manifest (created if absent) so several graphs can be compared
(docs/commands/capture.md, "Single graph mode").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import __version__
from ..errors import InputError, UsageError
from ..ingest.manifest import MANIFEST_SCHEMA, manifest_document, profile_entry, write_manifest
from . import discovery, keep, oom, record
from .events import DONE, LINE, START, VIEW, Event, Listener, ignore
from .plan import RAW
from .runner import now, run
from .tools import ToolError, Tools, capture_args

BASE = "profile.ntff"


@dataclass(frozen=True, slots=True)
class GraphRequest:
    neff: Path
    out_dir: Path
    label: str
    batch_size: int | None = None
    num_exec: int | None = None
    nth: int | None = None


def default_label(neff: Path, batch_size: int | None) -> str:
    """``b{N}`` with a batch size, else the NEFF's name made file-safe."""
    if batch_size is not None:
        return f"b{batch_size}"
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", neff.stem).strip("-.") or "graph"


def check(request: GraphRequest) -> None:
    if not request.neff.is_file():
        raise InputError(f"{request.neff}: no such NEFF file")
    for name, value in (("--num-exec", request.num_exec), ("--profile-nth-exec", request.nth)):
        if value is not None and value < 1:
            raise UsageError(f"{name}: expected a positive number, found {value}")
    if request.num_exec and request.nth and request.nth > request.num_exec:
        raise UsageError(f"--profile-nth-exec {request.nth} is after the last of --num-exec "
                         f"{request.num_exec} executions")


def capture_graph(request: GraphRequest, tools: Tools, about: dict[str, Any],
                  on_event: Listener = ignore) -> Path:
    """Capture and view one NEFF into ``request.out_dir``; the written ``<label>.json``."""
    check(request)
    out_dir = request.out_dir.resolve()
    manifest = (manifest_document(out_dir) if out_dir.is_dir() else None) or {
        "schema": MANIFEST_SCHEMA, "captured_by": f"neuroncmp {__version__} capture --neff", **about,
        "started": now(), "profiles": []}
    if any(e.get("label") == request.label for e in manifest.get("profiles", [])):
        raise UsageError(f"{out_dir} already holds a profile labelled {request.label!r}: "
                         "choose another --label or --out")
    raw_dir = out_dir / RAW / request.label
    raw_dir.mkdir(parents=True, exist_ok=True)
    ntff = _run_capture(request, tools, raw_dir, on_event)
    on_event(Event(VIEW, 0, 1, request.label, detail=f"{tools.kind} view {ntff.name}"))
    pair = discovery.Pair(request.neff, ntff, request.neff.stat().st_size, ntff.stat().st_size)
    summary, memory = keep.view(out_dir, request.label, tools, pair, raw_dir, {})
    entry = _entry(request, summary, memory, out_dir, raw_dir, pair, about, tools)
    manifest["profiles"] = [*manifest.get("profiles", []), entry]
    manifest["updated"] = now()
    write_manifest(out_dir, manifest)
    on_event(Event(DONE, 0, 1, request.label, record.CAPTURED, summary))
    return out_dir / summary


def _run_capture(request: GraphRequest, tools: Tools, raw_dir: Path, on_event: Listener) -> Path:
    """Run ``TOOL capture``; the NTFF it wrote, or an error saying why there is none."""
    args = capture_args(tools, request.neff, raw_dir / BASE, request.num_exec, request.nth)
    on_event(Event(START, 0, 1, request.label, detail=" ".join(args)))
    log = raw_dir / "capture.log"
    result = run(args, {}, log, on_line=lambda ln: on_event(Event(LINE, 0, 1, request.label, detail=ln)))
    text = log.read_text(encoding="utf-8", errors="replace")
    if result.exit_status != 0:
        report = oom.parse(text)
        if report is not None:
            raise InputError(f"{tools.kind} capture ran out of device memory (asked for {report.asked()}); "
                             f"log: {log}")
        last = next((ln for ln in reversed(text.splitlines()) if ln.strip()), "no output")
        raise ToolError(f"{tools.kind} capture failed (exit {result.exit_status}): {last.strip()}")
    return _written_ntff(raw_dir, request.nth, log)


def _written_ntff(raw_dir: Path, nth: int | None, log: Path) -> Path:
    expected = raw_dir / (f"profile_exec_{nth}.ntff" if nth else BASE)
    if expected.is_file():
        return expected
    found = sorted(raw_dir.glob("profile*.ntff"))  # collectives runs add _rank_R
    if not found:
        raise InputError(f"capture exited 0 but wrote no {expected.name} in {raw_dir} (log: {log})")
    return found[0]


def _entry(request: GraphRequest, summary: str, memory: str | None, out_dir: Path, raw_dir: Path,
           pair: discovery.Pair, about: dict[str, Any], tools: Tools) -> dict[str, Any]:
    params: dict[str, Any] = {"tags": []}
    if request.batch_size is not None:
        params.update(batch_size=request.batch_size, batch_size_source="capture --batch")
    instance = about.get("instance_type")
    raw = {"neff": record.rel(pair.neff, out_dir), "ntff": record.rel(pair.ntff, out_dir),
           "log": record.rel(raw_dir / "capture.log", out_dir)}
    return profile_entry(summary, request.label, params,
                         metadata={"instance_type": instance} if instance else None,
                         memory=memory, num_exec=request.num_exec,
                         profile_nth_exec=request.nth, tool=tools.kind, raw=raw)
