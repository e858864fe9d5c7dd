"""The noise band's rule (``Band.inside``) on changes worked out by hand, and the time floor held to the
real kernels it is drawn from."""

from __future__ import annotations

import json
import math
from collections import defaultdict
from pathlib import Path

import pytest
from conftest import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from neuroncmp.comparison.bands import DEFAULT_BANDS, Band

FRACTION = Band(0.5, True, relative=0.05, level=1e-5)  # 0.5pp AND 5 %, nothing scored under 0.001 %


@pytest.mark.parametrize("band, b, v, inside", [
    (Band(0.02), 100, 101.9, True),     # |ln 1.019| = 0.0188 <= ln 1.02 = 0.0198
    (Band(0.02), 100, 102.1, False),    # |ln 1.021| = 0.0208
    (Band(0.02), 100, 98.1, True),      # |ln 0.981| = 0.0192
    (Band(0.02), 100, 98.0, False),     # |ln 0.98| = 0.0202: the band is on the log scale, not 2 % of b
    (Band(0.02, floor=1024.0), 64, 72, True),  # +12.5 %, but 8 B under the 1 KiB floor
    (Band(0.02), 0, 1e-9, False),       # from zero: no relative change is small
    (Band(0.02), -1, 1, False),         # across zero
    (Band(0.02), 1.0, math.nan, False), (Band(0.02), math.nan, math.nan, False),
    (Band(0.02), math.inf, math.inf, True), (Band(0.02), 10**400, 10**400 + 1, True),
    (FRACTION, 0.20, 0.204, True),      # 0.4pp and |ln 1.02| = 0.0198 <= ln 1.05 = 0.0488
    (FRACTION, 0.20, 0.206, False),     # 0.6pp
    (FRACTION, 0.00018, 0.00030, False),  # 0.012pp, but |ln(0.0003 / 0.00018)| = 0.51
    (FRACTION, 5e-6, 9e-6, True),       # both under the level
    (Band(0.5, True), 0.20, 0.204, True), (Band(0.5, True), 0.20, 0.21, False),  # points alone: 1pp
])
def test_the_band_rule_on_changes_worked_out_by_hand(band: Band, b: float, v: float, inside: bool) -> None:
    assert band.inside(b, v) is inside


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
    assert band.inside(b, low + nudge) and band.inside(b, high - nudge)
    assert not band.inside(b, low - nudge) and not band.inside(b, high + nudge)
