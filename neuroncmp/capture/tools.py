"""The Neuron profile tools: find them, ask their version, run ``view`` and ``capture``.

The flags, as AWS's docs show them, and which readings are ours: docs/commands/capture.md ("The
tools' flags").
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..choices import TOOLS
from ..errors import InputError, MissingDependencyError, UsageError

PROFILER, EXPLORER, NEURON_LS = "neuron-profile", "neuron-explorer", "neuron-ls"
NEURON_BIN = Path("/opt/aws/neuron/bin")
INSTALL_HINT = ("install AWS's Neuron tools: sudo apt-get install aws-neuronx-tools (from the "
                "Neuron apt repository, see docs/commands/capture.md), or put /opt/aws/neuron/bin "
                "on PATH")
_VIEW_TIMEOUT = 3600.0  # a big trace takes minutes to post-process; an hour means it hangs
_SCHEMA_VERSION = re.compile(r"^\s*version:\s*[\"']?(\d+\.\d+\.\d+)", re.MULTILINE)
# Where the schema flag lives: under ``view`` from SDK 2.33, at the top level before.
SCHEMA_COMMANDS = (("view", "--show-profile-schema"), ("--show-profile-schema",))


@dataclass(frozen=True, slots=True)
class Tools:
    """The profile tool to use (its kind and path) and ``neuron-ls`` when installed."""

    kind: str
    path: Path
    neuron_ls: Path | None


class ToolError(InputError):
    """A Neuron tool ran and failed: names the command, its exit status and its last error line."""


def locate(kind: str = "auto", search_path: str | None = None,
           extra_dirs: Sequence[Path] | None = None) -> Tools:
    """The profile tool of ``kind`` (``auto``: Explorer, else the profiler); MissingDependencyError
    with one line saying what to install when there is none."""
    if kind not in TOOLS:
        raise UsageError(f"--tool: expected one of {', '.join(TOOLS)}, found {kind!r}")
    wanted = (EXPLORER, PROFILER) if kind == "auto" else (kind,)
    extra_dirs = (NEURON_BIN,) if extra_dirs is None else extra_dirs
    for name in wanted:
        path = which(name, search_path, extra_dirs)
        if path is not None:
            return Tools(name, path, which(NEURON_LS, search_path, extra_dirs))
    names = " or ".join(wanted)
    raise MissingDependencyError(f"{names} not found on PATH or in {NEURON_BIN}: {INSTALL_HINT}")


def which(name: str, search_path: str | None, extra_dirs: Sequence[Path]) -> Path | None:
    dirs = (search_path if search_path is not None else os.environ.get("PATH", ""))
    found = shutil.which(name, path=os.pathsep.join([dirs, *map(str, extra_dirs)]))
    return Path(found) if found else None


def version(tool: Path) -> str:
    """The first line ``TOOL --version`` prints, or what went wrong (recorded, never raised)."""
    try:
        done = subprocess.run([str(tool), "--version"], capture_output=True, text=True, timeout=60,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"unknown ({type(exc).__name__})"
    lines = (done.stdout.strip() or done.stderr.strip()).splitlines()
    first = lines[0].strip() if lines else ""
    return first if done.returncode == 0 and first else f"unknown (exit {done.returncode}: {first})"


def profile_schema(tools: Tools) -> str | None:
    """The profile schema version the installed Explorer writes (None for the profiler), or what
    went wrong: recorded in the manifest, never raised."""
    if tools.kind != EXPLORER:
        return None
    errors = []
    for args in SCHEMA_COMMANDS:
        try:
            text = run_tool([str(tools.path), *args], timeout=60)
        except ToolError as exc:
            errors.append(str(exc))
            continue
        found = _SCHEMA_VERSION.search(text)
        return found[1] if found else "unknown (no 'version: X.Y.Z' line in the schema it printed)"
    return f"unknown ({errors[-1]})"


def run_tool(args: Sequence[str], stderr_file: Path | None = None,
             timeout: float = _VIEW_TIMEOUT) -> str:
    """Run a tool command; its stdout, or ToolError naming the command and its last stderr line.
    The full stderr goes to ``stderr_file`` when given (kept beside the raw files)."""
    try:
        done = subprocess.run(list(args), capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL, errors="replace")
    except subprocess.TimeoutExpired:
        raise ToolError(f"{_short(args)}: no answer after {timeout:.0f} s") from None
    except OSError as exc:
        raise ToolError(f"{_short(args)}: cannot run: {exc.strerror or exc}") from None
    if stderr_file is not None and done.stderr:
        stderr_file.parent.mkdir(parents=True, exist_ok=True)
        stderr_file.write_text(done.stderr, encoding="utf-8")
    if done.returncode != 0:
        last = next((ln.strip() for ln in reversed(done.stderr.splitlines()) if ln.strip()),
                    "no error message")
        raise ToolError(f"{_short(args)} failed (exit {done.returncode}): {last}")
    return done.stdout


def _short(args: Sequence[str]) -> str:
    return " ".join([Path(args[0]).name, *args[1:2]])


def view_summary(tools: Tools, neff: Path, ntff: Path, stderr_file: Path | None = None) -> str:
    """The summary-json text ``view`` prints for one NEFF/NTFF pair."""
    return run_tool([str(tools.path), "view", "-n", str(neff), "-s", str(ntff),
                     "--output-format", "summary-json"], stderr_file)


def view_parquet(tools: Tools, neff: Path, ntff: Path, out_dir: Path,
                 stderr_file: Path | None = None) -> None:
    """Explorer's Parquet tables for one pair, written into ``out_dir``."""
    run_tool([str(tools.path), "view", "-n", str(neff), "-s", str(ntff),
              "--output-format", "parquet", "--output-file", str(out_dir)], stderr_file)


def capture_args(tools: Tools, neff: Path, ntff: Path, num_exec: int | None,
                 nth: int | None) -> list[str]:
    """``TOOL capture -n NEFF -s NTFF [--num-exec N] [--profile-nth-exec M]``."""
    args = [str(tools.path), "capture", "-n", str(neff), "-s", str(ntff)]
    if num_exec is not None:
        args += ["--num-exec", str(num_exec)]
    if nth is not None:
        args += ["--profile-nth-exec", str(nth)]
    return args
