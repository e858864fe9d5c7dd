"""The README's transcripts are what the commands print today.

A README block that starts with ``$ neuroncmp diff|sweep|show|ops ...`` is run from the repository root at
100 columns without colour; every stretch of its lines between ``...`` elisions must appear, in
order and line for line, in the real output. The excerpt of full-table rows under the first diff
must be lines of that diff. A transcript that drifts from the code fails here, not in a user's hands.
"""

from __future__ import annotations

import re
import shlex

import pytest
from click.testing import CliRunner
from conftest import ROOT

from neuroncmp.cli import cli

README = (ROOT / "README.md").read_text()
TRANSCRIPT = re.compile(r"```\n\$ (neuroncmp (?:diff|sweep|show|ops) [^\n]*)\n(.*?)```", re.S)
TRANSCRIPTS = TRANSCRIPT.findall(README)


def run(command: str, monkeypatch) -> list[str]:
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("COLUMNS", "100")
    result = CliRunner().invoke(cli, shlex.split(command)[1:], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return [line.rstrip() for line in result.output.splitlines()]


def stretches(body: str) -> list[list[str]]:
    """The block's lines, split at ``...`` lines, without the blank lines that end a stretch."""
    out: list[list[str]] = [[]]
    for line in body.splitlines():
        if line.strip() == "...":
            out.append([])
        else:
            out[-1].append(line.rstrip())
    for stretch in out:
        while stretch and not stretch[-1]:
            stretch.pop()
    return [s for s in out if s]


def find(lines: list[str], stretch: list[str], start: int) -> int:
    """Where ``stretch`` starts in ``lines`` at or after ``start``, or -1."""
    for at in range(start, len(lines) - len(stretch) + 1):
        if lines[at:at + len(stretch)] == stretch:
            return at
    return -1


def test_the_readme_has_transcripts_of_diff_sweep_show_and_ops():
    assert {shlex.split(command)[1] for command, _ in TRANSCRIPTS} == {"diff", "sweep", "show", "ops"}


@pytest.mark.parametrize("command,body", TRANSCRIPTS, ids=[c for c, _ in TRANSCRIPTS])
def test_each_transcript_is_what_the_command_prints(command, body, monkeypatch):
    lines = run(command, monkeypatch)
    at = 0
    for stretch in stretches(body):
        found = find(lines, stretch, at)
        assert found >= 0, f"README shows lines that `{command}` does not print:\n" + "\n".join(stretch)
        at = found + len(stretch)


def test_the_rows_excerpt_under_the_first_diff_are_rows_of_that_diff(monkeypatch):
    command = TRANSCRIPTS[0][0] + " --all"  # the full table
    excerpt = README.split("A few rows of the full table (`--all`):", 1)[1].split("```")[1].strip("\n").splitlines()
    lines = set(run(command, monkeypatch))
    assert excerpt and [row for row in excerpt if row.rstrip() not in lines] == []


# ---- the store walk-through ---------------------------------------------------------------------

WALK = README.split("### Walk-through", 1)[1].split("### The store", 1)[0]
SETUP, SHOWN = re.findall(r"```(?:bash)?\n(.*?)```", WALK, re.S)[:2]


def test_the_store_walk_through_prints_what_the_readme_shows(tmp_path, monkeypatch):
    """Run the walk-through's commands in a fresh folder (the bundled profiles linked in), then
    compare every ``$ neuroncmp ...`` transcript with what the command prints."""
    pytest.importorskip("duckdb")
    import subprocess
    import sys

    (tmp_path / "profiles").symlink_to(ROOT / "profiles")
    (tmp_path / "scripts").symlink_to(ROOT / "scripts")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.delenv("NEURONCMP_STORE", raising=False)
    for command in [line.split("#", 1)[0].strip() for line in SETUP.splitlines()]:
        if command.startswith("python "):
            subprocess.run([sys.executable, *shlex.split(command)[1:]], check=True, capture_output=True)
        elif command.startswith("neuroncmp store add"):
            result = CliRunner().invoke(cli, shlex.split(command)[1:], catch_exceptions=False)
            assert result.exit_code == 0, result.output
    shown = re.split(r"^\$ ", SHOWN, flags=re.M)[1:]
    assert len(shown) == 2
    for block in shown:
        command, _, body = block.partition("\n")
        result = CliRunner().invoke(cli, shlex.split(command)[1:], catch_exceptions=False)
        lines = [line.rstrip() for line in result.output.splitlines()]
        expected = [line.rstrip() for line in body.strip("\n").splitlines()]
        assert lines == expected, f"`{command}` prints:\n" + "\n".join(lines)
