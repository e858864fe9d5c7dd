"""Every sentence of ``sweep`` checked against its numbers: for each kind of statement, a sweep
where the statement would be false, built from the bundled real b32 summary (values changed where
the test says), and the sentence the numbers do support."""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import RUN

import neuroncmp
from neuroncmp.analysis.sweep import sweep
from neuroncmp.render.sweep_words import models_text

B32 = next(iter(json.loads((RUN / "b32.json").read_text()).values()))
BATCHES = (2, 4, 8, 16, 32, 48, 64)


def write(tmp_path, blocks, memory=None):
    """One b<N>.json per batch (``blocks``: batch -> changes to the b32 summary, None leaves a key
    out), with a manifest
    naming a memory sidecar for the batches in ``memory`` (batch -> a bundled sidecar's label)."""
    entries = []
    for batch, changes in blocks.items():
        block = {k: v for k, v in dict(B32, **changes).items() if v is not None}  # None: left out
        (tmp_path / f"b{batch}.json").write_text(json.dumps({"n": block}))
        entry = {"file": f"b{batch}.json", "label": f"b{batch}", "params": {"batch_size": batch}}
        if memory and batch in memory:
            shutil.copy(RUN / f"{memory[batch]}.memory.md", tmp_path / f"b{batch}.memory.md")
            entry["memory"] = f"b{batch}.memory.md"
        entries.append(entry)
    (tmp_path / "manifest.json").write_text(json.dumps({"schema": "neuroncmp.manifest/1", "profiles": entries}))
    return sweep(neuroncmp.load(tmp_path))


def model(result, label):
    return dict(models_text(result))[label]


def outcome(result, rule):
    for group in (result.findings, result.passed, result.not_run):
        for item in group:
            if item.rule == rule:
                return item
    raise KeyError(rule)


def spill_sweep(tmp_path, per_sample):
    """Spill reload per sample as given (bytes), HBM reads fixed so the share stays above 25 %."""
    return write(tmp_path, {b: {"spill_reload_bytes": int(v * b), "hbm_read_bytes": int(max(v, 1) * b * 2)}
                            for b, v in zip((16, 32, 48, 64), per_sample, strict=True)})


# ---- spill per sample: "lowest at bX, growing after" only when it is ----------------------------

def test_no_spill_at_any_batch_is_said_so(tmp_path):
    result = spill_sweep(tmp_path, (0, 0, 0, 0))
    assert result.spill.rising_from is None
    text = model(result, "spill")
    assert "no spill reload at any batch size" in text and "lowest" not in text and "growing" not in text


def test_spill_identical_per_sample_is_not_a_trend(tmp_path):
    result = spill_sweep(tmp_path, (2**20, 2**20, 2**20, 2**20))
    text = model(result, "spill")
    assert "the same at every batch size (1.000 MiB)" in text and "lowest" not in text
    assert "lowest" not in outcome(result, "spill").title


def test_tied_lowest_values_are_named_together(tmp_path):
    result = spill_sweep(tmp_path, (3e6, 1e6, 1e6, 2e6))
    assert result.spill.rising_from == 48  # the last of the tie: from there it grows
    assert "lowest at b32 and b48 (equal), growing after" in model(result, "spill")


def test_spill_that_does_not_grow_steadily_after_its_lowest_is_not_growing(tmp_path):
    result = spill_sweep(tmp_path, (1e6, 3e6, 2e6, 2.5e6))
    text = model(result, "spill")
    assert "lowest at b16, higher after (not steadily)" in text and "growing" not in text
    assert "higher after (not steadily)" in outcome(result, "spill").title


def test_spill_falling_at_every_step_is_said_so(tmp_path):
    result = spill_sweep(tmp_path, (4e6, 3e6, 2e6, 1e6))
    assert result.spill.rising_from is None
    assert model(result, "spill").endswith("; per sample falling at every step up")


# ---- "not run" reasons name the real cause -------------------------------------------------------

STEP_MS = (100, 20, 20, 21, 22, 23, 24)  # a slow first point pulls the fitted per-sample cost below 0


def test_a_negative_fitted_slope_is_the_reason_not_the_number_of_points(tmp_path):
    result = write(tmp_path, {b: {"total_time": ms / 1e3} for b, ms in zip(BATCHES, STEP_MS, strict=True)})
    n = len(BATCHES)
    mx, my = sum(BATCHES) / n, sum(STEP_MS) / n
    slope = (sum((x - mx) * (y - my) for x, y in zip(BATCHES, STEP_MS, strict=True))
             / sum((x - mx) ** 2 for x in BATCHES))
    assert slope < 0 and result.step_fit.per_sample * 1e3 == pytest.approx(slope)
    assert result.knee is not None and len(result.points) == 7
    reason = outcome(result, "diminishing-returns").reason
    assert "three or more" not in reason and "not positive" in reason and f"{slope:.4g} ms" in reason
    assert model(result, "asymptote").startswith("none: ")
    assert f"- {abs(slope) * 1e3:.4g} us x batch" in model(result, "step time")


