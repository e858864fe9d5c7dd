"""compare() on the real sweep, repeated captures, and hypothesis properties of the differ."""

from __future__ import annotations

import json
import math
from decimal import Decimal

import pytest
from conftest import RUN
from hypothesis import given, settings
from hypothesis import strategies as st

import neuroncmp
from neuroncmp.comparison.differ import compare
from neuroncmp.comparison.view import change_in_bands, change_rank, select
from neuroncmp.ingest.values import display_metric
from neuroncmp.model import Metric, Profile, Source


def _load(*names):
    return [neuroncmp.load(RUN / name)[0] for name in names]


def _row(comparison, name):
    return comparison.row(name)


def test_baseline_vs_b32_acceptance_values():
    comparison = compare(*_load("baseline.json", "b32.json"))
    assert comparison.basis == "sample"
    mfu = _row(comparison, "mfu_estimated_percent").cells[0]
    assert (mfu.step.baseline, mfu.step.variant) == (0.1087, 0.2039)
    assert mfu.step.points == pytest.approx(9.52) and mfu.step.verdict == "better" and mfu.sample is None
    spill = _row(comparison, "spill_reload_bytes").cells[0]
    assert spill.step.verdict == "context" and spill.step.relative == pytest.approx(2.6215, abs=1e-4)
    assert spill.sample.verdict == "better" and spill.sample.relative == pytest.approx(-0.0946, abs=1e-4)
    assert spill.sample.baseline == pytest.approx(round(2.37 * 2**30) / 8)
    cc = _row(comparison, "cc_op_time").cells[0]
    assert (cc.step.baseline, cc.step.variant, cc.step.verdict) == (0.01393, 0.016, "context")
    assert cc.sample.verdict == "better"
    stepped = compare(*_load("baseline.json", "b32.json"), basis="step")  # --basis step scores per step
    assert stepped.row("spill_reload_bytes").cells[0].step.verdict == "worse"


def test_memory_and_trainer_rows_are_compared():
    comparison = compare(*_load("b16.json", "b32.json"))
    scratch = _row(comparison, "memory.shared_scratchpad").cells[0].step
    # Memory grows with the batch: between batch 16 and 32 it is shown, not scored ...
    assert (scratch.baseline, scratch.variant, scratch.verdict) == (2 * 2**30, 3.5 * 2**30, "context")
    assert "memory not scored" in comparison.basis_reason
    # ... and between equal batch sizes it is scored (b32.memory.md vs b32-cc-optim.memory.md).
    equal = compare(*_load("b32.json", "b32-cc-optim.json"))
    rings = _row(equal, "memory.dma_rings_spill").cells[0].step
    assert (rings.baseline, rings.variant) == (round(272.058 * 2**20), round(291.131 * 2**20))
    assert rings.verdict == "worse" and "memory" not in equal.basis_reason
    buffers = _row(comparison, "memory.profiler_buffers")  # the same on both sides, memory across batch
    assert buffers.cells[0].step.verdict == "context" and not buffers.changed("step")  # sizes: shown, not compared
    throughput = _row(comparison, "train_samples_per_second").cells[0].step
    assert throughput.verdict == "better" and throughput.ratio == pytest.approx(137.45 / 94.369)
    assert _row(comparison, "device_memory_total").cells[0].step.variant == round(7.742 * 2**30)


def test_equal_batch_sizes_compare_per_step():
    comparison = compare(*_load("b32.json", "b32-cc-optim.json"))
    assert comparison.basis == "step" and "equal" in comparison.basis_reason
    assert not comparison.step_context


def test_added_removed_and_only_in():
    comparison = compare(*_load("baseline.json", "b2.json"))
    assert _row(comparison, "memory.shared_scratchpad").cells[0].step.verdict == "removed"
    assert "memory.shared_scratchpad" in comparison.only_in
    assert any("missing on b2" in w for w in comparison.warnings)


def test_comparability_warnings_name_the_difference(tmp_path):
    block = next(iter(json.loads((RUN / "b32.json").read_text()).values()))
    path = tmp_path / "b32-new.json"
    path.write_text(json.dumps({"n_x": dict(block, compiler_version="2.22.0", instance_type="trn1.32xlarge")}))
    comparison = compare(*_load("b32.json"), neuroncmp.load(path)[0])
    text = " | ".join(comparison.warnings)
    assert "compiler_version differs: b32=2.21.18209.0+043b1bf7, b32-new=2.22.0" in text
    assert "instance_type differs" in text


def _capture(tmp_path, label, index, total_time):
    block = next(iter(json.loads((RUN / "b32.json").read_text()).values()))
    folder = tmp_path / f"run{index}"
    folder.mkdir(exist_ok=True)
    path = folder / f"{label}.json"
    path.write_text(json.dumps({"n_x": dict(block, total_time=total_time)}))
    return neuroncmp.load(path)[0]


