"""What bounds each step (analysis/bounds.py): the candidate bounds, the bottleneck, the gap, the shift.

Expected values are computed here from the input files read with ``json`` (not through the loader):
the ideal times from each profile's own numbers: the peak the profiler divides its HFU by, 128 x 128 x 2 x
2.8 GHz (NeuronCore-v2's tensor engine in the real inf2 headers; each trn1 profile's HFU implies it within
the rounding of its 4-decimal percent), the HBM bandwidth that peak over its ``peak_flops_bandwidth_ratio``
and, for DMA bytes, 500 GB/s a core (AWS's 1 TB/s per Trainium chip over its 2 cores: trn1 profiles state
no ``dma_ddr_bandwidth``).
"""

from __future__ import annotations

import csv
import io
import json
import statistics

import pytest
from click.testing import CliRunner
from conftest import ROOT, RUN

import neuroncmp as nc
from neuroncmp.analysis.bounds import Bounds, bounds_of, shift, shifts_along
from neuroncmp.analysis.findings.base import Context, Finding, NotRun, Passed
from neuroncmp.analysis.findings.bottleneck import BottleneckShift
from neuroncmp.analysis.peaks import Peaks
from neuroncmp.cli import cli

AXIS = ["b2", "b4", "baseline", "b16", "b32", "b48", "b64"]  # the sweep's axis (b32-cc-optim is not on it)
TRN2 = ROOT / "tests" / "data" / "third_party" / "derived" / "summary-json"
ATTENTION = [TRN2 / f"trn2.3xlarge_profiler-2.28_attention_{kind}_bf16_s1024.summary-json.json"
             for kind in ("baseline", "fused")]
ENGINES = ("tensor", "vector", "scalar", "sync", "gpsimd")


def raw(path) -> dict:
    """The one profile's summary in a bundled JSON file, as written."""
    (values,) = json.loads(path.read_text()).values()
    return values


def expected(values: dict) -> dict[str, float]:
    """Each bound of one bundled trn1 step, by hand from its own numbers (see the module docstring)."""
    peak = 128 * 128 * 2 * 2.8e9
    implied = values["hardware_flops"] / (values["hfu_estimated_percent"] * values["total_time"])
    assert abs(implied / peak - 1) < 0.002  # the rounding of hfu_estimated_percent (0.0493 at b2: 1e-3)
    bandwidth = peak / values["peak_flops_bandwidth_ratio"]
    out = {"compute": values["hardware_flops"] / peak,
           "memory": (values["hbm_read_bytes"] + values["hbm_write_bytes"]) / bandwidth,
           "transfer": values["dma_transfer_total_bytes"] / 500e9,
           "dma": values["dma_active_time"]}
    out.update({e: values[f"{e}_engine_active_time"] for e in ENGINES})
    return out


TEST_PEAKS = Peaks(1e14, None, 1e11, 1, ("lnc: test", "peak: test", "dma: test", "hbm: test"))


def test_bounds_of_a_step_with_known_values():
    roof = TEST_PEAKS
    values = {"total_time": 0.1, "hardware_flops": 1e12, "model_flops": 5e11, "hbm_read_bytes": 3e9,
              "hbm_write_bytes": 1e9, "tensor_engine_active_time": 0.02, "dma_active_time_percent": 0.5}
    found = bounds_of(values, roof)
    seconds = {b.name: b.seconds for b in found.bounds}
    assert seconds == pytest.approx({"dma": 0.05, "memory": 0.04, "tensor": 0.02, "compute": 0.01})
    assert [b.name for b in found.bounds] == ["dma", "memory", "tensor", "compute"]  # largest first
    assert found.bottleneck.label == "DMA" and found.gap == pytest.approx(2.0)
    assert found.bottleneck.formula == "dma_active_time_percent x total_time"
    assert {m.name for m in found.missing} == {"vector", "scalar", "sync", "gpsimd", "transfer"}
    assert "no vector_engine_active_time" in next(m.reason for m in found.missing if m.name == "vector")
    compute = next(b for b in found.bounds if b.name == "compute")
    assert compute.source == "peak: test" and dict(compute.inputs)["peak FLOP/s"] == 1e14
    assert found.text() == "DMA, step is 2.00x its bound"


def test_model_flops_stand_in_and_nothing_to_bound():
    roof = TEST_PEAKS
    found = bounds_of({"total_time": 0.1, "model_flops": 2e13}, roof)
    assert found.bottleneck.name == "compute" and found.bottleneck.formula == "model_flops / peak FLOP/s"
    assert found.gap == pytest.approx(0.1 / 0.2)  # below 1: the peak is wrong, and it shows
    empty = bounds_of({"tensor_engine_active_time_percent": 0.3}, roof)  # a share without total_time
    assert empty.bottleneck is None and empty.gap is None and empty.text() == "unknown (no bound computable)"
    assert {m.name for m in empty.missing} == {"compute", "memory", "transfer", *ENGINES, "dma"}