def test_a_knee_that_is_missing_says_why(tmp_path):
    linear = write(tmp_path, {b: {"total_time": 0.004 * b} for b in (8, 16, 32)})  # flat throughput
    assert any(note.startswith("knee: device throughput does not rise from b8 to b32") for note in linear.notes)
    assert "needs the knee: device throughput does not rise" in outcome(linear, "diminishing-returns").reason


def test_memory_headroom_with_a_memory_table_that_does_not_grow(tmp_path):
    """Three batch sizes carrying the same (real) memory table: the reason is that memory does not
    grow, not that the table is missing."""
    result = write(tmp_path, {b: {} for b in (16, 32, 48)}, memory={16: "b32", 32: "b32", 48: "b32"})
    assert all(p.get("device_memory_total") for p in result.points)
    reason = outcome(result, "memory-headroom").reason
    assert "does not grow with the batch over b16, b32, b48" in reason and "needs" not in reason


def test_memory_headroom_names_where_memory_was_found(tmp_path):
    result = write(tmp_path, {b: {} for b in (16, 32, 48)}, memory={32: "b32"})
    reason = outcome(result, "memory-headroom").reason
    assert "found at b32 only" in reason
    assert "device_used_memory_total (whole device, not per core) at 1 is not used" in reason


def test_collectives_at_zero_do_not_fall(tmp_path):
    result = write(tmp_path, {b: {"cc_op_time": 0} for b in (16, 32, 48)})
    passed = outcome(result, "collectives")
    assert "no collective time at b16 or b48" in passed.reason and "falls" not in passed.reason


# ---- trend words and "every batch size" ----------------------------------------------------------

def test_throttling_that_does_not_grow_steadily_is_not_said_to_grow(tmp_path):
    ns = {16: 2e6, 32: 30e6, 48: 10e6, 64: 20e6}  # 2.7 %, 26 %, 6.4 %, 10 % of the 114.7 ms step
    result = write(tmp_path, {b: {"throttle_active_nc0_time_ns": t} for b, t in ns.items()})
    action = outcome(result, "throttling").action
    assert "grows with the batch" not in action and "not steadily" in action


def test_a_rule_cleared_at_some_points_only_does_not_say_every_batch_size(tmp_path):
    blocks = {b: {"mfu_estimated_percent": 0.4, "mfu_max_achievable_estimated_percent": 0.5} for b in (16, 32)}
    blocks[48] = {"mfu_max_achievable_estimated_percent": None}
    result = write(tmp_path, blocks)
    assert len(result.points) == 3
    reason = outcome(result, "mfu-gap").reason
    assert "every batch size" not in reason and "at b16, b32 (the other batch sizes lack" in reason


def test_largest_batch_that_does_not_fit_is_not_written_bnone(tmp_path):
    result = sweep(neuroncmp.load(RUN), hbm_per_core=4 * 2**30)  # below the fitted fixed 4.648 GiB
    assert result.memory.largest_profiled is None
    text = model(result, "largest batch")
    assert "bNone" not in text and "none (not even b1 fits)" in text


def test_diminishing_returns_that_do_not_shrink_at_every_step_are_not_said_to(tmp_path):
    """Device throughput 100, 180, 250, 262, 300 samples/s at b8 .. b64: past the knee (b32) the
    gains are +4.8 % then +14.5 %, both under half of linear scaling, but not each smaller."""
    thr = {8: 100, 16: 180, 32: 250, 48: 262, 64: 300}
    result = write(tmp_path, {b: {"total_time": b / t} for b, t in thr.items()})
    assert result.knee.batch_size == 32
    title = outcome(result, "diminishing-returns").title
    assert "each larger batch buys less" not in title
    assert "a step up buys less than half of what linear scaling would at b48, b64" in title


def test_the_bound_is_not_said_for_every_batch_when_a_point_lacks_its_intensity(tmp_path):
    result = write(tmp_path, {16: {}, 32: {}, 48: {"mm_arithmetic_intensity": None}})
    assert [r.batch_size for r in result.roofline] == [16, 32]
    text = model(result, "bound")
    assert "at every batch size" not in text and "memory-bound at b16, b32 (the others lack the intensity)" in text


def test_a_memory_forecast_below_the_largest_batch_measured_claims_no_room(tmp_path):
    """The bundled memory tables on a sweep whose HBM is given as 8 GiB: the forecast fits fewer
    samples than b64, which was measured, so the rule says the model does not hold."""
    result = sweep(neuroncmp.load(RUN), hbm_per_core=8 * 2**30)
    assert result.memory.largest_unprofiled < 64
    reason = outcome(result, "memory-headroom").reason
    assert f"fits b{result.memory.largest_unprofiled} without profiler buffers, less than b64" in reason