def test_repeated_captures_use_median_spread_and_a_test(tmp_path):
    base = [_capture(tmp_path, "b32", i, t) for i, t in enumerate((0.1147, 0.1150, 0.1144, 0.1149))]
    fast = [_capture(tmp_path, "b32-fast", i, t) for i, t in enumerate((0.1000, 0.1003, 0.0998, 0.1001))]
    comparison = compare(base, fast)
    cell = _row(comparison, "total_time").cells[0]
    assert (cell.n_baseline, cell.n_variant) == (4, 4)
    assert cell.step.baseline == pytest.approx(0.1148) and cell.spread_baseline == (0.1144, 0.1150)
    assert cell.step.p_value == pytest.approx(2 / 70) and cell.step.verdict == "better"
    assert "repeated captures (b32 x4, b32-fast x4)" in comparison.captures


def test_not_significant_is_unchanged(tmp_path):
    base = [_capture(tmp_path, "a", i, t) for i, t in enumerate((0.10, 0.14))]
    variant = [_capture(tmp_path, "b", i, t) for i, t in enumerate((0.11, 0.15))]
    cell = _row(compare(base, variant), "total_time").cells[0]
    assert cell.step.p_value == pytest.approx(4 / 6) and cell.step.verdict == "unchanged"


def test_single_capture_says_so():
    comparison = compare(*_load("b16.json", "b32.json"))
    assert comparison.captures.startswith("one capture per side")
    assert _row(comparison, "total_time").cells[0].step.p_value is None


def test_thresholds_override_bands():
    profiles = _load("b32.json", "b32-cc-optim.json")
    row = lambda c: _row(c, "total_time").cells[0].step.verdict  # noqa: E731
    assert row(compare(*profiles)) == "unchanged"  # 114.7 -> 114.0 ms is inside 2 %
    assert row(compare(*profiles, thresholds=["time=0.1%"])) == "better"
    assert row(compare(*profiles, thresholds=["total_*=0.1%"])) == "better"


def test_views_filter_and_sort_without_changing_the_result():
    comparison = compare(*_load("baseline.json", "b32.json"))
    rows_before = comparison.rows
    only = select(comparison, only_changed=True)
    assert only.hidden_unchanged > 0 and all(r.changed(comparison.basis) for r in only.rows)
    assert len(only.rows) + only.hidden_unchanged == len(comparison.rows)
    grouped = select(comparison, groups=["tensor_engine"])
    assert {r.spec.group for r in grouped.rows} == {"tensor_engine"} and grouped.filtered_out > 0
    by_change = select(comparison, sort="change")
    keys = [(change_rank(r, comparison.basis), -change_in_bands(r, comparison.basis)) for r in by_change.rows]
    assert keys == sorted(keys)
    # ranked in noise bands: MFU +9.52pp is 19 bands of 0.5pp, dma_rings_spill +328% is ln(4.28)/ln(1.01) = 146
    mfu, spill = (comparison.row(n) for n in ("mfu_estimated_percent", "memory.dma_rings_spill"))
    assert change_in_bands(mfu, "sample") == pytest.approx(9.52 / 0.5)
    assert change_in_bands(spill, "sample") == pytest.approx(math.log(272.1 / 63.54) / math.log(1.01), rel=1e-3)
    # memory across batch sizes is not scored, yet ranks with the changes (tier 1), above unchanged rows
    assert change_rank(spill, comparison.basis) == 1
    assert not by_change.grouped
    assert [r.name for r in select(comparison, sort="name").rows] == sorted(r.name for r in comparison.rows)
    assert comparison.rows is rows_before  # a view never changes the result


def test_results_are_immutable():
    comparison = compare(*_load("baseline.json", "b32.json"))
    delta = comparison.row("total_time").cells[0].step
    for target, attribute in ((comparison, "rows"), (delta, "verdict"), (comparison.row("total_time"), "cells")):
        with pytest.raises(AttributeError):
            setattr(target, attribute, None)
    assert delta == delta._replace() and hash(delta) == hash(delta._replace())


def test_to_frame_is_tidy():
    frame = neuroncmp.compare(*_load("baseline.json", "b32.json")).to_frame()
    mfu = frame[(frame.metric == "mfu_estimated_percent")]
    assert len(mfu) == 1 and mfu.iloc[0].points == pytest.approx(9.52)
    assert set(frame[frame.metric == "total_time"].basis) == {"step", "sample"}


# ---- properties -------------------------------------------------------------------------------

NAMES = ["total_time", "mfu_estimated_percent", "spill_reload_bytes", "hbm_read_bytes",
         "dma_queue_count", "mm_arithmetic_intensity", "event_count", "cc_op_active_time_percent"]
positive = st.floats(min_value=1e-6, max_value=1e12, allow_nan=False, allow_infinity=False)
fraction = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)


@st.composite
def profiles(draw, label="p"):
    chosen = draw(st.lists(st.sampled_from(NAMES), min_size=1, unique=True))
    profile = Profile(Source("mem", "test"), label, {"batch_size": draw(st.sampled_from([1, 8, 32]))})
    for name in chosen:
        spec = neuroncmp.lookup(name)
        value = draw(fraction if spec.unit == "fraction" else positive)
        profile.metrics[name] = Metric(name, value, spec.unit, repr(value), spec.group)
    return profile


