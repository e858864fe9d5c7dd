"""The transcripts in the README and the docs site are what the commands print today.

A code block whose first line is ``$ neuroncmp ...`` is a transcript: each ``$ neuroncmp`` line in it is
run from the repository root at 100 columns without colour, and the lines under it must be what it
prints. A line ``...`` leaves lines out: every stretch between elisions must appear, in order and line for
line; without a leading ``...`` the first stretch is the output's first lines, without a trailing one the
last stretch its last lines. Commands that read the store (``history``, ``regressions``, ``store``,
``report``, ``diff --baseline-history``) run in a folder where the walk-through's set-up
(docs/history/index.md) has run. A transcript that drifts from the code fails here, not in a user's hands.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import ROOT

from neuroncmp.cli import cli

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
BLOCK = re.compile(r"^```[a-z]*\n(\$ neuroncmp .*?)^```", re.S | re.M)
STORE_COMMANDS = {"history", "regressions", "store", "report"}
WALK_THROUGH = ROOT / "docs" / "history" / "index.md"


@dataclass(frozen=True)
class Transcript:
    page: str
    command: str
    body: str

    @property
    def needs_store(self) -> bool:
        args = shlex.split(self.command)[1:]
        return args[0] in STORE_COMMANDS or "--baseline-history" in args


def transcripts(text: str, page: str) -> Iterator[Transcript]:
    for block in BLOCK.findall(text):
        for part in re.split(r"^\$ ", block, flags=re.M)[1:]:
            command, _, body = part.partition("\n")
            yield Transcript(page, command, body)


TRANSCRIPTS = [t for page in PAGES for t in transcripts(page.read_text(), str(page.relative_to(ROOT)))]


def stretches(body: str) -> list[list[str] | None]:
    """The body's lines split at ``...`` lines (each elision a None), trailing blank lines dropped."""
    out: list[list[str] | None] = []
    current: list[str] = []
    for line in [*body.splitlines(), "..."]:
        if line.strip() != "...":
            current.append(line.rstrip())
            continue
        while current and not current[-1]:
            current.pop()
        out += [current] if current else []
        out.append(None)
        current = []
    out.pop()  # the "..." added at the end
    return out


def find(lines: list[str], stretch: list[str], start: int) -> int:
    """Where ``stretch`` starts in ``lines`` at or after ``start``, or -1."""
    for at in range(start, len(lines) - len(stretch) + 1):
        if lines[at:at + len(stretch)] == stretch:
            return at
    return -1


def check(transcript: Transcript, lines: list[str]) -> None:
    parts = stretches(transcript.body)
    at, elided = 0, False
    where = f"{transcript.page}: `{transcript.command}`"
    for stretch in parts:
        if stretch is None:
            elided = True
            continue
        found = find(lines, stretch, at)
        assert found >= 0, f"{where} does not print:\n" + "\n".join(stretch)
        assert elided or found == at, f"{where} prints other lines before:\n" + "\n".join(stretch)
        at, elided = found + len(stretch), False
    while lines[at:] and not lines[-1]:
        lines = lines[:-1]
    assert elided or at == len(lines), f"{where} prints more lines after the transcript: mark them with ..."


def run(command: str) -> list[str]:
    result = CliRunner(env={"COLUMNS": "100"}).invoke(cli, shlex.split(command)[1:], catch_exceptions=False)
    assert result.exit_code in (0, 3), result.output
    return [line.rstrip() for line in result.output.splitlines()]


def test_the_readme_and_the_command_pages_have_transcripts():
    assert {shlex.split(t.command)[1] for t in TRANSCRIPTS if t.page == "README.md"} == {"diff"}
    documented = {shlex.split(t.command)[1] for t in TRANSCRIPTS}
    assert {"diff", "sweep", "show", "ops", "history", "regressions"} <= documented


@pytest.mark.parametrize("transcript", [t for t in TRANSCRIPTS if not t.needs_store],
                         ids=lambda t: f"{t.page}: {t.command[:70]}")
def test_each_transcript_is_what_the_command_prints(transcript, monkeypatch):
    monkeypatch.chdir(ROOT)
    check(transcript, run(transcript.command))


def test_the_rows_excerpt_under_the_diff_are_rows_of_that_diff(monkeypatch):
    page = (ROOT / "docs" / "commands" / "diff.md").read_text()
    (first, *_) = transcripts(page, "diff.md")
    excerpt = page.split("A few rows of the full table (`--all`):", 1)[1].split("```")[1].strip("\n").splitlines()
    monkeypatch.chdir(ROOT)
    lines = set(run(first.command + " --all"))
    assert excerpt and [row for row in excerpt if row.rstrip() not in lines] == []


# ---- transcripts that read the store: after the walk-through's set-up ---------------------------------

def walk_through_setup() -> list[str]:
    section = WALK_THROUGH.read_text().split("## Walk-through", 1)[1]
    setup = re.findall(r"```bash\n(.*?)```", section, re.S)[0]
    return [line.split("#", 1)[0].strip() for line in setup.splitlines() if line.split("#", 1)[0].strip()]


@pytest.fixture(scope="module")
def walked(tmp_path_factory) -> Path:
    """A folder where the walk-through's commands have run (the bundled profiles and scripts linked in)."""
    pytest.importorskip("duckdb")
    folder = tmp_path_factory.mktemp("walk")
    (folder / "profiles").symlink_to(ROOT / "profiles")
    (folder / "scripts").symlink_to(ROOT / "scripts")
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        for command in walk_through_setup():
            if command.startswith("python "):
                subprocess.run([sys.executable, *shlex.split(command)[1:]], check=True, capture_output=True)
            elif command.startswith("neuroncmp "):
                result = CliRunner().invoke(cli, shlex.split(command)[1:], catch_exceptions=False)
                assert result.exit_code == 0, result.output
    finally:
        os.chdir(cwd)
    return folder


def test_the_walk_through_sets_up_a_store():
    commands = walk_through_setup()
    assert any(c.startswith("neuroncmp store add --runs") for c in commands)
    assert any(c.startswith("python scripts/make_history.py") for c in commands)


@pytest.mark.parametrize("transcript", [t for t in TRANSCRIPTS if t.needs_store],
                         ids=lambda t: f"{t.page}: {t.command[:70]}")
def test_each_store_transcript_is_what_the_command_prints(transcript, walked, monkeypatch):
    monkeypatch.chdir(walked)
    monkeypatch.delenv("NEURONCMP_STORE", raising=False)
    check(transcript, run(transcript.command))
