"""The shift detector, measured against generated series whose truth is known (issue 13).

The rates are computed here from the generator's truth. The quick test uses a few hundred series
per shift size and asserts each target less its sampling error (about 2 standard errors); the
``slow`` test (``python -m pytest -m slow``) runs 5,000 per size and asserts the targets as the
issue states them. ``scripts/detector_rates.py`` prints the same table for any count.
"""

from __future__ import annotations

import math
import random
import statistics

import pytest

from neuroncmp.analysis import synthetic
from neuroncmp.analysis.rank_scan import p_value, scan
from neuroncmp.analysis.shifts import MIN_SIZE, detect_shifts


def rates(sigma: float, count: int, seed: int) -> dict[str, float]:
    """Found exactly / within 2 / within 4 runs of the true shift, series with any alarm, how
    often a shift's range of candidate first runs held the true one, and the median width of the
    range (in runs) of the shift nearest the truth."""
    rng = random.Random(f"{seed}/{sigma}")
    exact = within2 = within4 = alarms = held = 0
    widths = []
    for _ in range(count):
        slow = synthetic.noisy_runs(rng, 80, 0.01)
        truth = synthetic.series(rng, 80, noise=0.01, shift_sigma=sigma, outlier_rate=0.015,
                                 slow_runs=slow)
        shifts = detect_shifts(truth.values)
        found = [shift.index for shift in shifts]
        alarms += bool(found)
        shifted = truth.change_index is not None
        exact += shifted and synthetic.found(truth, found, 0)
        within2 += shifted and synthetic.found(truth, found, 2)
        within4 += shifted and synthetic.found(truth, found, 4)
        held += synthetic.held(truth, shifts)
        widths += [s.latest - s.earliest + 1 for s in synthetic.nearest(truth, shifts)]
    return {"exact": exact / count, "within 2": within2 / count, "within 4": within4 / count,
            "alarms": alarms / count, "held": held / count,
            "width": statistics.median(widths) if widths else math.nan}


def test_rates_on_generated_histories():
    count = 400
    assert rates(0, count, seed=1)["alarms"] <= 0.01
    assert rates(2, count, seed=1)["within 4"] >= 0.90 - 0.03
    assert rates(3, count, seed=1)["within 2"] >= 0.99 - 0.01
    assert rates(5, count, seed=1)["within 2"] >= 0.99 - 0.01


@pytest.mark.parametrize("sigma", [3, 5])
def test_the_range_of_candidate_runs_holds_the_true_shift(sigma):
    """Issue 32's target for the range a change names: it holds the planted first run for at
    least 95 % of shifts of 3 sigma or more (less 2 standard errors on 400 series), with a
    median width of at most 3 runs."""
    measured = rates(sigma, 400, seed=1)
    assert measured["held"] >= 0.95 - 0.02
    assert measured["width"] <= 3


@pytest.mark.slow
@pytest.mark.parametrize("sigma, key, target", [(0, "alarms", 0.01), (2, "within 4", 0.90),
                                                (3, "within 2", 0.99), (5, "within 2", 0.99),
                                                (3, "held", 0.95), (5, "held", 0.95),
                                                (3, "width", 3), (5, "width", 3),
                                                # the point estimate as it was before the range
                                                # came (81.9 % exact at 3 sigma on 20,000 series)
                                                (3, "exact", 0.80)])
def test_rates_meet_the_targets_on_5000_series(sigma, key, target):
    measured = rates(sigma, 5000, seed=2)[key]
    assert measured <= target if key in ("alarms", "width") else measured >= target


def test_an_ambiguous_run_puts_both_runs_in_the_range():
    """Worked by hand. 15 runs at 99/101, one at 105, 16 at 109/111. The noise scale is the
    median |difference| (2) / 0.9539 = 2.097, so 2 sigma^2 = 8.79 and the cap 3 sigma = 6.29.
    With the split before the 105 (s = 15) the levels are a = 1499 / 15 = 99.93 and b = 1756 /
    16 = 109.75 (every value within the cap of its side's median). Moving the 105 to the old
    level costs (105 - a)^2 - (105 - b)^2 = 25.67 - 22.56 = 3.11: weight exp(-3.11 / 8.79) =
    0.70 of s = 15's. Moving a 99 to the new level costs 39.56 (capped) - 0.87: weight 0.012;
    a 109 to the old level: 0.012 of s = 16's. Shares: s = 14 0.7 %, 15 58 %, 16 41 %, 17 0.5 %:
    the central 95 % is s = 15..16 (the new level starts at the 105 or after it), the median 15.
    Without the 105, each neighbouring split weighs exp(-(39.56 - 0.87) / 8.79) = 0.012 of the
    best (1.2 % of the total, under the 2.5 % left out on each side): the range is the one run."""
    low, high = [99.0, 101.0] * 7 + [99.0], [109.0, 111.0] * 7 + [111.0]
    (shift,) = detect_shifts(low + [105.0] + high)
    assert (shift.index, shift.earliest, shift.latest) == (15, 15, 16)
    (clean,) = detect_shifts(low + high)
    assert (clean.index, clean.earliest, clean.latest) == (15, 15, 15)


