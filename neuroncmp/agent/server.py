"""The MCP server: one tool per read-only command, each call run as that command in a child process
(what it answers: docs/commands/mcp.md). Running the command itself, rather than its library call in
the server's process, keeps one implementation of every argument's parsing, check and error
message, and lets a call hold no state of the server's (a loaded profile, a store's connection) or
crash it. ``capture`` is never offered: it runs code.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from ..errors import NeuroncmpError, UsageError
from . import schemas
from .sandbox import Sandbox

TOOLS = ("show", "diff", "sweep", "ops", "history", "regressions", "ranks")  # those the CLI has are served
RESOURCES = {"metrics": "The metric catalog: name, group, unit, better direction, kind, meaning.",
             "formats": "The input formats neuroncmp reads and the output formats it writes."}
MAX_DOCUMENT_BYTES = 1 << 20  # a larger JSON document is left out (the summary says so)
MAX_SUMMARY_CHARS = 16_000
CALL_SECONDS = 600.0
SUMMARY_COLUMNS = "100"
INSTRUCTIONS = (
    "neuroncmp compares AWS Neuron profiles with units, noise bands and data-quality checks. Call "
    "diff (baseline first, then variants), sweep (a batch-size sweep), show (one profile), ops (which "
    "operators changed), history and regressions (a store). Quote the summary; a verdict inside its "
    "noise band is not a change; a row marked suspect has a data-quality problem; when the result says "
    "the runs are not comparable, say so instead of a verdict. Paths are relative to the served folder.")


@dataclass(frozen=True)
class Outcome:
    exit_code: int
    stdout: str
    stderr: str


class Service:
    """The tools of one server: the CLI's commands, the folders they may read, whether they may write."""

    def __init__(self, group: click.Group, roots: Sequence[str | Path], allow_write: bool = False) -> None:
        self.sandbox = Sandbox(roots)
        self.allow_write = allow_write
        context = click.Context(group)
        self.commands = {name: command for name in TOOLS
                         if name in group.list_commands(context)
                         and (command := group.get_command(context, name)) is not None}

    def tools(self) -> list[dict[str, Any]]:
        return [{"name": name, "description": " ".join((command.help or "").split("\n\n")[0].split()),
                 "input_schema": schemas.input_schema(command, self.allow_write),
                 "read_only": not self.allow_write, "meta": {"neuroncmp/schema_version": schemas.SCHEMA_VERSION}}
                for name, command in self.commands.items()]

    async def call(self, name: str, arguments: dict[str, Any]) -> tuple[str, dict[str, Any], bool]:
        """(summary text, structured result, is_error) for one tool call."""
        if name not in self.commands:
            return f"no tool {name!r} (tools: {', '.join(self.commands)})", {}, True
        try:
            args, paths = schemas.argv(self.commands[name], arguments, self.allow_write)
            self.sandbox.check(paths)
        except NeuroncmpError as exc:
            return f"Error: {exc}", {}, True
        said = await self.run([name, "--no-color", "--width", SUMMARY_COLUMNS, *args], merged=True)
        if said.exit_code not in (0, 3):
            return _error(said), {"exit_code": said.exit_code}, True
        result: dict[str, Any] = {"schema_version": schemas.SCHEMA_VERSION, "command": name,
                                  "exit_code": said.exit_code}
        summary = _summary(said)
        if arguments.get(schemas.FULL):
            document = await self.run([name, "--format", "json", *args])
            size = len(document.stdout.encode())
            if document.exit_code not in (0, 3):
                return _error(document), {"exit_code": document.exit_code}, True
            if size > MAX_DOCUMENT_BYTES:
                summary += (f"\n(the JSON document is {size:,} bytes, over the {MAX_DOCUMENT_BYTES:,}-byte cap:"
                            " not returned; narrow the call, e.g. metric, group or only-changed)")
            else:
                result["document"] = json.loads(document.stdout)
        return summary, result, False

    async def resource(self, name: str) -> str:
        if name not in RESOURCES:
            raise UsageError(f"no resource {name!r} (resources: {', '.join(RESOURCES)})")
        said = await self.run([name, "--format", "json"])
        if said.exit_code:
            raise UsageError(_error(said))
        return said.stdout

    async def run(self, argv: list[str], merged: bool = False) -> Outcome:
        """The command's exit code and output; ``merged``: its warnings where the terminal shows them."""
        import subprocess

        import anyio

        env = {key: value for key, value in os.environ.items()
               if key not in ("NEURONCMP_STORE", "NEURONCMP_ENGINE", "FORCE_COLOR")}
        env.update(NO_COLOR="1", COLUMNS=SUMMARY_COLUMNS)
        with anyio.fail_after(CALL_SECONDS):
            done = await anyio.run_process([sys.executable, "-m", "neuroncmp", *argv], cwd=self.sandbox.home,
                                           env=env, check=False,
                                           stderr=subprocess.STDOUT if merged else subprocess.PIPE)
        return Outcome(done.returncode, done.stdout.decode(errors="replace"),
                       (done.stderr or b"").decode(errors="replace"))


def _summary(said: Outcome) -> str:
    text = said.stdout.rstrip()
    if said.exit_code == 3:
        text += "\n\nexit 3: a gate tripped (the comparison was made; the gate says no)"
    if len(text) > MAX_SUMMARY_CHARS:
        text = text[:MAX_SUMMARY_CHARS] + "\n(summary cut at 16,000 characters: ask for full, or narrow the call)"
    return text


def _error(said: Outcome) -> str:
    """The CLI's one-line message (click's usage lines above it left out)."""
    said_text = said.stderr or said.stdout
    lines = [line for line in said_text.splitlines() if line.startswith("Error:")]
    return "\n".join(lines) if lines else (said_text.strip() or f"exit {said.exit_code}")
