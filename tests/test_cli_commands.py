"""The commands are listed in ``cli/commands.py`` (name and one-line help) and imported on first use:
the list must not drift from the command modules, and ``--help`` must read as click would write it
from the real commands."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys

import click
import pytest
from click.testing import CliRunner
from conftest import ROOT, RUN

from neuroncmp.cli import cli
from neuroncmp.cli.commands import COMMANDS

CLI = ROOT / "neuroncmp" / "cli"


def defined_commands() -> dict[str, str]:
    """Each command module's top-level command and the first line of its docstring, read from the
    source (a function decorated with click's ``command`` or ``group``, named as its module)."""
    found = {}
    for path in sorted(CLI.glob("*.py")):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.FunctionDef) and node.name == path.stem and any(
                    isinstance(d, ast.Call) and isinstance(d.func, ast.Attribute)
                    and d.func.attr in ("command", "group") for d in node.decorator_list):
                found[node.name] = (ast.get_docstring(node) or "").splitlines()[0]
    return found


def test_every_command_module_is_listed_with_its_docstrings_first_line():
    assert defined_commands() == COMMANDS


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_listed_command_loads_and_runs_under_its_name(name):
    command = cli.commands[name]
    assert isinstance(command, click.Command) and command.name == name
    assert (command.help or "").splitlines()[0] == COMMANDS[name]
    result = CliRunner().invoke(cli, [name, "--help"], prog_name="neuroncmp")
    assert result.exit_code == 0 and f"Usage: neuroncmp {name} [OPTIONS]" in result.output


LISTING = """
import json, sys, click
from neuroncmp.cli import cli
ctx = click.Context(cli, info_name="neuroncmp")  # as wide as the terminal (COLUMNS), at most 80
lazy = cli.get_help(ctx)
loaded = sorted(m for m in sys.modules if m.startswith("neuroncmp.cli."))
formatter = ctx.make_formatter()
click.Group.format_commands(cli, ctx, formatter)  # click's own listing, from the imported commands
print(json.dumps([lazy, loaded, formatter.getvalue()]))
"""


@pytest.mark.parametrize("width", [40, 80, 200])
def test_the_help_lists_every_command_as_click_would_without_importing_one(width):
    # click writes help at most 80 columns wide, so a docstring's first line (74 characters or more
    # here) always reaches past what the listing shows of it
    out = subprocess.run([sys.executable, "-c", LISTING], capture_output=True, text=True, check=True, cwd=ROOT,
                         env=dict(os.environ, COLUMNS=str(width)))
    lazy, loaded, eager = json.loads(out.stdout)
    assert loaded == ["neuroncmp.cli.app", "neuroncmp.cli.commands"]
    assert eager.startswith("Commands:\n") and eager.count("\n") == len(COMMANDS) + 1
    assert (lazy + "\n").endswith(eager)  # get_help drops the last newline


def test_a_misspelt_command_is_a_usage_error_with_a_suggestion():
    result = CliRunner().invoke(cli, ["dif", str(RUN / "b32.json")])
    assert result.exit_code == 2 and "No such command 'dif'. Did you mean 'diff'?" in result.output


def test_the_command_table_behaves_as_a_mapping():
    names = list(cli.commands)
    assert names == sorted(COMMANDS) and len(cli.commands) == len(COMMANDS)
    assert "diff" in cli.commands and "dif" not in cli.commands and cli.commands.get("dif") is None


def test_the_listing_is_capped_where_the_one_line_helps_suffice():
    # --help lists stand-ins holding each docstring's first line only; click cuts a command's short
    # help to fit at most 80 columns (max_content_width unset), which the first lines always fill.
    # Raise the cap and the listing would show more of a loaded command's help than a stand-in's:
    # keep whole first paragraphs in cli/commands.py first.
    assert cli.context_settings.get("max_content_width") is None
    assert min(len(line) for line in COMMANDS.values()) >= 80 - len(max(COMMANDS, key=len)) - 6


def _option_declarations() -> dict[str, list[str]]:
    """Each flag (``--basis``, ``-o``) -> where a ``click.option(...)`` call declares it (module:line)."""
    found: dict[str, list[str]] = {}
    for path in sorted(CLI.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and ast.unparse(node.func) == "click.option":
                for arg in node.args:
                    if isinstance(arg, ast.Constant) and str(arg.value).startswith("-"):
                        found.setdefault(arg.value, []).append(f"{path.name}:{node.lineno}")
    return found


def test_every_option_is_declared_once():
    """An option several commands take is one decorator in ``cli/options.py``: its flag, type, default
    and help change in one place, for every command at once."""
    declared = _option_declarations()
    assert {flag: places for flag, places in declared.items() if len(places) > 1} == {}
    assert {"--basis", "--baseline", "--where", "-o", "--format", "--since"} <= declared.keys()  # the walk sees them


def test_an_option_shared_by_commands_reads_the_same_in_each():
    """``--basis``, ``--order``, ``--store``, ...: the same choices, default and help wherever they appear
    (the help of ``-o``, ``--format``, ``--threshold``, ``--since``, ``--fail-on`` and ``--baseline`` says what
    each command does with them)."""
    seen: dict[str, dict[tuple, list[str]]] = {}
    for name in COMMANDS:
        command = cli.get_command(click.Context(cli), name)
        commands = command.commands.items() if isinstance(command, click.Group) else [("", command)]
        for sub, each in commands:
            for param in each.params:
                if isinstance(param, click.Option):
                    choices = getattr(param.type, "choices", None)
                    shape = (param.name, param.default, tuple(choices) if choices is not None else param.type.name,
                             param.help)
                    seen.setdefault(param.opts[-1], {}).setdefault(shape, []).append(f"{name} {sub}".strip())
    # --fail-on's rules and --baseline's object are each command's own: a label (diff, ops), a run (ranks)
    own_help = ("--output", "--format", "--threshold", "--since", "--fail-on", "--baseline")
    differ = {flag: shapes for flag, shapes in seen.items() if len(shapes) > 1 and flag not in own_help}
    assert differ == {}
    assert [len(users) for users in seen["--basis"].values()] == [2]  # diff and ops
