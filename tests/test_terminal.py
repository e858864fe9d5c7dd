"""The terminal format as rich draws it: colour by rich's rules (a terminal or FORCE_COLOR; never with
--no-color, a dumb terminal or TTY_COMPATIBLE=0; NO_COLOR keeps bold and dim, drops the colours), the
width by rich's (--width, else COLUMNS, else 80 off a terminal), and labels and names never broken
inside a word: a side's label too long for its column is shortened with the full name in a legend."""

from __future__ import annotations

import io
import re

import pytest
from click.testing import CliRunner
from conftest import RUN, THIRD_PARTY, VARIANT_FILES
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

import neuroncmp as nc
from neuroncmp.cli import cli
from neuroncmp.render.terminal import fold, wrapped

FILES = [str(RUN / f"{name}.json") for name in ("baseline", "b2", "b16", "b32", "b64")]
SWEEP = [str(RUN / name) for name in VARIANT_FILES]  # the 8 bundled profiles, b32-cc-optim among them
SGR_PIECE = re.compile(r"\x1b\[([0-9;]*)m([^\x1b]*)\x1b\[0m")
CLEAN = {"FORCE_COLOR": None, "NO_COLOR": None, "TTY_COMPATIBLE": None, "COLUMNS": None, "TERM": "xterm"}


def diff(*args, files=FILES, **env):
    """The diff through the CLI (CliRunner: standard output is not a terminal)."""
    result = CliRunner().invoke(cli, ["diff", *files, *args], env={**CLEAN, **env})
    assert result.exit_code == 0, result.output
    return result.output


def test_each_verdict_in_its_colour():
    """FORCE_COLOR=1 through a pipe: every change with a mark in the colour of its verdict (ECMA-48
    SGR: 32 green better, 31 red worse, 33 yellow suspect, 2 dim within noise), headings bold cyan;
    without the codes the text is the --no-color text."""
    out = diff("--width", "100", "--all", FORCE_COLOR="1")
    pieces = SGR_PIECE.findall(out)
    colour_of = {"✔": "32", "✘": "31", "!": "33", "=": "2"}
    marked = [(codes, text) for codes, text in pieces if text.strip()[-1:] in colour_of
              and (re.search(r"\d", text) or text.strip() == "=")]  # a change, or "=" for none at all
    assert {text.strip()[-1] for _, text in marked} == set(colour_of)
    assert all(codes == colour_of[text.strip()[-1]] for codes, text in marked)
    assert ("1;36", "headline") in pieces
    assert SGR_PIECE.sub(r"\2", out) == diff("--width", "100", "--all", "--no-color")


@pytest.mark.parametrize("env", [{}, {"FORCE_COLOR": ""}, {"FORCE_COLOR": "1", "TERM": "dumb"},
                                 {"FORCE_COLOR": "1", "TTY_COMPATIBLE": "0"}])
def test_no_codes_without_a_terminal(env):
    out = diff("--width", "100", **env)
    assert "\x1b" not in out and "throughput (device)" in out


def test_no_color_flag_wins_over_force_color():
    assert diff("--width", "100", "--no-color", FORCE_COLOR="1") == diff("--width", "100")


def test_no_color_drops_the_colours_and_keeps_bold():
    """NO_COLOR (no-color.org): no colour codes (30-37), bold and dim kept, as rich does."""
    out = diff("--width", "100", FORCE_COLOR="1", NO_COLOR="1")
    codes = {code for codes, _ in SGR_PIECE.findall(out) for code in codes.split(";")}
    assert "1" in codes and not codes & {str(c) for c in range(30, 38)}


def test_the_width_is_the_options_then_columns_then_80_off_a_terminal():
    widest = {name: max(map(len, diff(*args, **env).splitlines())) for name, args, env in (
        ("default", (), {}), ("columns", (), {"COLUMNS": "120"}), ("option", ("--width", "60"), {"COLUMNS": "120"}))}
    assert widest == {"default": 80, "columns": 120, "option": 60}


