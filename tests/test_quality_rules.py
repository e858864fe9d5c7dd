"""Every cross-value data-quality rule (ingest/anomalies.py), tested on real summaries.

Each relation is computed here from the raw files with this test's own readers (JSON floats, and a
regex for the markdown tables), never through neuroncmp; neuroncmp must then raise no cross-value
anomaly on them, and still flag a value that breaks the relation. The files and their provenance:
``tests/data/third_party/SOURCES.md`` (view JSON: inf2 profiler 2.27, trn2 profiler 2.28; the UI
markdown export: trn1 profiler 2.26), ``tests/fixtures/README.md`` (trnblas, profiler 2.29) and
``profiles/README.md`` (the bundled trn1 sweep, profiler 2.26).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import FIXTURES, RUN

import neuroncmp
from neuroncmp.ingest import anomalies
from neuroncmp.model import MemoryRow, Metric, Profile, Source

THIRD = Path(__file__).resolve().parent / "data" / "third_party"
VIEW = sorted((THIRD / "view-json").glob("*.json"))
MARKDOWN = next((THIRD / "ui-markdown").glob("*.md"))
TRNBLAS = FIXTURES / "summary-json_trimmed_trn1.2xlarge_profiler-2.29.18.json"
BUNDLED = sorted(p for p in RUN.glob("*.json") if p.name not in ("manifest.json",) and "all_results" not in p.name)
CROSS = ("memory-total-mismatch", "cycles-mismatch", "share-mismatch")
CLOCK = {"trn1": 1.4e9, "inf2": 1.4e9, "trn2": 1.2e9}  # AWS's NeuronCore clocks (the hardware table in docs/bounds.md)
UNITS = {"B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "s": 1, "ms": 1e-3, "us": 1e-6, "%": 0.01,
         "": 1, "GFLOPS": 1e9, "flops/byte": 1}
MEMORY_ROW = re.compile(r"^\|\s*(\d+)\s*\|\s*(\d+)\s*\|\s*([^|]+?)\s*\|\s*([\d.]+)\s*\**(B|KiB|MiB|GiB)\**\s*\|$", re.M)


def view(path: Path) -> tuple[dict, list[tuple[int, int, str, float]]]:
    data = json.loads(path.read_text())
    return data["summary"][0], [(r["nd"], r["nc"], r["usage_type"], r["amount_bytes"]) for r in data["nc_mem_usage"]]


def markdown_summary(text: str) -> dict:
    """``| **name** | value **unit** |`` cells of a UI export, as base-unit numbers."""
    out = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        for i, cell in enumerate(cells[:-1]):
            name = re.fullmatch(r"\*\*(\w+)\*\*", cell)
            value = re.fullmatch(r"([\d.]+)\s*(?:\*\*([\w/]+|%)\*\*)?", cells[i + 1])
            if name and value:
                out[name.group(1)] = float(value.group(1)) * UNITS[value.group(2) or ""]
    return out


def summaries() -> list[tuple[str, str, dict, list]]:
    """(name, profiler version, summary, memory rows) for every real summary at hand."""
    out = [(p.name, view(p)[0]["profiler_version"][:4], *view(p)) for p in VIEW]
    out.append((TRNBLAS.name, "2.29", json.loads(TRNBLAS.read_text()), []))
    text = MARKDOWN.read_text()
    memory = [(int(a), int(b), label, float(n) * UNITS[u]) for a, b, label, n, u in MEMORY_ROW.findall(text)]
    out.append((MARKDOWN.name, "2.26", dict(markdown_summary(text), instance_type="trn1.2xlarge"), memory))
    for path in BUNDLED:
        block = next(iter(json.loads(path.read_text()).values()))
        sidecar = path.with_suffix(".memory.md")
        memory = ([(int(a), int(b), label, float(n) * UNITS[u]) for a, b, label, n, u
                   in MEMORY_ROW.findall(sidecar.read_text())] if sidecar.exists() else [])
        out.append((f"bundled/{path.name}", "2.26", dict(block, instance_type="trn1.2xlarge"), memory))
    return out


SUMMARIES = summaries()
IDS = [s[0] for s in SUMMARIES]


def test_at_least_ten_real_summaries_from_two_profiler_versions():
    assert len(SUMMARIES) >= 10 and len({version for _, version, _, _ in SUMMARIES}) >= 4


def test_each_relation_is_checked_on_ten_summaries_or_more_from_two_versions_or_more():
    checked: dict[str, set[tuple[str, str]]] = {"share": set(), "cycles": set(), "memory": set(), "dynamic": set()}
    for name, version, summary, memory in SUMMARIES:
        if all(f"{kind}dynamic_dma_active_time_percent" in summary for kind in ("", "software_", "hardware_")):
            checked["dynamic"].add((name, version))
        if shares(summary):
            checked["share"].add((name, version))
        if summary.get("neuroncore_cycle_count") and summary.get("total_time"):
            checked["cycles"].add((name, version))
        if any(label.lower() == "total" for _, _, label, _ in memory):
            checked["memory"].add((name, version))
    for relation, where in checked.items():
        assert len(where) >= 10 and len({v for _, v in where}) >= 2, (relation, where)


def shares(summary: dict) -> list[tuple[str, float, list[tuple[str, float]]]]:
    """(percent name, written, [(denominator, time / denominator)]) for every active-time pair."""
    total, dma = summary.get("total_time"), summary.get("dma_active_time")
    out = []
    for name, written in summary.items():
        time = summary.get(name.removesuffix("_percent"))
        if name.endswith("_active_time_percent") and isinstance(time, (int, float)) and total:
            ratios = [("total_time", time / total)]
            if name in anomalies.DMA_CLASSES and dma:
                ratios.insert(0, ("dma_active_time", time / dma))
            out.append((name, written, ratios))
    return out


@pytest.mark.parametrize("name, version, summary, memory", SUMMARIES, ids=IDS)
def test_every_relation_holds_within_its_tolerance(name, version, summary, memory):
    for percent, written, ratios in shares(summary):
        best = min(abs(r - written) - anomalies.SHARE_TOLERANCE * max(r, written) for _, r in ratios)
        assert best <= anomalies.SHARE_STEP, (percent, written, ratios)
    dynamic = [summary.get(f"{kind}dynamic_dma_active_time_percent") for kind in ("", "software_", "hardware_")]
    if None not in dynamic:
        assert abs(dynamic[0] - dynamic[1] - dynamic[2]) <= anomalies.SHARE_STEP
    cycles, total = summary.get("neuroncore_cycle_count"), summary.get("total_time")
    clock = CLOCK.get(str(summary.get("instance_type", "")).split(".")[0])
    if cycles and total and clock:
        assert abs(cycles / clock - total) <= anomalies.CYCLE_TOLERANCE * total
    for core in {(nd, nc) for nd, nc, _, _ in memory}:
        rows = [b for nd, nc, label, b in memory if (nd, nc) == core and label.lower() != "total"]
        totals = [b for nd, nc, label, b in memory if (nd, nc) == core and label.lower() == "total"]
        if totals:
            assert abs(totals[0] - sum(rows)) <= anomalies.MEMORY_TOLERANCE * totals[0]


def test_the_dma_classes_are_shares_of_dma_active_time_in_neuron_profile_output():
    """inf2 (2.27) and trn2 (2.28): exact to the float against dma_active_time; against total_time
    (the old rule) they are off by up to 99.9 %, which flagged every one of these files."""
    checked, worst_old = 0, 0.0
    for path in VIEW:
        summary, _ = view(path)
        for percent, written, ratios in shares(summary):
            if percent in anomalies.DMA_CLASSES and summary.get(percent.removesuffix("_percent")) is not None:
                (_, of_dma), (_, of_total) = ratios
                assert written == pytest.approx(of_dma, rel=1e-12, abs=1e-15)
                checked += 1
                worst_old = max(worst_old, abs(of_total - written))
    assert checked >= 15 and worst_old > 0.8


@pytest.mark.parametrize("path", [*VIEW, TRNBLAS, MARKDOWN, *BUNDLED], ids=lambda p: p.name)
def test_no_cross_value_anomaly_on_real_summaries(path):
    for profile in neuroncmp.load(path):
        assert not [a for a in profile.anomalies if a.code in CROSS], profile.anomalies


def test_the_bundled_percent_above_100_stays_flagged():
    (baseline,) = neuroncmp.load(RUN / "baseline.json")
    assert {a.metric for a in baseline.anomalies if a.code == "percent-over-100"} == {
        "throttle_avg_util_limit_nc0_percent", "throttle_periodic_avg_util_limit_nc0_percent"}


# ---- each rule still catches a value that breaks its relation -----------------------------------

def test_a_dma_class_matching_neither_denominator_is_flagged(tmp_path):
    path = next(p for p in VIEW if "fused_fp32" in p.name)
    data = json.loads(path.read_text())
    data["summary"][0]["static_dma_active_time_percent"] = 0.5  # real: 0.27 of dma_active_time
    (tmp_path / "bad.json").write_text(json.dumps(data))
    (profile,) = neuroncmp.load(tmp_path / "bad.json")
    (anomaly,) = [a for a in profile.anomalies if a.code == "share-mismatch"]
    assert anomaly.metric == "static_dma_active_time_percent"
    assert "/ dma_active_time" in anomaly.message and "/ total_time" in anomaly.message


def test_a_dma_class_written_as_a_share_of_total_time_is_accepted(tmp_path):
    """Other real output (a public NKI attention study's summaries, 1.2 GHz trn2) writes the DMA
    classes over total_time: static 4.5e-06 s of a 2.232e-05 s step is 0.2016."""
    path = next(p for p in VIEW if "fused_fp32" in p.name)
    data = json.loads(path.read_text())
    block = data["summary"][0]
    block["static_dma_active_time_percent"] = block["static_dma_active_time"] / block["total_time"]
    (tmp_path / "total.json").write_text(json.dumps(data))
    (profile,) = neuroncmp.load(tmp_path / "total.json")
    assert not [a for a in profile.anomalies if a.code in CROSS]


def test_an_engine_share_off_its_time_is_flagged(tmp_path):
    block = next(iter(json.loads((RUN / "b32.json").read_text()).values()))
    (tmp_path / "b32.json").write_text(json.dumps({"n": dict(block, vector_engine_active_time_percent=0.40)}))
    (profile,) = neuroncmp.load(tmp_path / "b32.json")
    assert [a.metric for a in profile.anomalies if a.code == "share-mismatch"] == ["vector_engine_active_time_percent"]


def test_cycles_off_the_clock_are_flagged(tmp_path):
    path = next(p for p in VIEW if "128x128x256" in p.name)
    data = json.loads(path.read_text())
    data["summary"][0]["neuroncore_cycle_count"] = int(data["summary"][0]["neuroncore_cycle_count"] * 1.02)
    (tmp_path / "cycles.json").write_text(json.dumps(data))
    (profile,) = neuroncmp.load(tmp_path / "cycles.json")
    assert [a.code for a in profile.anomalies if a.code in CROSS] == ["cycles-mismatch"]


def _memory_profile(rows: list[tuple[int, int, str, float]]) -> Profile:
    profile = Profile(Source("trn2.json", "test"), "trn2")
    profile.memory = [MemoryRow(nd, nc, "total" if label == "Total" else label.lower().replace(" ", "_"),
                                label, int(b)) for nd, nc, label, b in rows]
    profile.metrics["total_time"] = Metric("total_time", 1.0, "s", "1.0", "overall_stats")
    return profile


def test_memory_totals_are_checked_per_core_on_a_real_two_core_table():
    """trn2 view JSON: two cores, each with its Total row, each the exact sum of that core's rows."""
    _, memory = view(next(p for p in VIEW if "baseline_bf16" in p.name))
    assert len({(nd, nc) for nd, nc, _, _ in memory}) == 2
    good = anomalies.checked(_memory_profile(memory))
    assert not good.anomalies
    core = memory[0][1]
    moved = [(nd, nc, label, b * 1.01 if label == "Total" and nc == core else b) for nd, nc, label, b in memory]
    (anomaly,) = anomalies.checked(_memory_profile(moved)).anomalies
    assert anomaly.code == "memory-total-mismatch" and f"nc {core})" in anomaly.message


def test_a_dynamic_dma_share_that_is_not_software_plus_hardware_is_flagged(tmp_path):
    path = next(p for p in VIEW if "baseline_bf16" in p.name)
    data = json.loads(path.read_text())
    block = data["summary"][0]
    assert block["dynamic_dma_active_time_percent"] == pytest.approx(
        block["software_dynamic_dma_active_time_percent"]
        + block["hardware_dynamic_dma_active_time_percent"], abs=1e-12)
    block["dynamic_dma_active_time_percent"] += 0.05
    (tmp_path / "dynamic.json").write_text(json.dumps(data))
    (profile,) = neuroncmp.load(tmp_path / "dynamic.json")
    assert [a.metric for a in profile.anomalies if a.code in CROSS] == ["dynamic_dma_active_time_percent"]
