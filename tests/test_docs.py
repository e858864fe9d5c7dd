"""The docs document every command, every diff option, every input and output format and every exit
code; the README is a front door with a row per command; the site builds with ``mkdocs build --strict``."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys

import click
import pytest
import yaml
from conftest import ROOT

from neuroncmp.cli import cli
from neuroncmp.ingest.registry import parsers
from neuroncmp.render.registry import names as output_formats

README = (ROOT / "README.md").read_text()
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.rglob("*.md"))
SITE = "\n".join(page.read_text() for page in PAGES)
# the store's commands share the profile-history pages; every other command has a page of its own
HISTORY_PAGES = {"store": "store.md", "history": "history.md", "regressions": "history.md", "report": "report.md"}


def page_of(command: str) -> str:
    if command in HISTORY_PAGES:
        return (DOCS / "history" / HISTORY_PAGES[command]).read_text()
    return (DOCS / "commands" / f"{command}.md").read_text()


def readme_examples() -> dict[str, str]:
    """The README's command table: command -> its one example."""
    table = README.split("## Commands", 1)[1].split("\n\n", 2)[1]
    rows = [line.split(" | ") for line in table.splitlines()[2:]]
    return {row[0].strip("| `"): row[2].strip("| `") for row in rows}


@pytest.mark.parametrize("command", sorted(cli.commands))
def test_every_command_has_a_page_with_its_generated_reference(command):
    page = page_of(command)
    assert f"`neuroncmp {command}" in page or f"# neuroncmp {command}" in page
    assert f":module: neuroncmp.cli.{command}\n    :command: {command}\n" in page


@pytest.mark.parametrize("command", sorted(cli.commands))
def test_every_command_has_a_readme_row_whose_example_parses(command):
    example = readme_examples()[command]
    args = shlex.split(example)
    assert args[:2] == ["neuroncmp", command]
    ctx = click.Context(cli, info_name="neuroncmp")
    target, rest = cli.get_command(ctx, command), args[2:]
    while isinstance(target, click.Group):  # `store add ...`: the subcommand's options
        ctx = click.Context(target, parent=ctx)
        target, rest = target.get_command(ctx, rest[0]), rest[1:]
    # click's parser alone: an unknown option is an error, while no file need exist and no value is converted
    opts, positional, _ = target.make_parser(click.Context(target, parent=ctx)).parse_args(rest)
    assert opts or positional


def test_the_readme_commands_are_exactly_the_cli_commands():
    assert sorted(readme_examples()) == sorted(cli.commands)


@pytest.mark.parametrize("option", [opt for p in cli.commands["diff"].params for opt in p.opts
                                    if opt.startswith("--")])
def test_every_diff_option_is_documented(option):
    assert re.search(rf"`{re.escape(option)}[ `]", page_of("diff")), option


@pytest.mark.parametrize("name", [p.name for p in parsers()])
def test_every_input_format_is_documented(name):
    assert f"| `{name}` |" in (DOCS / "formats.md").read_text()


def test_the_format_option_lists_exactly_the_registered_formats():
    row = next(line for line in page_of("diff").splitlines() if line.startswith("| `--format "))
    documented = re.search(r"`--format ([a-z|\\]+)`", row).group(1).replace("\\", "").split("|")
    assert documented == output_formats("diff")


def test_exit_codes_in_the_docs_match_errors_py():
    """The docs' table is the one description of the codes: each row names the error classes
    that exit with it, and every class of errors.py is named in the row of its own code."""
    from neuroncmp import errors

    section = (DOCS / "exit-codes.md").read_text()
    rows = dict(re.findall(r"^\| ([\d, ]+) \| ([^|]+?) \|$", section, re.M))
    assert rows.keys() == {"0", "1", "2", "3", "130, 143"}
    assert (errors.EXIT_OK, errors.EXIT_INPUT, errors.EXIT_USAGE, errors.EXIT_GATE) == (0, 1, 2, 3)
    classes = [c for c in vars(errors).values()
               if isinstance(c, type) and issubclass(c, errors.NeuroncmpError) and c is not errors.NeuroncmpError]
    assert len(classes) >= 9
    for cls in classes:
        named_in = [code for code, meaning in rows.items() if f"`{cls.__name__}`" in meaning]
        if cls is errors.UnknownFormatError:  # a kind of InputError, not named on its own
            named_in = ["1"]
        assert named_in == [str(cls.exit_code)], cls.__name__
    assert "regressions --fail-on-regression" in rows["3"] and "-o` naming a directory" in rows["1"]


def test_first_screen_has_the_two_setup_commands():
    first = "\n".join(README.splitlines()[:15])
    assert "pip install . && neuroncmp diff profiles/" in first
    assert "pip install -e '.[test]' && python -m pytest" in first


def test_the_readme_is_a_front_door():
    assert len(README.splitlines()) <= 250


def test_the_setup_command_runs_the_tests_as_ci_does():
    assert "pip install --quiet -e '.[test]' && python -m pytest" in (ROOT / ".ci" / "run").read_text()


def nav_pages(entries) -> list[str]:
    out = []
    for entry in entries:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        out += nav_pages(value) if isinstance(value, list) else [value]
    return out


def test_every_page_is_in_the_nav_once():
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    listed = nav_pages(config["nav"])
    assert sorted(listed) == sorted(str(page.relative_to(DOCS)) for page in PAGES)


def test_user_docs_name_no_issue():
    """Issue numbers belong to the tracker and the commit log, not to what a user reads."""
    for page in [ROOT / "README.md", *PAGES]:
        assert not re.search(r"\bissues? \d+", page.read_text(), re.I), page


def test_the_site_builds_strict(tmp_path):
    """`mkdocs build --strict` (the docs extra): a broken link or anchor, or a command the reference
    cannot render, fails the build."""
    pytest.importorskip("mkdocs")
    pytest.importorskip("mkdocs_click")
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                            cwd=ROOT, capture_output=True, text=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "site" / "reference" / "index.html").read_text().count("Usage:") >= len(cli.commands)
