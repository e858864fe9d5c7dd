"""The two capture entry points the CLI calls: find the tools, check the machine, then run the
sweep or the single graph; each check fails with a clear one-line error.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import UsageError
from . import plan as plans
from . import preflight, tools
from .discovery import check_rule
from .events import Listener, ignore
from .single import GraphRequest, capture_graph, default_label
from .sweep import Options, SweepResult, capture_sweep


def machine(kind: str = "auto", dev_dir: Path = Path("/dev")) -> tuple[tools.Tools, dict[str, Any]]:
    """The tool to use and what the manifest records about it and the machine."""
    found = tools.locate(kind)
    preflight.check_not_placeholder()
    info = preflight.check_device(found, dev_dir)
    tool = {"name": found.kind, "path": str(found.path), "version": tools.version(found.path)}
    schema = tools.profile_schema(found)
    if schema is not None:
        tool["profile_schema"] = schema
    about = {"tool": tool, "packages": preflight.package_versions(), "instance_type": info.instance_type}
    return found, about


def sweep(out_dir: Path, command: tuple[str, ...], batches: str, *, steps: int | None = None,
          warmup: int | None = None, env: tuple[str, ...] = (), graph: str = "largest",
          resume: bool = False, tool: str = "auto", on_event: Listener = ignore) -> SweepResult:
    """``neuroncmp capture --batch ... -- COMMAND``: one profile per batch size in ``out_dir``."""
    plan = plans.build(out_dir, command, plans.parse_batches(batches), steps=steps, warmup=warmup,
                       extra_env=plans.parse_env(env))
    found, about = machine(tool)
    options = Options(graph=check_rule(graph), resume=resume, on_event=on_event)
    return capture_sweep(plan, found, about, options)


def graph(neff: Path, out_dir: Path, *, label: str | None = None, batch: str | None = None,
          num_exec: int | None = None, nth: int | None = None, tool: str = "auto",
          on_event: Listener = ignore) -> Path:
    """``neuroncmp capture --neff model.neff``: one graph captured and viewed into ``out_dir``."""
    batches = plans.parse_batches(batch) if batch else ()
    if len(batches) > 1:
        raise UsageError("--neff captures one graph: give --batch one batch size (or none)")
    size = batches[0] if batches else None
    request = GraphRequest(neff, out_dir, label or default_label(neff, size), size, num_exec, nth)
    found, about = machine(tool)
    return capture_graph(request, found, about, on_event)