def test_the_bundled_sweep_is_bound_by_the_dma_at_every_batch_size():
    result = nc.sweep(RUN)
    assert [p.label for p in result.points] == AXIS
    for point, found, row in zip(result.points, result.bounds, result.table, strict=True):
        values = raw(RUN / f"{point.label}.json")
        want = expected(values)
        got = {b.name: b.seconds for b in found.bounds}
        assert got == pytest.approx(want, rel=1e-9)
        largest = max(want, key=want.__getitem__)
        assert largest == "dma" and found.bottleneck.name == "dma"
        assert found.gap == pytest.approx(values["total_time"] / values["dma_active_time"])
        assert row.get("bound") == pytest.approx(found.gap) and row.bottleneck == "DMA"
    assert result.shifts == ()
    passed = next(p for p in result.passed if p.rule == "bottleneck-shift")
    b64 = raw(RUN / "b64.json")
    assert f"b64: DMA {b64['dma_active_time'] * 1e3:.2f} ms (step {b64['total_time'] / b64['dma_active_time']:.2f}x)" \
        in passed.reason
    memory_share = expected(b64)["memory"] / b64["dma_active_time"]
    assert f"the HBM bytes need {memory_share:.0%} of the DMA's active time" in passed.reason


def test_the_sweep_table_has_the_bound_column():
    output = CliRunner().invoke(cli, ["sweep", str(RUN), "--format", "md"]).output
    header = next(line for line in output.splitlines() if line.startswith("| batch | MFU %"))
    assert header.rstrip(" |").endswith("bound by | next | if ideal")
    b2 = raw(RUN / "b2.json")
    # next: the vector engine, the largest active time after the DMA's; if ideal: AWS's bn_speedup at the
    # DMA's deepest computable level (no inputs_outputs_weights_size_bytes on trn1: the ideal transfer)
    others = max(b2[f"{e}_engine_active_time"] for e in ENGINES)
    assert others == b2["vector_engine_active_time"]
    speedup = b2["total_time"] / max(b2["dma_transfer_total_bytes"] / 435e9, others)
    assert (f"| DMA {b2['total_time'] / b2['dma_active_time']:.2f}x | "
            f"vector {others / b2['dma_active_time']:.0%} | {speedup:.2f}x |") in output


def _context(result, bounds: tuple[Bounds, ...]) -> Context:
    return Context(result.points, (), result.points[0], result.step_fit, result.knee, result.memory,
                   result.intensity, result.spill, result.roof, result.roofline, result.table, bounds)


def test_the_rule_names_a_shift_across_batch_sizes():
    result = nc.sweep(RUN)
    roof = TEST_PEAKS
    dma = {"total_time": 0.1, "dma_active_time": 0.08, "tensor_engine_active_time": 0.05}
    tensor = {"total_time": 0.2, "dma_active_time": 0.1, "tensor_engine_active_time": 0.16}
    made = tuple(bounds_of(dma if p.batch_size < 32 else tensor, roof) for p in result.points)
    outcome = BottleneckShift().apply(_context(result, made))
    assert isinstance(outcome, Finding)
    assert outcome.title == "b32 moves the bottleneck from DMA to the tensor engine"
    assert outcome.where == ("b32",)
    assert "DMA 80.00 ms (step 1.25x) -> tensor engine 160.00 ms (step 1.25x)" in outcome.evidence[0].value
    assert "at b64 the step is bound by tensor engine" in outcome.action
    assert isinstance(BottleneckShift().apply(_context(result, made[:1])), NotRun)
    same = tuple(bounds_of(dma, roof) for _ in result.points)
    assert isinstance(BottleneckShift().apply(_context(result, same)), Passed)


def test_shifts_along_a_series():
    roof = TEST_PEAKS
    a = bounds_of({"total_time": 1.0, "dma_active_time": 0.5}, roof)
    b = bounds_of({"total_time": 1.0, "vector_engine_active_time": 0.5}, roof)
    found = shifts_along((("b8", a), ("b16", a), ("b32", b), ("b64", a)))
    assert [s.sentence for s in found] == ["b32 moves the bottleneck from DMA to the vector engine",
                                           "b64 moves the bottleneck from the vector engine to DMA"]
    assert shift("x", a, a, "y") is None


