"""Values no NeuronCore can produce are flagged, like any other anomaly: kept as read, named, never scored.

The bounds, worked out here from the hardware facts (formats.md 8: a trn1 chip is two NeuronCores and
190 TFLOPS BF16, so 95 TFLOP/s a core; a logical core is at most two physical cores, LNC=2): 10x the
fastest logical core is 1.9e15 FLOP/s; the profiler's times are nanosecond counts on a 64-bit clock,
so no duration exceeds 2**64 ns (1.8e10 s); no FLOP count exceeds 1.9e15 FLOP/s for that long
(3.5e25 FLOP). A FLOP count of 1e300 passed the loader's checks.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from conftest import LOADABLE, RUN, loaded

import neuroncmp as nc
from neuroncmp.cli import cli

FLOP_RATE = 10 * 2 * 190e12 / 2      # FLOP/s: 10x a logical core of two 95 TFLOP/s cores
MOST_FLOPS = FLOP_RATE * 2**64 * 1e-9  # FLOP


def _with(tmp_path, name, value):
    raw = json.loads((RUN / "b32.json").read_text())
    (key,) = raw
    raw[key][name] = value
    path = tmp_path / "b32.json"
    path.write_text(json.dumps(raw))
    return path, raw[key]


def test_a_flop_count_beyond_any_core_is_flagged_and_never_scored(tmp_path):
    assert 1e300 > MOST_FLOPS > 3.5e25
    path, _ = _with(tmp_path, "hardware_flops", 1e300)
    (profile,) = nc.load(path)
    (found,) = [a for a in profile.anomalies if a.metric == "hardware_flops"]
    assert found.code == "out-of-range" and "more than any NeuronCore can reach" in found.message
    comparison = nc.compare(nc.load(RUN / "b32-cc-optim.json"), nc.load(path))
    assert comparison.row("hardware_flops").verdicts("step") == ("suspect",)
    out = CliRunner().invoke(cli, ["diff", str(RUN / "b32-cc-optim.json"), str(path), "--no-color"]).output
    assert "warning: b32: 1 input anomaly" in " ".join(out.split()) and "hardware_flops is" in out


def test_a_flop_count_no_core_could_do_in_its_step_is_flagged(tmp_path):
    """1e20 FLOP is under the absolute bound but in b32's 114.7 ms step it is 8.7e20 FLOP/s."""
    path, raw = _with(tmp_path, "hardware_flops", 1e20)
    rate = 1e20 / raw["total_time"]
    assert f"{rate:.3g}" == "8.72e+20" and rate > FLOP_RATE and MOST_FLOPS > 1e20
    (profile,) = nc.load(path)
    (found,) = [a for a in profile.anomalies if a.metric == "hardware_flops"]
    assert found.code == "impossible-rate" and "8.72e+20 FLOP/s" in found.message


@pytest.mark.parametrize("path", LOADABLE, ids=lambda p: p.name)
def test_no_real_profile_comes_near_the_bounds(path):
    for profile in loaded(path):
        assert not [a for a in profile.anomalies if a.code == "impossible-rate"
                    or "more than any NeuronCore" in a.message], path
