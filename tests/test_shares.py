"""A lower-is-better share that fell only because its total grew is not scored better (nor worse
when read the other way: it rose only because its total shrank).

Read from the bundled files: baseline (bs 8) and b32 (bs 32) spend 13.93 and 16.00 ms a step in
collectives (cc_op_active_time, cc_op_time), and 53.78 and 114.7 ms a step in all (total_time): the
collectives' share of the step fell 25.90 % -> 13.95 % while their time grew +14.9 %. It was "-12.0pp
✔" and counted among the better rows."""

from __future__ import annotations

import json

from conftest import RUN

import neuroncmp as nc
from neuroncmp.catalog import lookup
from neuroncmp.model import Metric, Profile, Source


def _raw(name):
    return next(iter(json.loads((RUN / name).read_text()).values()))


def test_a_share_that_fell_as_the_step_grew_is_not_better_and_a_warning_says_why():
    base, b32 = _raw("baseline.json"), _raw("b32.json")
    assert b32["cc_op_active_time"] > base["cc_op_active_time"] and b32["total_time"] > base["total_time"]
    assert b32["cc_op_active_time_percent"] < base["cc_op_active_time_percent"]
    comparison = nc.compare(nc.load(RUN / "baseline.json"), nc.load(RUN / "b32.json"))
    (said,) = [w for w in comparison.warnings if w.startswith("shares that moved only because their total did")]
    part, step = b32["cc_op_active_time"] / base["cc_op_active_time"] - 1, b32["total_time"] / base["total_time"] - 1
    for share in ("cc_op_active_time_percent", "collective_share"):
        assert comparison.row(share).verdicts("step") == ("context",)
    assert "their part not moving with them (per step)" in said
    assert f"cc_op_active_time_percent, collective_share on b32 (total_time {step:+.1%})" in said
    assert (f"{part:+.1%}", f"{step:+.1%}") == ("+14.9%", "+113.3%")


def _profile(label, part, total):
    metrics = {name: Metric(name, value, lookup(name).unit, repr(value), lookup(name).group)
               for name, value in (("cc_op_active_time", part), ("total_time", total),
                                   ("cc_op_active_time_percent", part / total))}
    return Profile(Source("mem", "test"), label, {"batch_size": 8}, metrics=metrics)


def test_a_share_whose_part_fell_stays_better():
    """10 of 100 ms -> 8 of 100 ms: the share fell with its part (better); 10 of 100 -> 10 of 125 ms:
    the same 8 %, only the total grew (not scored)."""
    fell = nc.compare(_profile("a", 0.010, 0.100), _profile("b", 0.008, 0.100))
    assert fell.row("cc_op_active_time_percent").verdicts("step") == ("better",)
    grew = nc.compare(_profile("a", 0.010, 0.100), _profile("b", 0.010, 0.125))
    assert grew.row("cc_op_active_time_percent").verdicts("step") == ("context",)
    assert grew.tally()[0].get("better", 0) == 0
    # read the other way the share rose only as the step shrank: not worse either
    shrank = nc.compare(_profile("b", 0.010, 0.125), _profile("a", 0.010, 0.100))
    assert shrank.row("cc_op_active_time_percent").verdicts("step") == ("context",)
    rose = nc.compare(_profile("b", 0.008, 0.100), _profile("a", 0.010, 0.100))  # its part rose: worse
    assert rose.row("cc_op_active_time_percent").verdicts("step") == ("worse",)