def test_diff_names_the_shift_on_real_trn2_attention_kernels():
    """The fused attention kernel moves the bound from the DMA to the tensor engine (real trn2 profiles)."""
    before, after = (raw(path) for path in ATTENTION)
    assert before["dma_active_time"] > max(before[f"{e}_engine_active_time"] for e in ENGINES)
    assert after["tensor_engine_active_time"] > max(after["dma_active_time"],
                                                    *(after[f"{e}_engine_active_time"] for e in ENGINES[1:]))
    # the ideal times stay below: model_flops is 0 here, so the peak is the table's (79 dense BF16
    # TFLOP/s per physical trn2 core, two per logical core at LNC=2); the bandwidth MBU implies
    assert before["model_flops"] == after["model_flops"] == 0
    peak = 2 * 79e12
    bandwidth = statistics.median((v["hbm_read_bytes"] + v["hbm_write_bytes"])
                                  / (v["total_time"] * v["mbu_estimated_percent"]) for v in (before, after))
    for v, top in ((before, before["dma_active_time"]), (after, after["tensor_engine_active_time"])):
        assert v["hardware_flops"] / peak < top and (v["hbm_read_bytes"] + v["hbm_write_bytes"]) / bandwidth < top
    gaps = [before["total_time"] / before["dma_active_time"], after["total_time"] / after["tensor_engine_active_time"]]
    args = ["diff", *map(str, ATTENTION), "--summary"]
    md = CliRunner().invoke(cli, [*args, "--format", "md"]).output
    assert f"| bound by (step / its bound) | DMA {gaps[0]:.2f}x | tensor engine {gaps[1]:.2f}x (from DMA) |" in md
    term = CliRunner().invoke(cli, [*args, "--no-color", "--width", "120"]).output.splitlines()
    row = next(i for i, line in enumerate(term) if line.startswith("bound by"))
    assert term[row].split()[2:] == ["DMA", "tensor", "from", "DMA"]
    assert term[row + 1].split()[-2:] == [f"{gaps[0]:.2f}x", f"{gaps[1]:.2f}x"]
    data = json.loads(CliRunner().invoke(cli, [*args, "--format", "json"]).output)
    sides = data["bounds"]["sides"]
    assert [s["bottleneck"] for s in sides] == ["dma", "tensor"]
    assert sides[1]["shift"]["sentence"].endswith("moves the bottleneck from DMA to the tensor engine")
    assert sides[1]["gap"] == pytest.approx(gaps[1])
    table = list(csv.DictReader(io.StringIO(CliRunner().invoke(cli, ["diff", *map(str, ATTENTION),
                                                                      "--format", "csv"]).stdout)))
    rows = {r["metric"]: r for r in table if r["group"] == "bounds"}
    assert (rows["bottleneck"]["baseline"], rows["bottleneck"]["variant"]) == ("dma", "tensor")
    assert float(rows["bound_gap"]["variant"]) == pytest.approx(gaps[1])


def test_diff_headline_on_the_bundled_sweep():
    base, b32 = raw(RUN / "baseline.json"), raw(RUN / "b32.json")
    output = CliRunner().invoke(cli, ["diff", str(RUN / "baseline.json"), str(RUN / "b32.json"), "--summary",
                                      "--no-color", "--width", "100"]).output.splitlines()
    row = next(i for i, line in enumerate(output) if line.startswith("bound by"))
    assert output[row].split()[2:] == ["DMA", "DMA"]
    assert output[row + 1].split()[-2:] == [f"{base['total_time'] / base['dma_active_time']:.2f}x",
                                            f"{b32['total_time'] / b32['dma_active_time']:.2f}x"]
    html = CliRunner().invoke(cli, ["diff", str(RUN / "baseline.json"), str(RUN / "b32.json"),
                                    "--format", "html"]).output
    assert "<td>DMA 1.17x</td><td>DMA 1.18x</td>" in html  # 53.78 / 45.83 and 114.7 / 97.03


def test_no_bound_line_without_the_inputs():
    """Explorer's summary text excerpt gives engine shares but no total_time: no bound is computable,
    and the headline leaves the line out rather than guess."""
    path = (ROOT / "tests/data/third_party/explorer-summary-text"
            / "trainium_neuron-explorer_runtime-2.33.10_summary-text_excerpt.txt")
    output = CliRunner().invoke(cli, ["diff", str(path), str(path), "--summary", "--no-color"]).output
    assert "bound by" not in output


def test_a_suspect_value_bounds_nothing():
    """A value an input anomaly makes suspect is not used, and the missing bound says why."""
    roof = TEST_PEAKS
    values = {"total_time": 0.1, "dma_active_time": 0.5, "tensor_engine_active_time": 0.02}
    found = bounds_of(values, roof, {"dma_active_time": "dma_active_time is 500 % of total_time"})
    assert found.bottleneck.name == "tensor" and found.gap == pytest.approx(5.0)
    dma = next(m for m in found.missing if m.name == "dma")
    assert "input anomaly" in dma.reason and "500 % of total_time" in dma.reason
