"""Every number of the real seed export, checked after loading, with pint as the referee.

The expected values are read from the export's text here with plain regular expressions and
turned into pint Quantities by pint itself; the parser's result must equal them in value and
dimension. The count of values checked is pinned so a silently dropped row fails the test.
"""

from __future__ import annotations

import re

import pytest
from conftest import SEED

from neuroncmp.units import registry

SECTION = re.compile(r"^#\s+(.*?)\s*$")
SUMMARY_ROW = re.compile(r"^\|(?:\s*[a-z_0-9]+\s*\|)?\s*\*\*(\w+)\*\*\s*\|\s*([^|]*?)\s*\|")
MEMORY_ROW = re.compile(r"^\|\s*(\d+)\s*\|\s*(\d+)\s*\|\s*([^|]+?)\s*\|\s*([^|]+?)\s*\|\s*$")
TRAINER_ROW = re.compile(r"^\s+(\w+)\s+=\s+(\S+)\s*$")
TOP_PAIR = re.compile(r"(Total|Tensors|Constants|App\. Memory):\s*([\d.]+)([KMG]?B)")
# Display token -> pint expression. "GFLOPS" in the export is a FLOP count; "GB" in neuron-top is GiB.
PINT = {"ms": "ms", "us": "us", "s": "s", "B": "B", "KiB": "KiB", "MiB": "MiB", "GiB": "GiB",
        "%": "percent", "GFLOPS": "GFLOP", "TFLOPS": "TFLOP", "flops/byte": "FLOP/B"}
TOP_PINT = {"B": "B", "KB": "KiB", "MB": "MiB", "GB": "GiB"}
TOP_NAMES = {"Total": "total", "Tensors": "tensors", "Constants": "constants", "App. Memory": "app"}
TEXT_METRICS = {"collectives_version", "compiler_version", "driver_version", "instance_type",
                "profiler_version", "runtime_version"}
SUMMARY_VALUES, MEMORY_VALUES, TRAINER_VALUES, NEURON_TOP_VALUES = 714, 138, 50, 7


def _expected_rows():
    """(section, kind, key, expected) for every value in the export, read independently."""
    section, rows = None, []
    for line in SEED.read_text().splitlines():
        heading = SECTION.match(line)
        if heading:
            section = heading.group(1)
        elif (m := SUMMARY_ROW.match(line)) and m.group(2):
            rows.append((section, "summary", m.group(1), m.group(2).replace("**", "").strip()))
        elif m := MEMORY_ROW.match(line):
            rows.append((section, "memory", m.group(3), m.group(4).replace("**", "").strip()))
        elif m := TRAINER_ROW.match(line):
            rows.append((section, "trainer", m.group(1), m.group(2)))
        elif "Used Memory" in line:
            side = "host" if "Host" in line else "device"
            rows += [(section, "top", f"{side}_used_memory_{TOP_NAMES[k]}", f"{n} {u}")
                     for k, n, u in TOP_PAIR.findall(line)]
    return rows


def _pint_quantity(text: str, table: dict[str, str]):
    number, _, token = text.partition(" ")
    return registry().Quantity(float(number), table[token]) if token else float(number)


def _trainer_expected(key: str, text: str) -> float:
    if ":" in text:
        h, m, s = text.split(":")
        return int(h) * 3600 + int(m) * 60 + float(s)
    if text.endswith("GF"):
        return int(text[:-2]) * 2**30  # transformers: f"{int(flos) >> 30}GF"
    return float(text)


def _check(profile, kind, key, text):
    if kind == "summary":
        metric = profile.metrics[key]
        if key in TEXT_METRICS:
            assert metric.value == text
            return
        expected = _pint_quantity(text, PINT)
    elif kind == "top":
        metric = profile.metrics[key]
        expected = _pint_quantity(text, TOP_PINT)
    elif kind == "memory":
        row = next(r for r in profile.memory if r.label == key)
        assert row.bytes == pytest.approx(_pint_quantity(text, PINT).to("B").m, abs=0.5)
        return
    else:
        metric = profile.training[key]
        assert metric.value == pytest.approx(_trainer_expected(key, text), rel=1e-12)
        return
    if hasattr(expected, "units"):
        got = metric.quantity.to(expected.units)  # raises if the dimension is wrong
        if metric.unit == "B":  # bytes are stored whole: within half a byte of the display
            assert metric.value == pytest.approx(expected.to("B").m, abs=0.5), (key, text)
        else:
            assert got.m == pytest.approx(expected.m, rel=1e-12), (key, text)
    else:
        assert metric.value == pytest.approx(expected, rel=1e-12), (key, text)