def test_a_long_label_is_whole_where_it_fits_and_shortened_with_its_name_where_not():
    """b32-cc-optim (12 characters) heads its column whole at 160 columns; at 100 the columns fit only
    with it cut to the 8 of its values, and the legend names it. It is never broken across lines."""
    wide = diff("--width", "160", "--all", "--no-color", files=SWEEP).splitlines()
    header = next(line for line in wide if line.startswith("metric [unit]"))
    assert header.split() == ["metric", "[unit]", "baseline", "b2", "b4", "b16", "b32", "b32-cc-optim", "b48", "b64",
                              "trend"]
    assert not any(line.startswith("labels:") for line in wide)
    narrow = diff("--width", "100", "--all", "--no-color", files=SWEEP).splitlines()
    header = next(line for line in narrow if line.startswith("metric [unit]"))
    assert "b32-cc-…" in header.split() and "labels: b32-cc-… = b32-cc-optim" in narrow
    for lines in (wide, narrow):
        assert not any(line.strip() in ("optim", "b32-cc-") for line in lines)


def test_at_40_columns_a_metric_name_breaks_after_a_separator_only():
    """40 columns leave the metric column 22 (40 - 8 for "baseline" - 8 for "+9.52pp✔" - 2 spaces):
    throttle_periodic_avg_util_limit_nc0_percent [%] breaks after its underscores, never inside a word."""
    lines = diff("--width", "40", "--all", "--no-color", files=FILES[:1] + FILES[3:4]).splitlines()
    assert max(map(len, lines)) <= 40
    at = next(i for i, line in enumerate(lines) if line.startswith("throttle_periodic_avg_") and "25300" in line)
    assert [line.split("  ")[0].strip() for line in lines[at:at + 3]] == [
        "throttle_periodic_avg_", "util_limit_nc0_percent", "[%]"]


def test_rich_draws_each_result_of_the_api_at_its_width():
    """``__rich_console__``: a notebook's or rich's console draws the result as the CLI does."""
    comparison = nc.compare(nc.load(RUN / "baseline.json"), nc.load(RUN / "b32.json"))
    out = io.StringIO()
    Console(file=out, width=100, color_system=None, force_terminal=False).print(comparison)
    assert [line.rstrip() for line in out.getvalue().splitlines()[:7]] == comparison.text(100).splitlines()[:7]


@given(st.text(alphabet="ab_/ x", max_size=60), st.integers(1, 30))
def test_wrapping_keeps_every_character_within_the_width(text, width):
    lines = wrapped(text, width)
    assert all(len(line) <= width for line in lines)
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")


def test_a_bracket_no_bracket_closes_is_kept_and_a_unit_stays_whole():
    # a metric named in an input file as "dma_queue[3" (cut short) lost its "[" when folded
    assert fold("dma_queue[3_active_time", 10) == ["dma_queue[", "3_active_", "time"]
    assert fold("total_time/sample [ms]", 12) == ["total_time/", "sample [ms]"]
    assert wrapped("one two three_four_five", 9) == ["one two", "three_", "four_five"]


def test_one_profile_under_a_long_label_shows_its_bounds_as_value():
    """``show`` of one profile: its label heads the view, so its bounds' column is ``value`` whatever
    the label's length (b32-fixed-padding-32: 20 characters), with no legend."""
    md = THIRD_PARTY / "ui-markdown" / "trn1.2xlarge_profiler-2.26_bert-base_batch32_padding-sweep.md"
    result = CliRunner().invoke(cli, ["show", str(md), "--width", "100", "--no-color"], env=CLEAN)
    lines = result.output.splitlines()
    assert next(line for line in lines if line.startswith("bound ")).split() == ["bound", "value"]
    assert not any(line.startswith("labels:") for line in lines)


def test_a_long_file_label_breaks_after_a_dash_not_inside_a_word():
    """At 40 columns the legend's full name (55 characters, no space) breaks after a ``-``."""
    name = "trn2-3xlarge-profiler-2-28-attention-baseline-bf16-s512"
    assert fold(name, 40) == ["trn2-3xlarge-profiler-2-28-attention-", "baseline-bf16-s512"]


def test_a_note_of_ops_or_the_store_keeps_its_later_lines_indented():
    """``ops``' heading at 100 columns runs to three lines, the later two indented two spaces (as the
    store's notes): one note reads as one, apart from the table under it."""
    view = THIRD_PARTY / "view-json"
    files = [str(view / f"inf2.xlarge_profiler-2.27_matmul_128x128x{n}.json") for n in (256, 1024)]
    result = CliRunner().invoke(cli, ["ops", *files, "--top", "6", "--width", "100", "--no-color"], env=CLEAN)
    lines = result.output.splitlines()
    assert lines[0].startswith("inf2-xlarge-profiler-2-27-matmul-128x128x1024: the compiler changed the graph")
    assert lines[1].startswith("  2358e222; ") and lines[2] == "  sides" and lines[3] == ""
