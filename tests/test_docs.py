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
    from neuroncmp import errors

    section = README.split("## Exit codes", 1)[1].split("\n## ", 1)[0]
    codes = dict(re.findall(r"^\| (\d) \| ([^|]+?) \|", section, re.M))
    assert codes.keys() == {"0", "1", "2", "3"}
    assert (errors.EXIT_OK, errors.EXIT_INPUT, errors.EXIT_USAGE, errors.EXIT_GATE) == (0, 1, 2, 3)
    assert "input" in codes["1"] and "usage" in codes["2"] and "gate" in codes["3"]
    for exc, code in ((errors.ParseError("f", "w", "e"), 1), (errors.UsageError(), 2), (errors.RuleError(), 2),
                      (errors.GateTripped(), 3), (errors.UnknownFormatError(), 1)):
        assert exc.exit_code == code


def test_first_screen_has_the_two_setup_commands():
    first = "\n".join(README.splitlines()[:15])
    assert "pip install . && neuroncmp diff profiles/" in first
    assert "pip install -e '.[test]' && python -m pytest" in first