def test_the_range_refers_to_the_input_past_skipped_values():
    """Non-finite values are skipped, but the range, like the index, counts them: a NaN put
    before the step moves every index by one."""
    low, high = [99.0, 101.0] * 7 + [99.0], [109.0, 111.0] * 7 + [111.0]
    (shift,) = detect_shifts([math.nan] + low + [105.0] + high)
    assert (shift.index, shift.earliest, shift.latest) == (16, 16, 17)


def test_a_clean_step_is_placed_exactly_with_its_medians():
    rng = random.Random(3)
    values = [100 + rng.gauss(0, 1) for _ in range(30)] + [110 + rng.gauss(0, 1) for _ in range(50)]
    (shift,) = detect_shifts(values)
    assert shift.index == 30
    assert shift.before == statistics.median(values[:30])
    assert shift.after == statistics.median(values[30:])
    assert shift.change == pytest.approx(shift.after / shift.before - 1)
    assert shift.p_value < 1e-6


def test_z_is_the_standardized_mann_whitney_statistic():
    rng = random.Random(4)
    values = [rng.gauss(0, 1) for _ in range(25)] + [rng.gauss(2, 1) for _ in range(35)]
    (shift,) = detect_shifts(values)
    first, rest = values[:shift.index], values[shift.index:]
    u = sum((a > b) + 0.5 * (a == b) for a in first for b in rest)  # pairs the first side wins
    n1, n2 = len(first), len(rest)
    expected = (u - n1 * n2 / 2) / math.sqrt(n1 * n2 * (n1 + n2 + 1) / 12)
    assert shift.z == pytest.approx(expected)


def test_p_values_are_valid_on_series_without_a_shift():
    """P(p < a) <= a under no shift (the approximation is conservative, not useless)."""
    rng = random.Random(5)
    ps = [scan([rng.gauss(0, 1) for _ in range(80)], MIN_SIZE)[2] for _ in range(2000)]
    assert 0.01 <= sum(p < 0.05 for p in ps) / len(ps) <= 0.05 + 0.01
    assert sum(p < 0.01 for p in ps) / len(ps) <= 0.01 + 0.005


def test_p_value_falls_as_the_statistic_grows_and_is_at_most_one():
    values = [p_value(b, 80, MIN_SIZE) for b in (0.5, 2.0, 3.0, 4.0, 5.0)]
    assert values == sorted(values, reverse=True)
    assert values[0] == 1.0 and 0 < values[-1] < 1e-3


@pytest.mark.parametrize("values", [[], [1.0], [1.0, 2.0, 3.0], [5.0] * 9,
                                    [1.0] * 5 + [2.0] * 4])
def test_short_series_have_no_shift(values):
    assert detect_shifts(values) == ()


def test_constant_series_has_no_shift():
    assert detect_shifts([3.25] * 200) == ()


@pytest.mark.parametrize("position", [0, 2, 40, 77, 79])
def test_a_single_outlier_is_never_a_shift(position):
    rng = random.Random(position)
    values = [1 + rng.gauss(0, 0.01) for _ in range(80)]
    values[position] *= 1.10  # 10 sigma off
    assert detect_shifts(values) == ()
    flat = [1.0] * 80
    flat[position] = 2.0
    assert detect_shifts(flat) == ()


def test_fewer_consecutive_odd_runs_than_min_size_are_no_shift():
    values = [1.0 + 0.001 * (i % 7) for i in range(80)]
    for i in range(40, 40 + MIN_SIZE - 1):
        values[i] += 1.0
    assert detect_shifts(values) == ()


def test_noisy_node_runs_are_no_shift():
    rng = random.Random(6)
    slow = (10, 11, 30, 55, 70)
    for _ in range(50):
        truth = synthetic.series(rng, 80, slow_runs=slow, outlier_rate=0.0)
        assert detect_shifts(truth.values) == ()


