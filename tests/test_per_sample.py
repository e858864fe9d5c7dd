"""The per-sample basis and FLOPs per sample, each defined once (neuroncmp/per_sample.py) and read by
the comparison, the sweep table, the fits and batch-size inference."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT

import neuroncmp
from neuroncmp.per_sample import flops_per_sample, per_sample, per_sample_all

SWEEP = ROOT / "profiles" / "trn1-2xlarge-bs-sweep"


def raw(name):
    """The one profile a bundled JSON file holds, read by this test itself."""
    return next(iter(json.loads((SWEEP / f"{name}.json").read_text()).values()))


def test_a_number_over_a_known_batch():
    assert per_sample(0.5, 4) == 0.125
    assert per_sample(96, 32) == 3.0


@pytest.mark.parametrize("value, batch", [(None, 8), ("n/a", 8), (True, 8), (3.0, None), (3.0, 0)])
def test_anything_else_stays_as_it_is(value, batch):
    assert per_sample(value, batch) is value


def test_each_capture_of_a_side():
    assert per_sample_all([2.0, None, 6.0], 2) == [1.0, None, 3.0]


def test_flops_per_sample_is_the_median_an_outlier_does_not_move():
    pairs = [(100.0, 1), (200.0, 2), (300.0, 3), (4000.0, 4)]   # 100, 100, 100 and one 1000
    assert flops_per_sample(pairs) == 100.0
    assert flops_per_sample([(10.0, 1), (40.0, 2)]) == 15.0   # an even count: the middle two's mean
    assert flops_per_sample([(10.0, 0)]) is None and flops_per_sample([]) is None


def test_the_diff_sample_basis_is_value_over_batch():
    files = [SWEEP / "b16.json", SWEEP / "b32.json"]
    comparison = neuroncmp.compare(*files, basis="sample")
    row = next(r for r in comparison.rows if r.name == "total_time")
    sample = row.cells[0].sample
    assert sample is not None and sample.basis == "sample"
    assert sample.baseline == pytest.approx(raw("b16")["total_time"] / 16)
    assert sample.variant == pytest.approx(raw("b32")["total_time"] / 32)


def test_batch_inference_takes_the_median_flops_per_sample():
    # baseline.json states no batch size; the others do: median of model_flops / batch, worked here
    stated = {"b2": 2, "b4": 4, "b16": 16, "b32": 32, "b48": 48, "b64": 64}
    ratios = sorted(raw(name)["model_flops"] / batch
                    for name, batch in stated.items())
    middle = (ratios[2] + ratios[3]) / 2
    baseline_flops = raw("baseline")["model_flops"]
    profiles = {p.label: p for p in neuroncmp.load_many([SWEEP / f"{n}.json" for n in ["baseline", *stated]])}
    baseline = profiles["baseline"]
    assert baseline.params["batch_size_source"] == "inferred"
    assert baseline.params["batch_size_estimate"] == pytest.approx(round(baseline_flops / middle, 3))
    assert baseline.batch_size == round(baseline_flops / middle) == 8
