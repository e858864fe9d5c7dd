"""layout.fold: the terminal's line breaking keeps every character of a text."""

from __future__ import annotations

import re

from hypothesis import assume, given
from hypothesis import strategies as st

from neuroncmp.render.layout import fold, words, wrap


def test_a_bracket_no_bracket_closes_is_kept() -> None:
    # a metric named in an input file as "dma_queue[3" (cut short) lost its "[" when folded
    assert words("dma_queue[3", re.escape("_/ -")) == ["dma_", "queue", "[", "3"]
    assert fold("dma_queue[3_active_time", 10) == ["dma_queue[", "3_active_", "time"]
    assert fold("a[b", 2) == ["a[", "b"]


def test_a_bracketed_unit_stays_whole() -> None:
    assert fold("total_time/sample [ms]", 12) == ["total_time/", "sample [ms]"]


@given(st.text(alphabet="ab_/ -[]x", max_size=40), st.integers(1, 30))
def test_no_character_is_lost(text: str, width: int) -> None:
    # lines are right-stripped, so compare without spaces
    assert "".join(fold(text, width)).replace(" ", "") == text.replace(" ", "")


TEXTS = st.text(alphabet=st.sampled_from("ab c_-/\t\n\r\x0b\x0c\u00a0\u3000.xyz"), max_size=80)


@given(TEXTS, st.integers(1, 30), st.sampled_from(["", "1. ", "    ", "   impact: "]),
       st.sampled_from(["", "  ", "      "]), st.booleans())
def test_wrap_is_textwraps_without_hyphen_breaks(text: str, width: int, first: str, later: str,
                                                 cut: bool) -> None:
    # layout.wrap stands in for textwrap.wrap(break_on_hyphens=False), which costs 1 ms to import
    import textwrap

    assume(len(first) < width)  # (textwrap loops for ever on a first line its indent overfills)
    expected = textwrap.wrap(text, width, initial_indent=first, subsequent_indent=later,
                             break_long_words=cut, break_on_hyphens=False)
    assert wrap(text, width, initial_indent=first, subsequent_indent=later, break_long_words=cut) == expected


def test_wrap_examples() -> None:
    assert wrap("a long-winded sentence", 10) == ["a long-win", "ded", "sentence"]  # no break at the hyphen
    assert wrap("one two three", 7) == ["one two", "three"]
    assert wrap("  lead\tand  tail  ", 20) == ["  lead  and  tail"]  # a tab to the next 8th column
    assert wrap("abcdefghij", 4) == ["abcd", "efgh", "ij"]
    assert wrap("abcd xxxxxxxxx", 5) == ["abcd ", "xxxxx", "xxxx"]  # a full line keeps its space, as textwrap's
    assert wrap("abcdefghij xy", 4, break_long_words=False) == ["abcdefghij", "xy"]
    assert wrap("aaa bbbbbbbb", 6, initial_indent="1. ", subsequent_indent="   ") == ["1. aaa", "   bbb", "   bbb",
                                                                                       "   bb"]
    assert wrap("   ", 5) == [] and wrap("", 5) == []


def test_wrap_ends_where_textwrap_would_not() -> None:
    # an indent wider than the line and a text starting with a space: textwrap.wrap never returns
    assert wrap(" x", 5, initial_indent="   impact: ") == ["   impact: x"]