def test_non_finite_values_are_skipped_and_indexes_refer_to_the_input():
    values = [1.0] * 30 + [float("nan"), float("inf")] + [2.0] * 30
    (shift,) = detect_shifts(values)
    assert shift.index == 32 and (shift.before, shift.after) == (1.0, 2.0)
    assert detect_shifts([float("nan")] * 50) == ()


def test_a_level_that_came_back_gives_two_shifts():
    rng = random.Random(7)
    values = [1 + rng.gauss(0, 0.01) + (0.05 if 40 <= i < 55 else 0) for i in range(100)]
    assert [s.index for s in detect_shifts(values)] == [40, 55]


def test_two_steps_are_both_found():
    rng = random.Random(8)
    values = [1 + rng.gauss(0, 0.01) + 0.05 * (i >= 30) + 0.05 * (i >= 70) for i in range(100)]
    shifts = detect_shifts(values)
    assert [s.index for s in shifts] == [30, 70]
    assert shifts[0].after == shifts[1].before == statistics.median(values[30:70])


def test_scale_and_monotone_transforms_change_nothing_but_the_levels():
    rng = random.Random(9)
    values = [rng.gauss(0, 1) + 4 * (i >= 45) for i in range(90)]
    base = detect_shifts(values)
    scaled = detect_shifts([1e9 * v + 5 for v in values])
    assert [(s.index, s.z, s.p_value) for s in scaled] == [(s.index, s.z, s.p_value) for s in base]
    assert [s.index for s in base] == [45]


def test_the_result_is_deterministic():
    truth = synthetic.series(random.Random(10), 80, shift_sigma=3)
    assert detect_shifts(truth.values) == detect_shifts(list(truth.values))


def test_min_size_must_be_positive():
    with pytest.raises(ValueError, match="min_size"):
        detect_shifts([1.0, 2.0], min_size=0)


def test_the_generator_places_the_truth_it_reports():
    rng = random.Random(12)
    for _ in range(200):
        truth = synthetic.series(rng, 80, noise=0.02, shift_sigma=4, outlier_rate=0.0)
        assert 20 <= truth.change_index <= 60
        assert abs(truth.change) == pytest.approx(0.08)
        before = statistics.mean(truth.values[:truth.change_index])
        after = statistics.mean(truth.values[truth.change_index:])
        assert (after - before) * truth.change > 0  # the step goes the way it says


def test_the_generator_is_reproducible_and_adds_outliers_at_the_asked_rate():
    first = synthetic.series(random.Random(13), 80, shift_sigma=2)
    assert first == synthetic.series(random.Random(13), 80, shift_sigma=2)
    rng = random.Random(14)
    counts = [len(synthetic.series(rng, 1000, outlier_rate=0.05).outliers) for _ in range(20)]
    assert 40 <= statistics.mean(counts) <= 60


def test_the_docs_formula_reproduces_the_p_value():
    """The docs' stand-alone Python (docs/shifts.md; no neuroncmp) gives the detector's split, Z and p."""
    import contextlib
    import io

    from conftest import ROOT

    page = (ROOT / "docs" / "shifts.md").read_text()
    code = page.split("```python\n", 1)[1].split("```", 1)[0]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "docs/shifts.md", "exec"), {})
    t, z, p = out.getvalue().split()
    namespace: dict = {}
    exec(code.split("k, m =", 1)[0], namespace)  # just the data
    (shift,) = detect_shifts(namespace["x"])
    assert (int(t), float(z)) == (shift.index, round(shift.z, 3))
    assert float(p) == pytest.approx(shift.p_value, rel=0.01)


def _plain_scan(x: list[float], m: int) -> tuple[float, float]:
    """max |Z_t| and its p-value as docs/shifts.md writes them, in plain Python (no ties)."""
    from statistics import NormalDist

    normal, k = NormalDist(), len(x)
    rank = {i: r + 1 for r, i in enumerate(sorted(range(k), key=x.__getitem__))}
    c = [rank[i] - (k + 1) / 2 for i in range(k)]
    v = sum(ci * ci for ci in c)
    z = max((sum(c[:t]) * math.sqrt(k * (k - 1) / (t * (k - t) * v)) for t in range(m, k - m + 1)), key=abs)
    b, b1 = abs(z), max(abs(z), 1.0)

    def nu(x: float) -> float:
        return (2 / x) * (normal.cdf(x / 2) - 0.5) / (x / 2 * normal.cdf(x / 2) + normal.pdf(x / 2))

    tail = 2 * (1 - normal.cdf(b))
    cross = b1 * normal.pdf(b1) * sum(k / (s * (k - s)) * nu(b1 * math.sqrt(k / (s * (k - s))))
                                      for s in range(m, k - m))
    return z, min(1.0, (k - 2 * m + 1) * tail, tail + cross)


