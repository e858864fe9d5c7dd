"""Run one command with its output streamed to a log file, line by line, nothing printed: written as
``<log>.part`` while it runs, renamed when it ends, so a ``command.log`` is always whole. On Ctrl-C
the command's own process group (started here, in a new session) is terminated before the
interrupt goes on.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TextIO

from ..errors import InputError

_GRACE_SECONDS = 10.0


@dataclass(frozen=True, slots=True)
class RunResult:
    """How a command ended: exit status (negative: killed by that signal), times, its log."""

    exit_status: int
    started: str  # ISO 8601, UTC
    ended: str
    seconds: float
    log: Path


def now() -> str:
    """The current UTC time as ISO 8601 with seconds (what the manifest records)."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def run(command: Sequence[str], env: Mapping[str, str], log: Path, *, cwd: Path | None = None,
        on_line: Callable[[str], None] | None = None) -> RunResult:
    """Run ``command`` with ``env`` added to this process's environment; stdout and stderr both
    go to ``log`` (and each line to ``on_line``). A command that cannot start is an InputError."""
    log.parent.mkdir(parents=True, exist_ok=True)
    partial = log.with_name(log.name + ".part")
    started, clock = now(), time.monotonic()
    with open(partial, "w", encoding="utf-8", errors="replace") as sink:
        process = _start(command, env, sink, cwd)
        try:
            _pump(process, sink, on_line)
        except BaseException:
            _stop(process)
            raise
    os.replace(partial, log)
    return RunResult(process.returncode, started, now(), round(time.monotonic() - clock, 3), log)


def _start(command: Sequence[str], env: Mapping[str, str], sink: object,
           cwd: Path | None) -> subprocess.Popen[str]:
    try:
        return subprocess.Popen(
            list(command), env={**os.environ, **env}, cwd=cwd, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True, errors="replace",
            bufsize=1, start_new_session=True)  # its own group: Ctrl-C reaches us, we stop it
    except OSError as exc:
        raise InputError(f"cannot run {command[0]!r}: {exc.strerror or exc}") from None


def _pump(process: subprocess.Popen[str], sink: TextIO,
          on_line: Callable[[str], None] | None) -> None:
    assert process.stdout is not None
    for line in process.stdout:
        sink.write(line)
        sink.flush()  # a tail -f on the log sees it at once
        if on_line is not None:
            on_line(line.rstrip("\n"))
    process.wait()


def _stop(process: subprocess.Popen[str]) -> None:
    """Terminate the command's process group (SIGTERM, then SIGKILL after a grace period)."""
    if process.poll() is not None:
        return
    for sig, wait in ((signal.SIGTERM, _GRACE_SECONDS), (signal.SIGKILL, None)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue
