"""The README documents every command, every diff option, every input and output format."""

from __future__ import annotations

import re

import pytest
from conftest import ROOT

from neuroncmp.cli import cli
from neuroncmp.ingest.registry import parsers
from neuroncmp.render.registry import names as output_formats

README = (ROOT / "README.md").read_text()


@pytest.mark.parametrize("command", sorted(cli.commands))
def test_every_command_is_documented(command):
    assert f"`neuroncmp {command}" in README


@pytest.mark.parametrize("option", [opt for p in cli.commands["diff"].params for opt in p.opts
                                    if opt.startswith("--")])
def test_every_diff_option_is_documented(option):
    assert re.search(rf"`{re.escape(option)}[ `]", README), option


@pytest.mark.parametrize("name", [p.name for p in parsers()])
def test_every_input_format_is_documented(name):
    assert f"| `{name}` |" in README


def test_the_format_option_lists_exactly_the_registered_formats():
    row = next(line for line in README.splitlines() if line.startswith("| `--format "))
    documented = re.search(r"`--format ([a-z|\\]+)`", row).group(1).replace("\\", "").split("|")
    assert documented == output_formats("diff")


def test_exit_codes_in_the_readme_match_errors_py():
    """The README's table is the one description of the codes: each row names the error classes
    that exit with it, and every class of errors.py is named in the row of its own code."""
    from neuroncmp import errors

    section = README.split("## Exit codes", 1)[1].split("\n## ", 1)[0]
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
