"""A batch-size sweep: run each variant, keep its device profile, record it, carry on.

What each outcome records (the ``failed`` statuses, ``upper_bound``): docs/commands/capture.md
("Where files land", "When something fails"). The manifest is rewritten atomically after every
variant, so a folder is always loadable; a Ctrl-C records the running variant as ``interrupted``.
"""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..ingest.manifest import write_manifest
from . import discovery, keep, oom, preflight, record
from .events import DONE, LINE, SKIP, START, VIEW, Event, Listener, ignore
from .plan import Plan, Variant
from .runner import run
from .tools import ToolError, Tools

MEM_TABLE_GLOB = "neuron_mem_table_device_*_hbm_*.log"


@dataclass(frozen=True, slots=True)
class Options:
    graph: str = "largest"
    resume: bool = False
    mem_table_dir: Path = Path("/tmp")  # where the runtime also writes its OOM table
    on_event: Listener = ignore


@dataclass(frozen=True, slots=True)
class _Sweep:
    """What every variant of one sweep shares."""

    plan: Plan
    tools: Tools
    options: Options
    metadata: dict[str, Any]  # profile metadata from the machine (instance type)
    tool: str  # "neuron-explorer <version>", kept per entry (a resumed sweep may mix versions)


@dataclass(frozen=True, slots=True)
class Outcome:
    """How one variant ended: ``captured``, ``skipped`` or a failure status, with the reason."""

    label: str
    batch_size: int
    status: str
    reason: str = ""
    file: str | None = None


@dataclass(frozen=True, slots=True)
class SweepResult:
    out_dir: Path
    manifest: Path
    outcomes: tuple[Outcome, ...]
    upper_bound: dict[str, Any] | None = field(default=None)

    @property
    def failures(self) -> tuple[Outcome, ...]:
        """Variants that produced nothing for a reason other than running out of memory."""
        return tuple(o for o in self.outcomes if o.status not in (record.CAPTURED, record.OOM, "skipped"))


def capture_sweep(plan: Plan, tools: Tools, about: dict[str, Any],
                  options: Options = Options()) -> SweepResult:
    """Run every variant of ``plan`` (skipping finished ones with ``options.resume``)."""
    manifest = record.existing(plan, options.resume) or record.new(plan, about)
    manifest.update(about, graph_rule=options.graph)  # a resumed run records today's tools
    skip = record.done_labels(manifest, plan.out_dir) if options.resume else set()
    instance = about.get("instance_type")
    version = (about.get("tool") or {}).get("version", "")
    # "neuron-explorer version 2.31.24.0": the tool's own --version line names it already
    described = version if version.startswith(tools.kind) else f"{tools.kind} {version}".strip()
    sweep = _Sweep(plan, tools, options, {"instance_type": instance} if instance else {}, described)
    outcomes = []
    for index, variant in enumerate(plan.variants):
        event = _announcer(options.on_event, index, len(plan.variants), variant.label)
        if variant.label in skip:
            event(SKIP, "already captured")
            outcomes.append(Outcome(variant.label, variant.batch_size, "skipped"))
            continue
        outcome = _guarded(sweep, variant, manifest, event)
        outcomes.append(outcome)
        event(DONE, outcome.reason, outcome.status)
        if outcome.status == "placeholder":
            raise InputError(f"{variant.label}: {outcome.reason}")
    path = plan.out_dir / "manifest.json"
    return SweepResult(plan.out_dir, path, tuple(outcomes), manifest["upper_bound"])


def _announcer(listener: Listener, index: int, total: int, label: str) -> Any:
    def event(kind: str, detail: str = "", status: str | None = None) -> None:
        listener(Event(kind, index, total, label, status, detail))
    return event


def _guarded(sweep: _Sweep, variant: Variant, manifest: dict[str, Any], event: Any) -> Outcome:
    """Capture one variant and record it; on Ctrl-C record it as interrupted, then re-raise."""
    plan = sweep.plan
    try:
        profile, failure, outcome = _capture(sweep, variant, event)
    except KeyboardInterrupt:
        raw = {"log": record.rel(variant.log.with_name(variant.log.name + ".part"), plan.out_dir)}
        failure = record.failed_entry(variant, "interrupted", "interrupted (Ctrl-C); rerun with "
                                      "--resume", {}, raw)
        record.put(manifest, variant, None, failure)
        write_manifest(plan.out_dir, manifest)
        raise
    record.put(manifest, variant, profile, failure)
    write_manifest(plan.out_dir, manifest)
    return outcome


def _capture(sweep: _Sweep, variant: Variant,
             event: Any) -> tuple[dict[str, Any] | None, dict[str, Any] | None, Outcome]:
    plan = sweep.plan
    _clear(plan, variant)
    event(START, " ".join(variant.command))
    clock = time.time()
    result = run(variant.command, dict(variant.env), variant.log,
                 on_line=lambda line: event(LINE, line))
    log_text = variant.log.read_text(encoding="utf-8", errors="replace")
    run_info = {"exit_status": result.exit_status, "started": result.started, "ended": result.ended,
                "seconds": result.seconds}
    raw: dict[str, Any] = {"log": record.rel(variant.log, plan.out_dir)}
    if result.exit_status != 0:
        return _failed_run(plan, variant, log_text, clock, sweep.options, run_info, raw)
    try:
        return _keep_profile(sweep, variant, log_text, run_info, raw, event)
    except ToolError as exc:
        return _failure(variant, "tool-error", str(exc), run_info, raw)