FLIP = {"better": "worse", "worse": "better", "unchanged": "unchanged", "neutral": "neutral",
        "added": "removed", "removed": "added", "context": "context", "suspect": "suspect", "absent": "absent"}


@settings(max_examples=200, deadline=None)
@given(profiles())
def test_a_profile_against_itself_is_unchanged(profile):
    twin = Profile(profile.source, "twin", dict(profile.params), metrics=dict(profile.metrics))
    comparison = compare(profile, twin)
    assert not [row.name for row in comparison.rows if row.changed("step")]
    # scored rows are unchanged; those that are not (no better direction) carry no verdict
    assert all(cell.step.verdict == ("unchanged" if row.spec.scored else "neutral")
               for row in comparison.rows for cell in row.cells)


@settings(max_examples=200, deadline=None)
@given(profiles("a"), profiles("b"))
def test_swapping_sides_inverts_ratios_and_flips_verdicts(a, b):
    forward, backward = compare(a, b), compare(b, a)
    back = {row.name: row.cells[0] for row in backward.rows}
    for row in forward.rows:
        there, here = back[row.name], row.cells[0]
        for mine, theirs in ((here.step, there.step), (here.sample, there.sample)):
            if mine is None:
                continue
            assert theirs.verdict == FLIP[mine.verdict]
            if mine.ratio and theirs.ratio and math.isfinite(mine.ratio * theirs.ratio):
                assert mine.ratio * theirs.ratio == pytest.approx(1.0)


# Display units a profile could be written in, per canonical unit (the UI export uses all of them).
UNIT_CHOICES = {"s": ["ns", "us", "ms", "s"], "B": ["B", "KiB", "MiB", "GiB"],
                "FLOP": ["FLOPS", "MFLOPS", "GFLOPS", "TFLOPS"], "fraction": ["%"], "count": [""],
                "FLOP/B": ["flops/byte"]}
FACTORS = {"ns": "1e-9", "us": "1e-6", "ms": "1e-3", "s": "1", "B": "1", "KiB": "1024", "MiB": "1048576",
           "GiB": "1073741824", "FLOPS": "1", "MFLOPS": "1e6", "GFLOPS": "1e9", "TFLOPS": "1e12",
           "%": "0.01", "": "1", "flops/byte": "1"}


@st.composite
def written_profiles(draw, label):
    """A profile as display strings (``"53.78 ms"``), each value written in two display units."""
    chosen = draw(st.lists(st.sampled_from(NAMES), min_size=1, unique=True))
    values = {}
    for name in chosen:
        unit = neuroncmp.lookup(name).unit
        digits = draw(st.integers(min_value=1, max_value=10**6))
        exponent = draw(st.integers(min_value=-4, max_value=3)) if unit != "fraction" else -4
        canonical = Decimal(digits).scaleb(exponent)  # a decimal value in the canonical unit
        pair = [draw(st.sampled_from(UNIT_CHOICES[unit])) for _ in range(2)]
        values[name] = [(str(canonical / Decimal(FACTORS[token])), token) for token in pair]
    batch = draw(st.sampled_from([1, 8, 32]))
    return [_written(label, batch, {n: v[i] for n, v in values.items()}) for i in (0, 1)]


def _written(label, batch, texts):
    profile = Profile(Source("mem", "test"), label, {"batch_size": batch})
    for name, (number, token) in texts.items():
        profile.metrics[name] = display_metric("mem", "test", name, f"{number} {token}".strip())
    return profile


@settings(max_examples=200, deadline=None)
@given(written_profiles("a"), written_profiles("b"))
def test_the_display_unit_an_input_uses_changes_no_value_and_no_verdict(a, b):
    """``53.78 ms`` and ``0.05378 s`` (or ``3 GiB`` and ``3072 MiB``) are the same value and verdict."""
    (a1, a2), (b1, b2) = a, b
    for one, other in ((a1, a2), (b1, b2)):
        assert {k: m.value for k, m in one.metrics.items()} == {k: m.value for k, m in other.metrics.items()}
    first, second = compare(a1, b1), compare(a2, b2)
    verdicts = lambda c: [(r.name, cell.step.verdict, cell.sample and cell.sample.verdict)  # noqa: E731
                          for r in c.rows for cell in r.cells]
    assert verdicts(first) == verdicts(second)


def test_run_folder_loads_in_manifest_order_and_renders_in_notebooks():
    profiles = neuroncmp.load(RUN)
    assert [p.label for p in profiles] == ["baseline", "b16", "b32", "b32-cc-optim", "b48", "b64", "b4", "b2"]
    comparison = neuroncmp.compare(profiles[0], *profiles[1:])
    html = comparison._repr_html_()
    assert html.startswith('<div class="ncmp">') and "mfu_estimated_percent" in html and "<!DOCTYPE" not in html
