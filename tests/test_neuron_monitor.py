"""neuron-monitor in full (issue 20, item 4), against real reports (tests/fixtures/README.md).

Expected values are the numbers as they stand in the fixture files, read by eye; sums and
ratios are worked out here by hand from those numbers, not by the code under test.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import neuroncmp
from neuroncmp.choices import ADDED, REMOVED

FIXTURES = Path(__file__).parent / "fixtures"
INF2 = FIXTURES / "neuron-monitor_inf2.xlarge_runtime-2.30.51.json"
TRN1 = FIXTURES / "neuron-monitor_trn1.2xlarge_idle.jsonl"
WANDB = FIXTURES / "neuron-monitor_trn1.2xlarge_wandb.jsonl"
BASELINE = Path(__file__).parents[1] / "profiles" / "trn1-2xlarge-bs-sweep" / "baseline.json"


def _value(profile, name):
    return {**profile.metrics, **profile.derived_metrics()}[name].value


def test_inf2_counters_execution_and_latency():
    (profile,) = neuroncmp.load(INF2)
    assert profile.metadata["instance_type"] == "inf2.xlarge" and profile.metadata["lnc_config"] == 1
    assert _value(profile, "neuroncore_utilization_nc0_percent") == pytest.approx(0.8940087251059674)
    # runtime 2.30.51 writes effective_flops where the user guide says flops: the same metric
    assert _value(profile, "neuroncore_flops_nc0") == 875590474948
    assert _value(profile, "neuroncore_flops_total") == 875590474948 + 0
    assert _value(profile, "execution_completed_count") == 816
    assert _value(profile, "execution_failed_count") == 0
    assert _value(profile, "execution_rate") == pytest.approx(816 / 1.000590175)
    assert _value(profile, "latency_device_p50") == 0.0011217594146728516
    assert _value(profile, "latency_device_p99") == 0.0011413097381591797
    assert "latency_total_p50" not in profile.metrics  # the capture recorded device latency only here
    assert not profile.anomalies


def test_inf2_host_memory_system_data_and_vcpu():
    (profile,) = neuroncmp.load(INF2)
    # host = application_memory + dma_buffers in the file: 1162055680 + 4194304
    assert _value(profile, "host_used_memory_total") == 1166249984 == 1162055680 + 4194304
    assert _value(profile, "system_memory_total_bytes") == 16378843136
    assert _value(profile, "system_memory_used_bytes") == 4335874048
    assert _value(profile, "runtime_vcpu_user_percent") == pytest.approx(0.1457)
    assert _value(profile, "vcpu_context_switch_count") == 7372
    assert _value(profile, "sram_ecc_uncorrected_count") == 0


def test_inf2_device_memory_total_without_a_breakdown():
    (profile,) = neuroncmp.load(INF2)
    assert profile.memory_total() == 141649980 and profile.memory_by_type() == {}
    assert profile.memory_metrics()["device_memory_total"].value == 141649980


def test_a_total_only_report_keeps_device_memory_in_a_diff():
    """Against a profile with a full memory table, the device total is on both sides."""
    (base,) = neuroncmp.load(BASELINE)
    (monitor,) = neuroncmp.load(INF2)
    cell = neuroncmp.compare(base, monitor).cell("device_memory_total", monitor.label)
    assert cell.step.verdict not in (ADDED, REMOVED)
    assert cell.step.variant == 141649980


def test_trn1_report_without_a_runtime():
    (profile,) = neuroncmp.load(TRN1)
    assert profile.metadata["instance_type"] == "trn1.2xlarge"
    assert profile.metadata["neuron_device_memory_size"] == 34359738368 == 32 * 2**30
    assert _value(profile, "system_memory_total_bytes") == 33110204416
    assert _value(profile, "system_memory_used_bytes") == 1284890624
    assert profile.memory == [] and not profile.anomalies


def test_trn1_reports_of_a_running_job():
    """Three one-second reports of one training process (wandb's recorded trn1.2xlarge sample)."""
    first, second, third = neuroncmp.load(WANDB)
    # record 0 as written: device 196608 + 101125344 + 943608 (core 0) + 32768 (core 1)
    assert first.memory_total() == 102298328 == 196608 + 101125344 + 943608 + 32768
    assert first.memory_by_type()["model_code"] == 101125344 + 32768
    assert _value(first, "host_used_memory_total") == 610705408 == 609656832 + 1048576
    assert _value(first, "execution_completed_count") == 260
    assert _value(first, "execution_error_generic_count") == 23654
    assert _value(first, "latency_total_p50") == 0.000095367431640625
    assert _value(first, "execution_rate") == pytest.approx(260 / 0.99915655)
    assert _value(first, "vcpu_idle_percent") == pytest.approx(0.8008)
    assert _value(first, "vcpu_context_switch_count") == 84801
    assert _value(first, "loaded_model_count") == 2
    assert _value(second, "neuroncore_utilization_nc0_percent") == pytest.approx(0.013560819560861623)
    assert _value(third, "host_used_memory_total") == 612179968
    assert not any(p.anomalies for p in (first, second, third))  # each Total is the sum of its rows


def _two_runtimes():
    """The inf2 report with its runtime given twice, the second on core 1 (as a second process
    would be): counts and bytes add up, latency percentiles cannot."""
    report = json.loads(INF2.read_text())
    second = json.loads(json.dumps(report["neuron_runtime_data"][0]))
    cores = second["report"]["neuroncore_counters"]["neuroncores_in_use"]
    cores["0"], cores["1"] = cores["1"], cores["0"]
    report["neuron_runtime_data"].append(second)
    return report


def test_runtimes_of_one_report_add_up(tmp_path):
    path = tmp_path / "two.json"
    path.write_text(json.dumps(_two_runtimes()))
    (profile,) = neuroncmp.load(path)
    assert _value(profile, "execution_completed_count") == 2 * 816
    assert _value(profile, "neuroncore_flops_nc1") == 875590474948
    assert _value(profile, "neuroncore_flops_total") == 2 * 875590474948
    assert profile.memory_total() == 2 * 141649980
    assert "latency_device_p50" not in profile.metrics
    assert any("cannot be combined" in s.reason for s in profile.skipped)
    assert not profile.anomalies  # no duplicate-metric flag for a core seen by two runtimes


def test_a_core_listed_by_two_runtimes_is_not_doubled(tmp_path):
    """Every runtime lists every core (zeros for the others'): a core takes its largest value."""
    report = json.loads(INF2.read_text())
    report["neuron_runtime_data"].append(json.loads(json.dumps(report["neuron_runtime_data"][0])))
    path = tmp_path / "same-core.json"
    path.write_text(json.dumps(report))
    (profile,) = neuroncmp.load(path)
    assert _value(profile, "neuroncore_utilization_nc0_percent") == pytest.approx(0.8940087251059674)
    assert _value(profile, "neuroncore_flops_total") == 875590474948
    assert _value(profile, "execution_completed_count") == 2 * 816


def test_null_latencies_of_idle_runtimes_are_nothing_to_combine(tmp_path):
    """AWS's sample reports: ``"total_latency": null`` when no model ran in the period."""
    report = _two_runtimes()
    report["neuron_runtime_data"][1]["report"]["execution_stats"]["latency_stats"] = {
        "total_latency": None, "device_latency": None}
    path = tmp_path / "idle.json"
    path.write_text(json.dumps(report))
    (profile,) = neuroncmp.load(path)
    assert _value(profile, "latency_device_p50") == 0.0011217594146728516  # the one runtime that ran
    assert not any("cannot be combined" in s.reason for s in profile.skipped)


def test_physical_cores_and_loaded_models(tmp_path):
    """The user guide's Trn2 example: ``v3d`` holds each physical core of a logical core."""
    report = json.loads(INF2.read_text())
    runtime = report["neuron_runtime_data"][0]["report"]
    runtime["neuroncore_counters"]["neuroncores_in_use"]["0"]["v3d"] = {
        "nc_v3.0": {"neuroncore_utilization": 21.01}, "nc_v3.1": {"neuroncore_utilization": 63.01}}
    runtime["memory_used"]["loaded_models"] = [{"name": "neff", "model_id": 10005, "subgraphs": {}}]
    path = tmp_path / "trn2.json"
    path.write_text(json.dumps(report))
    (profile,) = neuroncmp.load(path)
    assert _value(profile, "neuroncore_utilization_nc0_pcore1_percent") == pytest.approx(0.6301)
    assert _value(profile, "loaded_model_count") == 1 and profile.metadata["loaded_models"] == "neff"


@pytest.mark.parametrize("place, bad", [
    ("execution_summary", {"completed": "many"}),
    ("latency_stats", {"device_latency": [1]}),
])
def test_bad_execution_stats_name_the_place(tmp_path, place, bad):
    report = json.loads(INF2.read_text())
    report["neuron_runtime_data"][0]["report"]["execution_stats"][place] = bad
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(report))
    with pytest.raises(neuroncmp.errors.ParseError) as caught:
        neuroncmp.load(path)
    assert place in str(caught.value) and "bad.json" in str(caught.value)