def test_every_seed_value_is_loaded_with_its_unit(seed_profiles):
    by_section = {p.source.section: p for p in seed_profiles}
    rows = _expected_rows()
    for section, kind, key, text in rows:
        _check(by_section[section], kind, key, text)
    counts = {kind: sum(1 for r in rows if r[1] == kind) for kind in ("summary", "memory", "trainer", "top")}
    assert counts == {"summary": SUMMARY_VALUES, "memory": MEMORY_VALUES, "trainer": TRAINER_VALUES,
                      "top": NEURON_TOP_VALUES}
    assert len(rows) == 909


def test_loaded_counts_match_the_export(seed_profiles):
    assert [p.label for p in seed_profiles] == ["baseline", "b16", "b32", "b32-cc-optim", "b48",
                                                 "b64", "b4", "b2"]
    summary = sum(len([m for m in p.metrics.values() if m.group != "host_memory"]) for p in seed_profiles)
    assert summary == SUMMARY_VALUES
    assert sum(len(p.memory) for p in seed_profiles) == MEMORY_VALUES
    assert sum(len(p.training) for p in seed_profiles) == TRAINER_VALUES
    assert all(not p.uncatalogued() for p in seed_profiles)


def test_acceptance_values_for_b32(seed_profiles):
    b32 = next(p for p in seed_profiles if p.label == "b32")
    assert b32.metrics["mfu_estimated_percent"].value == 0.2039
    assert b32.metrics["total_time"].value == 0.1147
    assert b32.metrics["spill_reload_bytes"].quantity.to("GiB").m == pytest.approx(8.583, abs=5e-10)
    assert b32.memory_total() == round(7.742 * 2**30)
    assert b32.metrics["throttle_active_nc0_time_ns"].quantity.to("ms").m == pytest.approx(16.24)
    assert b32.metrics["model_flops"].value == 2_145_000_000_000  # "2.145 TFLOPS" is a count


def test_syncill_is_spill_with_raw_label_kept(seed_profiles):
    rows = {r.label: r for r in seed_profiles[0].memory}
    assert rows["Syncill"].usage_type == "dram_spill"
    assert rows["dma rings Syncill"].usage_type == "dma_rings_spill"
    assert rows["dma rings Syncill"].bytes == round(63.538 * 2**20)
    assert rows["Tensor"].usage_type == "tensor_instructions" and rows["tensor"].usage_type == "tensors"


def test_section_metadata_notes_and_batch_sizes(seed_profiles):
    by_label = {p.label: p for p in seed_profiles}
    assert all(p.metadata["lnc_config"] == 2 for p in seed_profiles)
    assert by_label["b64"].notes == ["ALLR CC speed remain the same"]
    assert by_label["b64"].params["tags"] == ["swap"]
    assert by_label["b32-cc-optim"].params["tags"] == ["cc-optim"]
    baseline = by_label["baseline"]
    assert baseline.batch_size == 8 and baseline.params["batch_size_source"] == "inferred"
    assert baseline.params["batch_size_estimate"] == pytest.approx(8.0, abs=0.01)
    assert by_label["b16"].params["batch_size_source"] == "section title"
    assert seed_profiles[0].skipped[0].text == "[TOC]"  # counted, not silently dropped


def test_seed_anomalies(seed_profiles):
    found = {(p.label, a.code, a.metric) for p in seed_profiles for a in p.anomalies}
    assert ("baseline", "percent-over-100", "throttle_avg_util_limit_nc0_percent") in found
    assert ("baseline", "percent-over-100", "throttle_periodic_avg_util_limit_nc0_percent") in found
    assert len(found) == 2  # cycles, active shares and memory totals all agree within rounding


def test_trainer_batch_agrees_with_titles(seed_profiles):
    for profile in seed_profiles:
        samples = profile.value("train_samples_per_second")
        if samples is not None:
            ratio = samples / profile.value("train_steps_per_second")
            assert ratio == pytest.approx(profile.batch_size, rel=0.01)