def test_many_series_at_once_find_what_each_finds_alone():
    """The store tests every series of every metric at once (``detect_many``: the scans of all
    series of one length stacked). Over series of several lengths with planted shifts, ties, a
    NaN and constant ones, it finds in each what that series alone gives; a series with one shift
    has the Z and p-value the docs' formula gives over the whole series."""
    from neuroncmp.analysis.shifts import detect_many

    rng = random.Random(21)
    series = []
    for n in range(120):
        length = rng.choice([10, 16, 40, 80, 300])
        values = list(synthetic.series(rng, length, noise=0.01, shift_sigma=rng.choice([0, 3, 5]),
                                       outlier_rate=0.015).values)
        if n % 7 == 0:
            values = [round(v, 2) for v in values]  # ties
        if n % 11 == 0:
            values[2] = math.nan
        if n % 13 == 0:
            values = [1.0] * length
        series.append(values)
    together = detect_many(series)
    assert together == [detect_shifts(values) for values in series]
    lone = [(values, shifts[0]) for values, shifts in zip(series, together)
            if len(shifts) == 1 and len(set(values)) == len(values) and all(map(math.isfinite, values))]
    assert len(lone) >= 20 and sum(map(len, together)) >= 50  # shifts were found, and tested here
    for values, shift in lone:
        z, p = _plain_scan(values, MIN_SIZE)
        assert shift.z == pytest.approx(z, rel=1e-12)
        assert shift.p_value == pytest.approx(p, rel=1e-9)


def test_scans_asked_below_a_level_give_every_result_below_it_unchanged():
    """Asked only for p-values below a level (what the detector tests against), the scans skip a
    segment whose p-value cannot be below it and window lengths too weak to reach it; every
    split and window below the level is the one the full scan gives, with its Z and p. Segments
    of 10 to 3,000 runs, with steps, windows that came back, ties and noise alone."""
    from neuroncmp.analysis.rank_scan import ranks_many, scan_many, scan_windows_many

    rng = random.Random(8)
    segments = []
    for n in range(160):
        length = rng.choice([10, 16, 31, 80, 300, 1200, 3000])
        values = [rng.gauss(0, 1) for _ in range(length)]
        start = rng.randrange(length)
        for i in range(start, min(length, start + rng.choice([length, 6, 40, 240]))):
            values[i] += rng.choice([0, 0, 1, 3])
        segments.append([round(v, 1) for v in values] if n % 5 == 0 else values)
    ranks = ranks_many(segments)
    for level in (0.0025, 0.005):
        for scanned in (lambda below: scan_many(ranks, MIN_SIZE, below),
                        lambda below: scan_windows_many(ranks, MIN_SIZE, below=below)):
            every, asked = scanned(1.0), scanned(level)
            strong = [found if found is not None and found[-1] < level else None for found in every]
            assert [found if found is not None and found[-1] < level else None for found in asked] == strong
            assert sum(found is not None for found in strong) >= 30  # significant ones were compared
            assert sum(found is None for found in asked) > sum(found is None for found in every)  # some skipped


@pytest.mark.parametrize("k", [10, 11, 30, 300, 12500])
def test_the_p_value_floor_is_never_above_the_p_value(k):
    """``p_floor`` lets a scan skip a segment whose p-value cannot be below a level: it must never
    exceed ``p_value`` (checked on a grid of |Z| from 0 to 8)."""
    from neuroncmp.analysis.rank_scan import p_floor

    b = [i / 20 for i in range(161)]
    assert all(p_floor([z], k, MIN_SIZE)[0] <= p_value(z, k, MIN_SIZE) for z in b)


def test_the_detectors_median_is_the_middle_value_or_the_mean_of_the_middle_two():
    """``placement.median`` (the levels, the noise scale, the medians either side of a split) gives
    ``statistics.median``'s answer, exactly: odd and even lengths, ties, negative values."""
    import numpy as np

    from neuroncmp.analysis.placement import median

    rng = random.Random(5)
    for n in range(1, 80):
        values = [rng.choice([rng.gauss(0, 1), 0.5, -2.0, round(rng.random(), 1)]) for _ in range(n)]
        assert median(np.array(values)) == statistics.median(values)
    assert median(np.array([3.0, 1.0, 2.0])) == 2.0
    assert median(np.array([4.0, 1.0, 3.0, 2.0])) == 2.5
