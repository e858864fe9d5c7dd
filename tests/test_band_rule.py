"""The band test the differ runs (``Band.against``, with its log change inline for speed) against
the rule as the module docstring states it, written here with the module's ``_log_change``."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from neuroncmp.comparison.bands import Band, _log_change


def stated_rule(band: Band, b: float, v: float) -> bool:
    """Unchanged: equal, under the floor, both under the level, or inside the band: points AND the
    relative band for a fraction, the relative band (|ln|v| - ln|b||) otherwise."""
    if b == v or (band.floor and abs(v - b) <= band.floor):
        return True
    if band.points:
        if band.level and max(abs(b), abs(v)) <= band.level:
            return True
        if not abs(v - b) * 100 <= band.value:
            return False
        return band.relative is None or _log_change(b, v) <= math.log1p(band.relative)
    return _log_change(b, v) <= math.log1p(band.value)


numbers = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-10**6, 10**6),
                    st.sampled_from([0.0, -0.0, 5e-324, 1e-5, 1.0, 1.02, 0.98, -1.0]))
widths = st.one_of(st.sampled_from([0.01, 0.02, 0.05]), st.floats(0, 1))
relative_bands = st.tuples(widths, st.sampled_from([0.0, 1.0, 1024.0])).map(
    lambda drawn: Band(drawn[0], floor=drawn[1]))
points = st.one_of(st.sampled_from([0.5, 1.0, 2.0]), st.floats(0, 5))
points_bands = st.tuples(points, st.sampled_from([None, 0.05, 0.1]), st.sampled_from([0.0, 1e-5])).map(
    lambda drawn: Band(drawn[0], True, relative=drawn[1], level=drawn[2]))
bands = st.one_of(relative_bands, points_bands)
fractions = st.one_of(st.sampled_from([0.2, 0.5, -0.3]), st.floats(-1, 1))
near = st.tuples(fractions, st.floats(-0.06, 0.06)).map(lambda drawn: (drawn[0], drawn[0] + drawn[1]))
pairs = st.one_of(st.tuples(numbers, numbers), near)  # any two numbers, and changes near the bands' edges


@settings(max_examples=400)
@given(bands, pairs)
def test_the_fast_band_test_is_the_stated_rule(band: Band, pair: tuple[float, float]) -> None:
    b, v = pair
    assert band.against(b)(v) == stated_rule(band, b, v)
    assert band.inside(b, v) == stated_rule(band, b, v)