def _clear(plan: Plan, variant: Variant) -> None:
    """A fresh raw folder: stale NTFFs of an earlier, interrupted run must not be picked up."""
    if variant.raw_dir.exists():
        shutil.rmtree(variant.raw_dir)
    variant.raw_dir.mkdir(parents=True)
    for stale in plan.out_dir.glob(f"{variant.label}.*"):
        if stale.is_file():
            stale.unlink()


def _failure(variant: Variant, status: str, reason: str, run_info: dict[str, Any],
             raw: dict[str, Any], report: dict[str, Any] | None = None) -> tuple[None, dict[str, Any], Outcome]:
    failure = record.failed_entry(variant, status, reason, run_info, raw, report)
    return None, failure, Outcome(variant.label, variant.batch_size, status, reason)


def _failed_run(plan: Plan, variant: Variant, log_text: str, started: float, options: Options,
                run_info: dict[str, Any], raw: dict[str, Any]) -> tuple[None, dict[str, Any], Outcome]:
    status = run_info["exit_status"]
    if preflight.placeholder_in_log(log_text):
        return _failure(variant, "placeholder", "the job imported PyPI's placeholder torch-neuronx "
                        f"('{preflight.PLACEHOLDER_MARK}'): {preflight.PLACEHOLDER_FIX}", run_info, raw)
    report = _oom_report(log_text, started, options.mem_table_dir, raw, plan.out_dir)
    if report is not None:
        return _failure(variant, record.OOM, f"out of device memory: the runtime failed to allocate "
                        f"{report.asked()} on {report.where or 'the device'}", run_info, raw, report.as_dict())
    compiled = oom.parse_compiler(log_text)
    if compiled is not None:
        return _failure(variant, record.OOM, f"out of device memory at compile time: {compiled.reason()}",
                        run_info, raw, compiled.as_dict())
    last = next((ln.strip() for ln in reversed(log_text.splitlines()) if ln.strip()), "no output")
    return _failure(variant, "failed", f"exit status {status}: {last[:200]}", run_info, raw)


def _oom_report(log_text: str, started: float, table_dir: Path, raw: dict[str, Any],
                out_dir: Path) -> oom.OomReport | None:
    """The OOM report from the log, its table completed from the runtime's own table file (written
    in case the log line is cut) when the log has the failed allocation but no table."""
    report = oom.parse(log_text)
    if report is None or report.rows:
        return report
    files = sorted(p for p in table_dir.glob(MEM_TABLE_GLOB) if p.stat().st_mtime >= started)
    for file in files:
        table = oom.parse(file.read_text(encoding="utf-8", errors="replace"))
        if table is not None and table.rows:
            raw["memory_table"] = record.rel(file, out_dir)
            return oom.OomReport(report.requested_bytes, report.requested_usage, report.where,
                                 table.columns, table.rows, table.neff_names)
    return report


def _keep_profile(sweep: _Sweep, variant: Variant, log_text: str, run_info: dict[str, Any],
                  raw: dict[str, Any],
                  event: Any) -> tuple[dict[str, Any] | None, dict[str, Any] | None, Outcome]:
    plan, tools, options = sweep.plan, sweep.tools, sweep.options
    found = discovery.find(variant.inspect_dir)
    raw["unpaired_ntff"] = [record.rel(p, plan.out_dir) for p in found.unpaired]
    raw["pairs"] = len(found.pairs)
    if found.sessions:
        raw["session_ntff"] = [record.rel(p, plan.out_dir) for p in found.sessions]
    if not found.pairs and found.sessions:
        return _failure(variant, "session-trace", discovery.session_refusal(found.sessions[0]), run_info, raw)
    if not found.pairs:
        return _failure(variant, "no-ntff", f"the command exited 0 but no NEFF/NTFF pair is under "
                        f"{record.rel(variant.inspect_dir, plan.out_dir)}: it must run the model on "
                        "a Neuron device, and NEURON_RT_INSPECT_* must reach the runtime",
                        run_info, raw)
    pair = discovery.pick(found.pairs, options.graph)
    if pair is None:
        names = ", ".join(sorted({p.neff.name for p in found.pairs}))
        return _failure(variant, "no-graph", f"--graph {options.graph!r} matches none of: {names}",
                        run_info, raw)
    raw.update(neff=record.rel(pair.neff, plan.out_dir), ntff=record.rel(pair.ntff, plan.out_dir))
    event(VIEW, f"{tools.kind} view {pair.ntff.name}")
    file, memory = keep.view(plan.out_dir, variant.label, tools, pair, variant.raw_dir, raw)
    training = keep.keep_trainer(variant.raw_dir, variant.inspect_dir, log_text, plan.out_dir, variant.label)
    entry = record.captured_entry(variant, file, run_info, sweep.metadata, memory, training, raw)
    entry["tool"] = sweep.tool
    return entry, None, Outcome(variant.label, variant.batch_size, record.CAPTURED, "", file)
