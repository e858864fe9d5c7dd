"""The band test the differ runs (``Band.inside_all``, with its log change inline for speed) against
the rule as the module docstring states it, written here with the module's ``_log_change``."""

from __future__ import annotations

import json
import math
from collections import defaultdict
from pathlib import Path

import pytest
from conftest import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from neuroncmp.comparison.bands import DEFAULT_BANDS, Band, _log_change


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
    assert band.inside_all(b, [v, b, v]) == [stated_rule(band, b, v), stated_rule(band, b, b), stated_rule(band, b, v)]
    assert band.inside_all(b, [v, b] * 9) == [stated_rule(band, b, v), stated_rule(band, b, b)] * 9  # a row's many
    assert band.inside(b, v) == stated_rule(band, b, v)


def _nudged(value: float, ulps: int) -> float:
    for _ in range(abs(ulps)):
        value = math.nextafter(value, math.inf if ulps > 0 else -math.inf)
    return value


edge_bands = st.one_of(
    st.tuples(st.one_of(st.sampled_from([0.01, 0.02, 0.05]), st.floats(0, 0.7)),
              st.sampled_from([0.0, 1e-6, 1024.0])).map(lambda drawn: (drawn[0], Band(drawn[0], floor=drawn[1]))),
    st.tuples(st.one_of(st.sampled_from([0.05, 0.1]), st.floats(0, 0.7)), st.sampled_from([0.5, 100.0, 1e300]),
              st.sampled_from([0.0, 1e-5])).map(
        lambda drawn: (drawn[0], Band(drawn[1], True, relative=drawn[0], level=drawn[2]))))


@settings(max_examples=800)
@given(st.one_of(st.floats(1e-300, 1e300), st.floats(1e-7, 1e-3)), edge_bands, st.booleans(), st.integers(-4, 4),
       st.sampled_from([0.0, 1e-12, 1e-10, 1e-9, 2e-9]))
def test_the_band_test_is_the_stated_rule_at_a_relative_bands_edges(b, drawn, up, ulps, off):
    """Values on and a few ulps or a hair beside each edge of a relative band (b (1 + band), b / (1 + band)),
    alone or beside a band in points: where the quick test without a logarithm hands over to the rule's own."""
    width, band = drawn
    edge = b * (1 + width) if up else b / (1 + width)
    values = [_nudged(edge, ulps), _nudged(edge * (1 + off), ulps), _nudged(edge * (1 - off), ulps)] * 6
    assert band.inside_all(b, values) == [stated_rule(band, b, v) for v in values]  # more than a few: the quick test


# --- the time floor, held to the real kernels it is drawn from ------------------------------------

VIEWS = sorted((ROOT / "tests" / "data" / "third_party" / "view-json").glob("inf2.*matmul*.json")) + sorted(
    Path("/work/shared/samples/neuron-profile/view-json").glob("inf2*.json"))


def _op_times_ns(path: Path) -> dict[str, int]:
    """Each work operator's (engine x opcode) covered time, by hand: the union of its instructions'
    [timestamp, timestamp + duration) intervals, in plain Python from the file."""
    spans: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for row in json.loads(path.read_text())["instruction"]:
        if row["opcode"] != "EVENT_SEMAPHORE":
            spans[f"{row['subgroup']} {row['opcode']}"].append((row["timestamp"], row["timestamp"] + row["duration"]))
    covered = {}
    for key, found in spans.items():
        total, reach = 0, -1
        for start, end in sorted(found):
            total += max(0, end - max(start, reach))
            reach = max(reach, end)
        covered[key] = total
    return covered


def test_the_time_floor_is_above_the_moves_of_unchanged_work_and_under_real_changes():
    """The GpSimd, Sync and Vector engines run the same instructions in every 128 x 128 x N kernel:
    their operators' moves from one kernel to another are timing noise, at most 43 ns (GpSimd
    TENSOR_LOAD); MATMUL from N = 256 to 1024 grows by 322 ns, six floors."""
    assert len(VIEWS) >= 8
    times = [_op_times_ns(path) for path in VIEWS]
    same_work = {key for table in times for key in table if key.split()[0] in ("GpSimd", "Sync", "Vector")}
    moves = {key: max(t[key] for t in times) - min(t[key] for t in times) for key in same_work}
    assert max(moves.values()) == moves["GpSimd TENSOR_LOAD"] == 43
    floor_ns = DEFAULT_BANDS["time"].floor * 1e9
    assert max(moves.values()) < floor_ns
    by_n = {path.stem.rsplit("x", 1)[1]: table for path, table in zip(VIEWS, times) if "bucketed" not in path.stem}
    assert by_n["1024"]["Tensor MATMUL"] - by_n["256"]["Tensor MATMUL"] == 322 > 6 * floor_ns
    band = DEFAULT_BANDS["time"]
    assert not band.inside(443e-9, 765e-9) and band.inside(1052e-9, 1095e-9)


def test_a_bands_edges_around_a_value_are_worked_out_by_hand():
    """``Band.edges`` (what a sparkline is drawn against), by hand from the defaults: a time's 2 %
    at 100 ms is 100 / 1.02 = 98.04 ms to 102 ms; a fraction's 0.5pp AND 5 % at 20 % is 19.5 % to
    20.5 % (the points are the narrower), at 5 % it is 5 / 1.05 = 4.762 % to 5.25 % (the relative
    band is); bytes' 1 % at 1 KiB widens to the 1 KiB floor: 0 to 2 KiB."""
    from neuroncmp.catalog import lookup
    from neuroncmp.comparison.bands import Bands

    def edges(metric: str, value: float) -> tuple[float, float]:
        return Bands().band(lookup(metric)).edges(value)

    assert edges("total_time", 0.1) == (pytest.approx(0.1 / 1.02), pytest.approx(0.102))
    assert edges("mfu_estimated_percent", 0.2) == (pytest.approx(0.195), pytest.approx(0.205))
    assert edges("mfu_estimated_percent", 0.05) == (pytest.approx(0.05 / 1.05), pytest.approx(0.0525))
    assert edges("hbm_traffic_bytes", 1024.0) == (pytest.approx(0.0), pytest.approx(2048.0))


@given(bands, fractions)
@settings(max_examples=300)
def test_a_bands_edges_are_inside_it_and_just_beyond_them_is_outside(band: Band, b: float) -> None:
    """Held to the rule itself: a thousandth of the band's width inside each edge is inside the
    band around ``b``, as far beyond it is not (the level, under which everything is inside, is
    left out of the edges; a band narrower than a millionth of ``b`` is below the rule's rounding)."""
    low, high = band.edges(b)
    nudge = (high - low) * 1e-3
    if (band.level and abs(b) <= 2 * band.level) or not abs(b) * 1e-9 < nudge < math.inf:
        return
    assert stated_rule(band, b, low + nudge) and stated_rule(band, b, high - nudge)
    assert not stated_rule(band, b, low - nudge) and not stated_rule(band, b, high + nudge)
