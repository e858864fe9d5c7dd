"""Trn2 and Trn3 hardware facts (issue 20, item 6): each figure against AWS's docs, LNC-aware
per-core HBM, and the profiler's reservation in the "without the profiler" memory forecast.

Expected numbers are AWS's published figures (cited per test), divided by hand.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import neuroncmp
from neuroncmp import hardware
from neuroncmp.model import MemoryRow

RUN = Path(__file__).parents[1] / "profiles" / "trn1-2xlarge-bs-sweep"
GIB = 2**30


def test_trn3_row_is_the_architecture_pages_figures():
    # about-neuron/arch/neuron-hardware/trainium3.rst: 8 NeuronCore-v4, 144 GiB, 4.9 TB/s per chip;
    # nki/guides/architecture/trainium3_arch.rst: 79 dense BF16 TFLOPS per core's tensor engine
    row = hardware.FAMILIES["trn3"]
    assert row.core == "NeuronCore-v4"
    assert (row.hbm_bytes, row.hbm_bandwidth, row.peak_flops) == (144 * GIB / 8, 4.9e12 / 8, 79e12)
    assert row.clock_hz is None and hardware.clock_hz("trn3pds.48xlarge") is None


def test_trn2_row_is_the_architecture_pages_figures():
    # trainium2.rst: 8 NeuronCore-v3, 96 GiB, 2.9 TB/s; trainium2_arch.rst: 79 BF16 TFLOPS per core
    row = hardware.FAMILIES["trn2"]
    assert (row.core, row.hbm_bytes, row.hbm_bandwidth, row.peak_flops) == (
        "NeuronCore-v3", 96 * GIB / 8, 2.9e12 / 8, 79e12)


def test_a_neuron_monitor_device_type_names_the_family():
    # the user guide's Trn2 example ("trainium2"), and real trn1 / inf2 reports
    assert [hardware.family_of(t) for t in ("trainium2", "trainium", "inferentia2", "gaudi")] == [
        "trn2", "trn1", "inf2", None]


@pytest.mark.parametrize("instance, lnc, hbm", [
    ("trn2.48xlarge", 2, 24 * GIB),     # LNC=2: two physical cores share one 24 GB bank (LNC page)
    ("trn2u.48xlarge", None, 24 * GIB),  # LNC not stated: Trn2's default, 2
    ("trn2.3xlarge", "1", 12 * GIB),     # LNC=1: each physical core is a logical core
    ("trn3.48xlarge", 2, 36 * GIB),
    ("trn1.2xlarge", 2, 16 * GIB),       # LNC applies to Trn2/Trn3 only: the seed's "2" changes nothing
])
def test_hbm_per_logical_core(instance, lnc, hbm):
    facts = hardware.for_instance(instance, lnc)
    assert facts.hbm_bytes == hbm
    if instance.startswith("trn2") and lnc in (2, None):
        assert facts.peak_flops == 2 * 79e12 and "LNC=2" in facts.source


def _trn2_sweep(drop_profiler_rows: bool, instance: str = "trn2.48xlarge"):
    profiles = neuroncmp.load(RUN)
    kept = [p for p in profiles if p.memory and p.label in ("b16", "b32", "b48", "b64")]
    changed = [profile.replace(metadata={**profile.metadata, "instance_type": instance},
                               memory=[r for r in profile.memory if not drop_profiler_rows
                                       or r.usage_type not in ("profiler_buffers", "total")]) for profile in kept]
    return neuroncmp.sweep(changed)


def test_the_forecast_uses_the_family_reservation_when_the_table_has_none():
    memory = _trn2_sweep(True).memory
    assert memory.profiler_buffers == 5e9 and "troubleshooting.rst" in memory.hbm_source
    assert memory.hbm == 24 * GIB
    # without the profiler: floor((hbm - (fixed - 5e9)) / per_sample), by hand from the fit
    assert memory.largest_unprofiled == int((24 * GIB - memory.fixed + 5e9) // memory.per_sample)


def test_a_table_that_lists_the_profiler_buffers_wins():
    memory = _trn2_sweep(False).memory
    b32 = next(p for p in neuroncmp.load(RUN) if p.label == "b32")
    assert memory.profiler_buffers == b32.memory_by_type()["profiler_buffers"] == round(2.443 * GIB)


def test_a_monitor_report_is_not_charged_the_profilers_reservation(tmp_path):
    profiles = []
    for batch, tensors in ((8, 2 * GIB), (16, 3 * GIB), (32, 5 * GIB)):
        profile = neuroncmp.load(Path(__file__).parent / "fixtures" / "neuron-monitor-report.json")[0]
        profiles.append(profile.replace(label=f"b{batch}", params={"batch_size": batch, "batch_size_source": "test"},
                                        metadata={**profile.metadata, "instance_type": "trn2.48xlarge"},
                                        memory=[MemoryRow(None, 0, "tensors", "tensors", tensors)]))
    result = neuroncmp.sweep(profiles)
    memory = result.memory
    assert memory.profiler_buffers == 0 and memory.largest_unprofiled == memory.largest_profiled
    # the report states its device's memory and cores: 34359738368 B / 2 cores, over the trn2 table
    assert memory.hbm == 34359738368 / 2 and "from the profile" in result.roof.sources[-1]


def test_the_profiles_own_peak_still_wins_on_trn2():
    """HFU in the profile implies its peak: hardware_flops / (hfu x total_time), not the table's 2 x 79 (nor
    a whole number of NeuronCore-v3's 78.64: the bounds' derivation, peaks.derived_peak, says so)."""
    result = _trn2_sweep(False)
    b32 = next(iter(json.loads((RUN / "b32.json").read_text()).values()))
    implied = b32["hardware_flops"] / (b32["hfu_estimated_percent"] * b32["total_time"])
    assert result.roof.peak_flops == pytest.approx(implied, rel=2e-3)  # a median over the points
    assert "implied by HFU" in result.roof.sources[0]


THIRD_PARTY = Path(__file__).parent / "data" / "third_party"


def test_the_trn2_row_agrees_with_what_the_profiler_itself_assumes():
    """Real trn2.3xlarge profiles (profiler 2.28, gather's tests/data/third_party): the peak their HFU
    implies (hardware_flops / (hfu x total_time)), the clock their cycle count implies and the HBM
    bandwidth their MBU implies are one logical core's at LNC=2, Trn2's default: twice the row's."""
    files = sorted(THIRD_PARTY.glob("**/trn2*.json"))
    assert files, "no trn2 profile under tests/data/third_party"
    row, logical = hardware.FAMILIES["trn2"], hardware.for_instance("trn2.3xlarge")
    for file in files:
        (profile,) = neuroncmp.load(file)
        value = profile.value
        peak = value("hardware_flops") / (value("hfu_estimated_percent") * value("total_time"))
        assert peak == pytest.approx(logical.peak_flops, rel=0.01)  # 157.29 TFLOP/s against 2 x 79
        assert value("neuroncore_cycle_count") / value("total_time") == pytest.approx(row.clock_hz, rel=1e-4)
        traffic = value("hbm_read_bytes") + value("hbm_write_bytes")
        bandwidth = traffic / value("total_time") / value("mbu_estimated_percent")
        assert bandwidth == pytest.approx(logical.hbm_bandwidth, rel=0.02)  # 716 GB/s against 2 x 362.5


def test_on_trn2_the_bandwidth_comes_from_mbu_not_from_the_profilers_ridge():
    """Real trn2.3xlarge profiles (profiler 2.28) write a peak_flops_bandwidth_ratio that is half of
    implied peak / implied bandwidth (RELATIONS.md: 10 of 10). Their model_flops is 0 (no HLO stats),
    so MFU implies no peak; here MFU is set to what HFU says (model_flops := hardware_flops), as a
    profile with HLO stats would carry, and the roof must still take the 716 GB/s MBU implies."""
    from neuroncmp.analysis.peaks import derived_peak
    from neuroncmp.analysis.roofline import roof
    from neuroncmp.analysis.series import Point
    from neuroncmp.hardware import for_instance

    points = []
    for index, path in enumerate(sorted((THIRD_PARTY / "view-json").glob("trn2.3xlarge_*.json"))):
        values = {k: float(m.value) for k, m in neuroncmp.load(path)[0].metrics.items()
                  if isinstance(m.value, (int, float))}
        values["model_flops"] = values["hardware_flops"]
        values["mfu_estimated_percent"] = values["hfu_estimated_percent"]
        points.append(Point(index + 1, (path.stem,), (), values, False, {}))
    raw = json.loads(next((THIRD_PARTY / "view-json").glob("trn2.3xlarge_*.json")).read_text())["summary"][0]
    by_mbu = (raw["hbm_read_bytes"] + raw["hbm_write_bytes"]) / (raw["total_time"] * raw["mbu_estimated_percent"])
    assert by_mbu == pytest.approx(716e9, rel=1e-3)
    top = roof(tuple(points), for_instance("trn2.3xlarge"), own=derived_peak(points, lambda key: None).own)
    assert top.bandwidth == pytest.approx(716e9, rel=1e-3) and "implied by MBU" in top.sources[1]
    assert top.peak_flops == pytest.approx(157.3e12, rel=2e-3)
