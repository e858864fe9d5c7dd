"""Colour on a terminal: the SGR codes rich writes for the views' styles, written without rich
(``render.layout.ansi``), and the rules of when colour is written (FORCE_COLOR, NO_COLOR,
--no-color, TTY_COMPATIBLE, a dumb terminal, a pipe)."""

from __future__ import annotations

import io
import re

import pytest
from click.testing import CliRunner
from conftest import RUN
from rich.console import Console

import neuroncmp
from neuroncmp.cli import cli
from neuroncmp.commands.diff import DiffOptions, diff_report
from neuroncmp.render.formats.term import RENDERER
from neuroncmp.render.layout import ansi, sgr, to_rich

FILES = [str(RUN / f"{name}.json") for name in ("baseline", "b2", "b16", "b32", "b64")]
SGR_PIECE = re.compile(r"\x1b\[([0-9;]*)m([^\x1b]*)\x1b\[0m")


def rich_prints(lines, **console):
    """What rich prints for the lines, as the CLI printed them through rich before."""
    out = io.StringIO()
    Console(file=out, highlight=False, soft_wrap=False, **console).print(to_rich(lines), soft_wrap=True)
    return out.getvalue()


def documents():
    profiles = neuroncmp.load_many(FILES)
    report = diff_report(profiles, DiffOptions())
    sweep = neuroncmp.sweep(profiles[1:])
    yield from (RENDERER.styled("diff", report, width) for width in (44, 100, 180))
    yield RENDERER.styled("profiles", profiles[:2], 100)
    yield RENDERER.styled("sweep", sweep, 100)
    # what no view writes today but an input can hold: controls, bidi overrides, wide spaces, and
    # whitespace at the very end inside styled pieces (rich strips the text's end, styles and all)
    yield [[("\x1b[31mred?\x07", "yellow"), ("\u202e", "")], [("tab\there", "bold underline")],
           [("  ", "dim"), ("x\u3000 ", "red")], [], [("  ", "green")], []]
    yield []
    yield [[("\u00a0", "dim")]]


@pytest.mark.parametrize("system", ["standard", "256", "truecolor"])
def test_the_codes_are_the_bytes_rich_writes(system):
    for lines in documents():
        assert ansi(lines) == rich_prints(lines, force_terminal=True, color_system=system)


def test_without_colour_the_text_is_what_rich_writes_where_it_gives_none():
    """A dumb terminal, TTY_COMPATIBLE=0: rich wrote the laid-out lines unstripped, no codes."""
    for lines in documents():
        assert ansi(lines, colour=False) == rich_prints(lines, force_terminal=False)


@pytest.mark.parametrize(("style", "codes"), [
    ("bold", "1"), ("dim", "2"), ("italic", "3"), ("underline", "4"), ("red", "31"), ("green", "32"),
    ("yellow", "33"), ("cyan", "36"), ("bold cyan", "1;36"), ("bold red", "1;31"), ("bold yellow", "1;33"),
    ("bold underline", "1;4"), ("underline bold", "1;4"), ("dim italic magenta", "2;3;35"),
])
def test_each_style_has_its_sgr_codes(style, codes):
    """ECMA-48 SGR: 1 bold, 2 faint, 3 italic, 4 underline, 30 + n the eight colours."""
    assert sgr(style) == codes


@pytest.mark.parametrize("style", ["on red", "bright_red", "red green", "#ff0000", "blink", "bold bold"])
def test_a_style_outside_the_known_set_is_left_to_rich(style):
    assert sgr(style) is None
    assert ansi([[("x", style)]]) is None
    assert ansi([[("x", style)]], colour=False) is not None  # no codes to write: nothing to know


def colour_diff(*args, **env):
    """The diff through the CLI (CliRunner: standard output is not a terminal)."""
    env = {"TERM": "xterm", "FORCE_COLOR": None, "NO_COLOR": None, "TTY_COMPATIBLE": None, **env}
    return CliRunner().invoke(cli, ["diff", *FILES, "--width", "100", "--all", *args], env=env)  # every row


def test_each_verdict_in_its_colour():
    """FORCE_COLOR=1 through a pipe: every change with a mark in the colour of its verdict (green
    better, red worse, yellow suspect, dim within noise), headings bold cyan."""
    out = colour_diff(FORCE_COLOR="1").output
    pieces = SGR_PIECE.findall(out)
    colour_of = {"✔": "32", "✘": "31", "!": "33", "=": "2"}
    marked = [(codes, text) for codes, text in pieces if text.strip()[-1:] in colour_of
              and re.search(r"\d", text)]
    assert {text.strip()[-1] for _, text in marked} == set(colour_of)
    assert all(codes == colour_of[text.strip()[-1]] for codes, text in marked)
    assert ("1;36", "headline") in pieces
    plain = colour_diff("--no-color").output
    assert [line.rstrip() for line in SGR_PIECE.sub(r"\2", out).splitlines()] == plain.splitlines()


@pytest.mark.parametrize("env", [
    {}, {"FORCE_COLOR": "1", "NO_COLOR": "1"}, {"FORCE_COLOR": ""}, {"FORCE_COLOR": "1", "TERM": "dumb"},
    {"FORCE_COLOR": "1", "TTY_COMPATIBLE": "0"},
])
def test_no_codes_without_a_terminal_or_with_no_color(env):
    out = colour_diff(**env).output
    assert "\x1b" not in out and "throughput (device)" in out


def test_no_color_flag_wins_over_force_color():
    assert colour_diff("--no-color", FORCE_COLOR="1").output == colour_diff().output


def test_a_colour_diff_does_not_import_rich(monkeypatch):
    """FORCE_COLOR=1: the codes are written without rich (it took ~50 ms of a cold colour diff)."""
    from test_import_cost import loaded_modules

    for name, value in {"FORCE_COLOR": "1", "TERM": "xterm"}.items():
        monkeypatch.setenv(name, value)
    for name in ("NO_COLOR", "TTY_COMPATIBLE"):
        monkeypatch.delenv(name, raising=False)
    assert loaded_modules("diff", *FILES) == []
