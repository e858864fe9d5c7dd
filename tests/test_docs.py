"""The README documents every command, every diff option, every input and output format."""

from __future__ import annotations

import re

import pytest

from conftest import ROOT
from neuroncmp.cli import cli
from neuroncmp.parsers import parsers
from neuroncmp.render import FORMATS

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


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_output_format_is_documented(fmt):
    assert re.search(r"term\\?\|md\\?\|json\\?\|csv\\?\|html", README) and fmt in README


def test_first_screen_has_the_two_setup_commands():
    first = "\n".join(README.splitlines()[:15])
    assert "pip install . && neuroncmp diff profiles/" in first
    assert "pip install -e '.[test]' && python -m pytest" in first
