"""How a change, its mark and a sparkline are written (``render/changes.py``), against the rules
restated here: the percent's decimals, the mark beside the change, one sparkline scale."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from neuroncmp.choices import ABSENT, BETTER, CONTEXT, UNCHANGED, WORSE
from neuroncmp.comparison.result import Delta
from neuroncmp.render.changes import FLAT, SPARKS, change_text, change_with_mark, sparkline, sparks

FINITE = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e300, max_value=1e300)


def _relative(relative: float, verdict: str = WORSE, p_value: float | None = None) -> Delta:
    return Delta("step", 1.0, 1.0 + relative, relative, relative, None, 1.0 + relative, verdict, p_value)


@given(st.floats(min_value=-9.99, max_value=9.99, allow_nan=False))
def test_a_relative_change_reads_in_percent_with_fewer_decimals_as_it_grows(relative):
    number = relative * 100
    size = abs(round(number, 1))
    decimals = 0 if size >= 100 else 1 if size >= 1 else 2
    if relative == 0:
        assert change_text(_relative(relative)) == ""  # no change: nothing written
    else:
        assert change_text(_relative(relative)) == format(number, f"+.{decimals}f") + "%"


def test_the_percent_examples():
    written = [change_text(_relative(r)) for r in (0.0952, -0.9996, 0.00123, -0.5)]
    assert written == ["+9.5%", "-100%", "+0.12%", "-50.0%"]
    assert change_text(_relative(12.0)) == "x13"  # ten times and more: a ratio


def test_the_mark_follows_the_change_after_the_separator_and_stands_alone_without_it():
    worse = _relative(0.5)
    assert (change_with_mark(worse), change_with_mark(worse, sep="")) == ("+50.0% ✘", "+50.0%✘")
    same = Delta("step", 2.0, 2.0, 0.0, 0.0, None, 1.0, UNCHANGED)
    assert change_with_mark(same) == change_with_mark(same, sep="") == "="
    context = Delta("step", 1.0, 3.0, 2.0, 2.0, None, 3.0, CONTEXT)
    assert change_with_mark(context) == change_with_mark(context, sep="") == "+200%"
    absent = Delta("step", None, None, None, None, None, None, ABSENT)
    assert change_with_mark(absent) == ""
    unsure = _relative(0.2, UNCHANGED, p_value=0.4)
    assert change_with_mark(unsure) == "+20.0% ?"
    assert change_with_mark(_relative(-0.2, BETTER), sep="") == "-20.0%✔"


def _scaled(value: float, low: float, high: float) -> str:
    """The one scale, restated: the value's place between low and high, clamped, in eight steps."""
    if not high > low:
        return SPARKS[0]
    share = (min(max(value, low), high) - low) / (high - low)
    return SPARKS[round(share * 7)] if math.isfinite(share) else SPARKS[0]


@given(st.lists(st.one_of(FINITE, st.just(math.nan), st.just(math.inf), st.just(-math.inf)), max_size=12),
       FINITE, FINITE)
def test_sparks_places_each_value_on_the_scale(values, low, high):
    assert sparks(values, low, high) == "".join(_scaled(v, low, high) for v in values)


def test_sparks_examples():
    assert sparks([0, 1, 2, 3, 4, 5, 6, 7], 0, 7) == SPARKS
    assert sparks([-5, 12, math.nan], 0, 7) == SPARKS[0] + SPARKS[-1] + SPARKS[0]  # clamped; NaN lowest
    assert sparks([3, 4], 5, 5) == SPARKS[0] * 2  # an empty scale
    # 2.5 and 4.5 round half to even
    assert sparks([0.0, 5.0, 9.0, 14.0], 0.0, 14.0) == SPARKS[0] + SPARKS[2] + SPARKS[4] + SPARKS[7]


@given(st.lists(FINITE, min_size=3, max_size=10))
def test_a_sparkline_is_flat_exactly_when_its_range_is_inside_the_band(values):
    low, high = min(values), max(values)
    assert sparkline(values, inside=lambda a, b: (a, b) == (low, high)) == FLAT * len(values)
    assert sparkline(values, inside=lambda a, b: False) == sparkline(values)
    assert sparkline(values, flat=True) == FLAT * len(values)


def test_a_sparkline_needs_three_finite_numbers():
    assert sparkline([1.0, 2.0], inside=lambda a, b: True) == ""
    assert sparkline([1.0, 2.0, math.nan], inside=lambda a, b: True) == ""
    assert sparkline([1.0, "text", 3.0, 4.0]) == ""
    assert sparkline([0.0, 3.5, 7.0]) == SPARKS[0] + SPARKS[4] + SPARKS[7]  # round half to even: 3.5 -> 4
    assert sparkline([-1e308, 0.0, 1e308]) == SPARKS[0] + SPARKS[4] + SPARKS[7]  # a span beyond a float
