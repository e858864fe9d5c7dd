"""layout.fold: the terminal's line breaking keeps every character of a text."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from neuroncmp.render.layout import fold, words


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
