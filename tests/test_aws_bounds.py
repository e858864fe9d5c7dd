"""AWS's bounds analysis, reproduced: the worked example and a real trn2 pair by AWS's method by hand.

AWS's method: the neuron-nki-profile-querying skill of aws-neuron/neuron-agentic-development,
``references/performance-bounds.md`` (the formulas) and ``references/example-bounds-analysis.md`` (a
4096x4096x4096 bf16 matmul NKI kernel on trn2, V0 -> V1 -> V2; docs/bounds.md puts its tables beside
ours value by value).

The example states per version total_time and every engine's active time, and (V0's appendix) the DMA
bytes 1,207,697,408 and the necessary bytes 100,663,296 (3 x 4096 x 4096 x 2). Worked back, as the
example does not state them:
- hardware_flops = 2 x 4096^3 = 137,438,953,472 (its compute_bound_ideal 1,748 us = that / 78.6 TFLOP/s),
  transpose_flops = 0 (its "Transpose 0" gap);
- V1's and V2's DMA bytes = 201,326,592 = 6 x 4096 x 4096 x 2 (rhs loaded 4 times at BM=8, lhsT and the
  output once): its memory_bound_ideal 463 us x 435 GB/s = 201.4 MB, and its achieved bandwidths
  151.9 and 245.8 GB/s x 1,325 and 819 us = 201.3 MB;
- the peaks from the header it names: dma_ddr_bandwidth 435 GB/s, TE peak 128 x 128 x 2 x 2.4 GHz
  (78.6 TFLOP/s), one core (LNC=1: AWS's bounds assume single-core kernels).
Its times are rounded to 1 us, so a gap (a difference of two of them) is known to +-1 us: each value is
checked within 1 %, a gap within 1 % or 1 us.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import RUN, THIRD_PARTY

import neuroncmp as nc
from neuroncmp.cli import cli

US = 1e-6
TILE = 4096 * 4096 * 2   # bytes of one 4096 x 4096 bf16 tensor
# (version, total_time, DMA, tensor, vector active in us, DMA bytes): AWS's tables and appendix
VERSIONS = (("V0", 8602, 7906, 4806, 176, 1_207_697_408),
            ("V1", 2451, 1325, 2163, 174, 6 * TILE),
            ("V2", 1801, 819, 1781, 172, 6 * TILE))
HEADER = {"instance_type": "trn2.3xlarge", "lnc_config": 1, "dma_ddr_bandwidth": 435e9,
          "tensor_engine_num_rows": 128, "tensor_engine_num_cols": 128, "tensor_engine_clock_freq": 2.4}
# AWS's tables, as published (us; shares of total_time)
BOUNDS = {"V0": {"memory_bound": 7906, "memory_bound_ideal": 2776, "memory_bound_ideal_no_reloads": 231,
                 "compute_bound": 4806, "compute_bound_ideal_flops": 1748, "compute_bound_ideal_useful_flops": 1748,
                 "perfect_pipeline": 7906},
          "V1": {"memory_bound": 1325, "memory_bound_ideal": 463, "memory_bound_ideal_no_reloads": 231,
                 "compute_bound": 2163, "compute_bound_ideal_flops": 1748, "compute_bound_ideal_useful_flops": 1748,
                 "perfect_pipeline": 2163},
          "V2": {"memory_bound": 819, "memory_bound_ideal": 463, "memory_bound_ideal_no_reloads": 231,
                 "compute_bound": 1781, "compute_bound_ideal_flops": 1748, "compute_bound_ideal_useful_flops": 1748,
                 "perfect_pipeline": 1781}}
GAPS = {"V0": {"dma_idle": (696, 0.081), "dma_inefficiency": (5130, 0.596), "excess_traffic": (2545, 0.296),
               "tensor_idle": (3796, 0.441), "tensor_underuse": (3058, 0.356), "transposes": (0, 0.0)},
        "V1": {"dma_idle": (1126, 0.460), "dma_inefficiency": (862, 0.352), "excess_traffic": (231, None),
               "tensor_idle": (288, 0.118), "tensor_underuse": (416, 0.170), "transposes": (0, 0.0)},
        "V2": {"dma_idle": (982, 0.545), "dma_inefficiency": (356, 0.198), "excess_traffic": (231, None),
               "tensor_idle": (20, 0.011), "tensor_underuse": (33, 0.018), "transposes": (0, 0.0)}}
TRAFFIC = {"V0": 0.917, "V1": 0.500, "V2": 0.500}   # excess traffic "% of traffic"


def example_run(folder: Path) -> Path:
    """The worked example's three versions as a run folder: summary-json files and a manifest that
    states the header's facts and numbers the versions (``params.version``)."""
    folder.mkdir()
    entries = []
    for number, (label, total, dma, tensor, vector, moved) in enumerate(VERSIONS):
        summary = {"total_time": total * US, "dma_active_time": dma * US, "tensor_engine_active_time": tensor * US,
                   "vector_engine_active_time": vector * US, "scalar_engine_active_time": 0.0,
                   "gpsimd_engine_active_time": 0.0, "dma_transfer_total_bytes": moved,
                   "inputs_outputs_weights_size_bytes": 3 * TILE, "hardware_flops": 2 * 4096**3,
                   "transpose_flops": 0}
        (folder / f"{label}.json").write_text(json.dumps({f"n_{label}": summary}), encoding="utf-8")
        entries.append({"file": f"{label}.json", "label": label, "params": {"version": number},
                        "metadata": HEADER})
    (folder / "manifest.json").write_text(json.dumps({"schema": "neuroncmp.manifest/1", "profiles": entries}),
                                          encoding="utf-8")
    return folder


def within(got: float, want: float, slack: float = 0.0) -> bool:
    return abs(got - want) <= max(0.01 * abs(want), slack)


@pytest.fixture(scope="module")
def example(tmp_path_factory) -> dict:
    run = example_run(tmp_path_factory.mktemp("aws") / "blocking-tiled")
    return json.loads(CliRunner().invoke(cli, ["diff", str(run), "--format", "json"]).output)


def test_the_worked_example_bounds_within_1_percent(example):
    sides = {s["label"]: s for s in example["bounds"]["sides"]}
    assert list(sides) == ["V0", "V1", "V2"] and example["bounds"]["versions"]  # the manifest numbers them
    for label, want in BOUNDS.items():
        aws = sides[label]["aws"]
        got = {name: level["seconds"] / US for name, level in aws["levels"].items()}
        got["perfect_pipeline"] = aws["perfect_pipeline"]["seconds"] / US
        for name, value in want.items():
            assert within(got[name], value), (label, name, got[name], value)


def test_the_worked_example_gaps_and_shares(example):
    sides = {s["label"]: s for s in example["bounds"]["sides"]}
    for label, want in GAPS.items():
        found = sides[label]["aws"]["gaps"]
        for name, (seconds, share) in want.items():
            assert within(found[name]["seconds"] / US, seconds, 1.0), (label, name)
            if share is not None:  # AWS prints them to 0.1 point, of its unrounded times
                assert found[name]["share"] == pytest.approx(share, abs=0.001), (label, name)
        assert found["excess_traffic"]["part"] == pytest.approx(TRAFFIC[label], abs=0.001)
        assert found["transposes"]["part"] == 0.0


def test_the_worked_example_bottlenecks_speedup_and_rates(example):
    sides = {s["label"]: s for s in example["bounds"]["sides"]}
    # "Bottleneck: DMA", "DMA -> Tensor", "Tensor"
    assert [sides[v]["bottleneck"] for v in ("V0", "V1", "V2")] == ["dma", "tensor", "tensor"]
    assert sides["V1"]["shift_from_previous"]["sentence"] == "V1 moves the bottleneck from DMA to the tensor engine"
    assert sides["V2"]["shift_from_previous"] is None and sides["V2"]["shift"]["against"] == "V0"
    # V0: "the next unaffected engine (TE) ... at 4,806 (1.79x speedup)"
    speedup = sides["V0"]["aws"]["speedup"]
    assert within(speedup["factor"], 1.79) and speedup["then"] == "tensor"
    assert sides["V0"]["aws"]["next"]["name"] == "tensor"
    # V1 -> V2: "achieved BW from 151.9 to 245.8 GB/s"; V1's appendix: "Achieved 63.5 TFLOPS (81%)"
    assert within(sides["V1"]["aws"]["achieved"]["dma_bandwidth"]["value"], 151.9e9)
    assert within(sides["V2"]["aws"]["achieved"]["dma_bandwidth"]["value"], 245.8e9)
    tensor = sides["V1"]["aws"]["achieved"]["tensor_flops"]
    assert within(tensor["value"], 63.5e12) and tensor["of_peak"] == pytest.approx(0.81, abs=0.005)


def test_the_worked_example_changes_from_one_version_to_the_next(example):
    sides = {s["label"]: s for s in example["bounds"]["sides"]}
    v1, v2 = sides["V1"]["from_previous"], sides["V2"]["from_previous"]
    # AWS's V0 -> V1 column: -6,151 us (3.5x), -6,581 (6.0x), -2,643 (2.2x); gaps +430, -4,268 (6.0x), -3,508 (13.2x)
    for name, delta, ratio in (("total_time", -6151, 3.5), ("memory_bound", -6581, 6.0),
                               ("compute_bound", -2643, 2.2), ("dma_idle", 430, None),
                               ("dma_inefficiency", -4268, 6.0), ("tensor_idle", -3508, 13.2)):
        assert within(v1[name]["delta"] / US, delta, 1.0), name
        if ratio is not None:  # AWS's ratios are of its unrounded times: 5,130 / 862 is 5.95, printed 6.0
            assert within(v1[name]["ratio"], ratio, 0.05), name
    # V1 -> V2: -650 us (1.4x), DMA -506 (1.6x), tensor -382 (1.2x), TE idle -268 (14.4x)
    for name, delta, ratio in (("total_time", -650, 1.4), ("memory_bound", -506, 1.6),
                               ("compute_bound", -382, 1.2), ("tensor_idle", -268, 14.4)):
        assert within(v2[name]["delta"] / US, delta, 1.0), name
        assert within(v2[name]["ratio"], ratio, 0.05), name  # printed to 0.1


DOC_NAMES = {"memory_bound_no_reloads": "memory_bound_ideal_no_reloads", "compute_bound_ideal":
             "compute_bound_ideal_flops", "compute_bound_ideal_useful": "compute_bound_ideal_useful_flops"}


def test_the_docs_table_is_what_the_tool_prints(tmp_path):
    """docs/bounds.md puts the example's table beside ours: our columns are the --bounds output."""
    run = example_run(tmp_path / "blocking-tiled")
    text = CliRunner().invoke(cli, ["diff", str(run), "--bounds", "--no-color", "--width", "200"]).output
    printed = {line.split()[0]: line for line in text.splitlines() if line[:1].islower()}
    doc = (Path(__file__).parents[1] / "docs" / "bounds.md").read_text(encoding="utf-8")
    table = doc.split("| bound | V0 AWS | V0 ours |", 1)[1].split("\n\n", 1)[0]
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in table.splitlines()[2:]]
    assert len(rows) == 8
    for name, *cells in rows:
        ours = [cell.split(" (")[0] for cell in cells[1::2]]
        line = printed[DOC_NAMES.get(name, name)]
        printed_cells = [part.strip().split(" (")[0] for part in line.split("  ")[1:] if part.strip()]
        assert [f"{value} us" for value in ours] == printed_cells[:3], name


def test_the_bounds_view_prints_the_tables(tmp_path):
    run = example_run(tmp_path / "blocking-tiled")
    text = CliRunner().invoke(cli, ["diff", str(run), "--bounds", "--no-color", "--width", "160"]).output
    assert "memory_bound_ideal: DMA bytes / DMA bandwidth" in text
    lines = text.splitlines()
    # AWS's change columns: each version against the one before (V0 -> V1, V1 -> V2)
    assert next(line.split() for line in lines if line.split()[:2] == ["bound", "V0"]) == [
        "bound", "V0", "V1", "V2", "V0", "->", "V1", "V1", "->", "V2"]
    row = next(line for line in lines if line.startswith("total_time "))
    assert row.split()[1:] == ["8,602", "us", "2,451", "us", "1,801", "us", "-6,151", "us", "(3.5x)", "-650", "us",
                               "(1.4x)"]
    row = next(line for line in lines if line.startswith("memory_bound_ideal "))
    assert row.split()[1:] == ["2,776", "us", "463", "us", "463", "us", "-2,313", "us", "(6.0x)", "="]
    assert next(line for line in lines if line.startswith("bottleneck ")).split()[1:] == [
        "DMA", "tensor", "tensor", "DMA", "->", "tensor", "="]
    pipeline = next(line for line in lines if line.startswith("perfect_pipeline"))
    assert "7,906 us (DMA)" in pipeline and "1,781 us (tensor)" in pipeline
    excess = next(line for line in lines if line.startswith("gap: excess traffic"))
    assert "2,545 us (29.6%; 91.7%)" in excess


# ---- the real trn2 attention pair, by AWS's method by hand ------------------------------------------------

VIEW = THIRD_PARTY / "view-json"
PAIR = [VIEW / f"trn2.3xlarge_profiler-2.28_attention_{kind}_bf16_s512.json" for kind in ("baseline", "fused")]


def by_hand(path: Path) -> dict[str, float]:
    """AWS's bounds of one view JSON, from its own sections with ``json``: the DMA bytes by AWS's filter
    over the ``dma`` rows, the peaks from ``metadata`` for the one physical core every MATMUL and data
    DMA ran on (subgraph sg00)."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    summary, header = doc["summary"][0], doc["metadata"][0]
    data = [r for r in doc["dma"] if r["queue_type"] != "instruction" and r["transfer_size"] > 4]
    assert {r["subgraph"] for r in data} == {"sg00"}
    assert {r["subgraph"] for r in doc["instruction"] if r["opcode"] == "MATMUL"} == {"sg00"}
    moved = sum(r["transfer_size"] for r in data)
    peak = header["pe_num_rows"] * header["pe_num_cols"] * 2 * header["pe_clock_freq"] * 1e9
    bandwidth = header["dma_ddr_bandwidth"]
    flops, transposes = summary["hardware_flops"], summary["transpose_flops"]
    engines = {e: summary[f"{e}_engine_active_time"] for e in ("tensor", "vector", "scalar", "gpsimd", "sync")}
    engines["dma"] = summary["dma_active_time"]
    total = summary["total_time"]
    levels = {"memory_bound": engines["dma"], "memory_bound_ideal": moved / bandwidth,
              "memory_bound_ideal_no_reloads": summary["inputs_outputs_weights_size_bytes"] / bandwidth,
              "compute_bound": engines["tensor"], "compute_bound_ideal_flops": flops / peak,
              "compute_bound_ideal_useful_flops": (flops - transposes) / peak}
    return {"total_time": total, **levels, "perfect_pipeline": max(engines.values()),
            "dma_data_bytes": moved, "achieved_dma": moved / engines["dma"],
            "next": sorted(engines.values())[-2]}


def test_the_real_trn2_attention_pair_by_aws_method_by_hand():
    data = json.loads(CliRunner().invoke(cli, ["diff", *map(str, PAIR), "--format", "json"]).output)
    for path, side in zip(PAIR, data["bounds"]["sides"], strict=True):
        want = by_hand(path)
        aws = side["aws"]
        for name, level in aws["levels"].items():
            assert level["seconds"] == pytest.approx(want[name], rel=1e-12), (path.name, name)
        assert aws["perfect_pipeline"]["seconds"] == pytest.approx(want["perfect_pipeline"])
        assert aws["achieved"]["dma_bandwidth"]["value"] == pytest.approx(want["achieved_dma"])
        assert aws["next"]["seconds"] == pytest.approx(want["next"])
        dma = aws["gaps"]["dma_inefficiency"]
        assert dma["seconds"] == pytest.approx(want["memory_bound"] - want["memory_bound_ideal"])
        assert dma["share"] == pytest.approx(dma["seconds"] / want["total_time"])
    baseline, fused = data["bounds"]["sides"]
    assert (baseline["bottleneck"], fused["bottleneck"]) == ("dma", "tensor")
    # the fused kernel: tensor 15.1 us, then the vector engine 11.4 (75 %), the DMA 11.0
    assert fused["aws"]["next"]["name"] == "vector" and fused["aws"]["next"]["share"] == pytest.approx(
        11.373937 / 15.147477)
    # its speedup if the tensor engine ran only its useful FLOPs at the peak: the vector engine then bounds it
    assert fused["aws"]["speedup"]["factor"] == pytest.approx(36.351609 / 11.373937)


def test_the_view_json_rows_are_summed_for_the_dma_bytes():
    for path in PAIR:
        profile = nc.load(path)[0]
        want = by_hand(path)
        assert profile.metrics["dma_data_bytes"].value == want["dma_data_bytes"]
        assert (profile.info("matmul_cores"), profile.info("dma_cores"), profile.info("lnc_config")) == (1, 1, 2)
    # the baseline's 4,816,896 bytes are its HBM reads and writes; its static_dma_size (164,880) is the
    # instruction queue's, which AWS's filter leaves out
    base = nc.load(PAIR[0])[0]
    assert base.value("dma_data_bytes") == base.value("hbm_read_bytes") + base.value("hbm_write_bytes") == 4_816_896


def test_an_lnc2_kernel_on_one_core_is_measured_against_one_core():
    """The pair states LNC=2 (number_of_neuroncores_per_lnc) and its HFU implies two cores' peak (157.3
    TFLOP/s), but every MATMUL and data DMA ran on one physical core: the ideal times are one core's."""
    data = json.loads(CliRunner().invoke(cli, ["diff", *map(str, PAIR), "--format", "json"]).output)
    peaks = data["bounds"]["sides"][0]["peaks"]
    assert peaks["lnc"]["value"] == 2 and "as the profile states" in peaks["lnc"]["source"]
    assert peaks["peak_flops"]["value"] == 128 * 128 * 2 * 2.4e9
    assert "ran on 1 of its LNC=2 cores" in peaks["peak_flops"]["source"]
    assert peaks["dma_bandwidth"]["value"] == 435e9


def test_summary_json_of_a_trn2_kernel_takes_its_lnc_from_hfu():
    """A summary-json states no LNC: its HFU implies the peak the profiler used, two cores' on trn2."""
    path = (THIRD_PARTY / "derived" / "summary-json"
            / "trn2.3xlarge_profiler-2.28_attention_fused_bf16_s1024.summary-json.json")
    (values,) = json.loads(path.read_text(encoding="utf-8")).values()
    implied = values["hardware_flops"] / (values["hfu_estimated_percent"] * values["total_time"])
    shown = json.loads(CliRunner().invoke(cli, ["show", str(path), "--format", "json"]).output)
    peaks = shown["bounds"]["peaks"]
    assert peaks["lnc"]["value"] == 2 and "implied by HFU" in peaks["lnc"]["source"]
    assert peaks["peak_flops"]["value"] == pytest.approx(implied)
    assert peaks["dma_bandwidth"]["value"] == 2 * 435e9


def test_the_overrides_reach_diff_and_show():
    args = [str(RUN / "baseline.json"), str(RUN / "b32.json"), "--format", "json",
            "--peak-tflops", "100", "--dma-gbps", "500", "--hbm-gbps", "400"]
    data = json.loads(CliRunner().invoke(cli, ["diff", *args]).output)
    b32 = json.loads((RUN / "b32.json").read_text(encoding="utf-8"))
    (values,) = b32.values()
    side = data["bounds"]["sides"][1]
    levels = side["aws"]["levels"]
    assert levels["compute_bound_ideal_flops"]["seconds"] == pytest.approx(values["hardware_flops"] / 1e14)
    assert side["aws"]["levels"]["memory_bound_ideal"]["seconds"] == pytest.approx(
        values["dma_transfer_total_bytes"] / 500e9)
    assert side["seconds"]["memory"] == pytest.approx((values["hbm_read_bytes"] + values["hbm_write_bytes"]) / 400e9)
    assert side["peaks"]["peak_flops"]["source"] == "peak FLOP/s from the command line"
    shown = json.loads(CliRunner().invoke(cli, ["show", str(RUN / "b32.json"), "--format", "json",
                                                "--dma-gbps", "500"]).output)
    assert shown["bounds"]["aws"]["levels"]["memory_bound_ideal"]["seconds"] == pytest.approx(
        values["dma_transfer_total_bytes"] / 500e9)


def test_show_prints_the_bounds_and_gaps_of_one_profile():
    text = CliRunner().invoke(cli, ["show", str(PAIR[1]), "--no-color", "--width", "140"]).output
    lines = text.splitlines()
    assert any(line.startswith("Bounds and gaps") for line in lines)
    want = by_hand(PAIR[1])
    row = next(line for line in lines if line.startswith("compute_bound "))
    assert row.split()[-2:] == [f"{want['compute_bound'] * 1e6:.1f}", "us"]
    assert any(line.startswith("next bottleneck") and line.rstrip().endswith("vector 75%") for line in lines)


def test_without_the_inputs_a_gap_says_why():
    """The bundled trn1 profiles state no inputs_outputs_weights_size_bytes: no no-reload bound, no
    excess-traffic gap, each saying so, never 0."""
    data = json.loads(CliRunner().invoke(cli, ["show", str(RUN / "b32.json"), "--format", "json"]).output)
    aws = data["bounds"]["aws"]
    assert aws["levels"]["memory_bound_ideal_no_reloads"] == {
        "missing": "no inputs_outputs_weights_size_bytes in the profile"}
    assert "no inputs_outputs_weights_size_bytes" in aws["gaps"]["excess_traffic"]["missing"]
    text = CliRunner().invoke(cli, ["show", str(RUN / "b32.json"), "--no-color", "--width", "140"]).output
    assert "note: b32: excess traffic: not computed (no-reload transfer: no inputs_outputs_weights_size_bytes" in text


def test_versions_judge_each_against_the_one_before():
    files = [str(RUN / name) for name in ("b2.json", "b32.json", "b16.json")]
    plain = json.loads(CliRunner().invoke(cli, ["diff", *files, "--format", "json"]).output)
    assert [s["label"] for s in plain["bounds"]["sides"]] == ["b2", "b16", "b32"]  # by batch size
    assert "from_previous" not in plain["bounds"]["sides"][1] and not plain["bounds"]["versions"]
    ordered = json.loads(CliRunner().invoke(cli, ["diff", *files, "--versions", "--format", "json"]).output)
    sides = ordered["bounds"]["sides"]
    assert [s["label"] for s in sides] == ["b2", "b32", "b16"]  # as given
    b32 = json.loads((RUN / "b32.json").read_text(encoding="utf-8"))
    b16 = json.loads((RUN / "b16.json").read_text(encoding="utf-8"))
    (v32,), (v16,) = b32.values(), b16.values()
    assert sides[2]["from_previous"]["memory_bound"]["delta"] == pytest.approx(
        v16["dma_active_time"] - v32["dma_active_time"])
    given = json.loads(CliRunner().invoke(cli, ["diff", *files, "--order", "given", "--format", "json"]).output)
    assert not given["bounds"]["versions"]  # --order given only orders


# ---- the user's peaks: in range, and never a negative gap -------------------------------------------------

@pytest.mark.parametrize("command", ["show", "diff", "sweep"])
@pytest.mark.parametrize(("option", "value", "unit"), [("--peak-tflops", "1e-300", "TFLOP/s"),
                                                       ("--dma-gbps", "0.0005", "GB/s"),
                                                       ("--hbm-gbps", "1e-300", "GB/s")])
def test_peaks_below_any_hardware_are_the_one_line_usage_error(command, option, value, unit):
    files = [RUN / "b32.json"] if command == "show" else [RUN / "baseline.json", RUN / "b32.json"]
    result = CliRunner().invoke(cli, [command, *map(str, files), option, value])
    assert result.exit_code == 2
    assert result.output.splitlines()[-1] == (f"Error: Invalid value for '{option}': '{value}': expected a number "
                                              f"above 0.001 {unit} and at most 1e+06 {unit}")


def test_the_library_refuses_the_same_peaks():
    with pytest.raises(nc.UsageError, match=r"^dma_bandwidth=1e-300: expected a number above 1e\+06 bytes/s"):
        nc.sweep(RUN, dma_bandwidth=1e-300)


def test_a_peak_the_step_beats_leaves_the_gap_not_computed_never_negative():
    (values,) = json.loads((RUN / "b32.json").read_text(encoding="utf-8")).values()
    # at 1 TFLOP/s b32's hardware FLOPs need 2.551 s, above the 37.99 ms its tensor engine was active
    assert values["hardware_flops"] / 1e12 > values["tensor_engine_active_time"]
    args = ["show", str(RUN / "b32.json"), "--peak-tflops", "1"]
    data = json.loads(CliRunner().invoke(cli, [*args, "--format", "json"]).output)
    underuse = data["bounds"]["aws"]["gaps"]["tensor_underuse"]
    assert underuse == {"missing": "not computed (compute_bound_ideal_flops 2.551 s is above compute_bound 37.99 ms: "
                                   "the number it divides by (peak FLOP/s from the command line) or an input is off)"}
    text = CliRunner().invoke(cli, [*args, "--no-color", "--width", "140"]).output
    gap_rows = [line for line in text.splitlines() if line.startswith("gap:")]
    assert len(gap_rows) == 7 and not [row for row in gap_rows if re.search(r"-\d", row)]  # "-": not computed


# ---- one peak per profile, wherever it is printed --------------------------------------------------------

NC_V2 = 128 * 128 * 2 * 2.8e9   # the profiler's formula with the real inf2 headers' tensor engine (pe_*)


def test_a_trn1_profile_prints_one_peak_everywhere():
    """Each bundled trn1 profile's HFU implies the peak it was divided by, read back from a percent rounded to
    4 decimals: 91.71 TFLOP/s at b32, 91.80 at b2. The profiler divided by 128 x 128 x 2 x 2.8 GHz = 91.75:
    show, diff --bounds, sweep's roofline and its transposes finding all print that one number."""
    for name in ("b32.json", "b2.json"):
        (values,) = json.loads((RUN / name).read_text(encoding="utf-8")).values()
        implied = values["hardware_flops"] / (values["hfu_estimated_percent"] * values["total_time"])
        assert abs(implied / NC_V2 - 1) < 0.001 and f"{implied / 1e12:.2f}" != "91.75"
    shown = json.loads(CliRunner().invoke(cli, ["show", str(RUN / "b32.json"), "--format", "json"]).output)
    assert shown["bounds"]["peaks"]["peak_flops"]["value"] == NC_V2
    compared = json.loads(CliRunner().invoke(cli, ["diff", str(RUN / "b2.json"), str(RUN / "b32.json"),
                                                   "--format", "json"]).output)
    assert [s["peaks"]["peak_flops"]["value"] for s in compared["bounds"]["sides"]] == [NC_V2, NC_V2]
    swept = json.loads(CliRunner().invoke(cli, ["sweep", str(RUN), "--format", "json"]).output)
    assert swept["roof"]["peak_flops"] == NC_V2
    texts = [CliRunner().invoke(cli, [*args, "--no-color", "--width", "200"]).output
             for args in (["show", str(RUN / "b32.json")], ["diff", str(RUN / "b2.json"), str(RUN / "b32.json"),
                                                            "--bounds"], ["sweep", str(RUN)])]
    printed = {m for text in texts for m in re.findall(r"(\d+\.\d+) TFLOP/s", text) if 91 < float(m) < 92}
    assert printed == {"91.75"}
    assert "what HFU implies, within 0.04% (the rounding" in texts[0]  # b32's 91.71: the evidence, as a deviation


def test_a_trn2_summary_json_counts_its_two_cores_of_the_same_formula():
    path = (THIRD_PARTY / "derived" / "summary-json"
            / "trn2.3xlarge_profiler-2.28_attention_fused_bf16_s1024.summary-json.json")
    shown = json.loads(CliRunner().invoke(cli, ["show", str(path), "--format", "json"]).output)["bounds"]["peaks"]
    core = 128 * 128 * 2 * 2.4e9   # NeuronCore-v3 in the real trn2 headers: 78.64 TFLOP/s
    assert shown["peak_flops"]["value"] == 2 * core
    assert "2.00 x one core's 78.64 TFLOP/s" in shown["lnc"]["source"]


def test_trn1_dma_bandwidth_is_aws_chip_figure_per_core():
    """No trn1 profile states dma_ddr_bandwidth; AWS's Trainium page gives "1 TB/sec of DMA bandwidth" per
    chip of two NeuronCore-v2: 500 GB/s a physical core, theoretical (the 435 of the inf2 and trn2 headers is
    what those profilers state for their own hardware)."""
    shown = json.loads(CliRunner().invoke(cli, ["show", str(RUN / "b32.json"), "--format", "json"]).output)
    dma = shown["bounds"]["peaks"]["dma_bandwidth"]
    assert dma["value"] == 1e12 / 2
    assert "a physical core" in dma["source"] and "1 TB/s of DMA bandwidth per Trainium chip over its 2 cores, " \
        "theoretical" in dma["source"]
    (values,) = json.loads((RUN / "b32.json").read_text(encoding="utf-8")).values()
    ideal = shown["bounds"]["aws"]["levels"]["memory_bound_ideal"]["seconds"]
    assert ideal == pytest.approx(values["dma_transfer_total_bytes"] / 500e9)
    inf2 = json.loads(CliRunner().invoke(cli, ["show", str(VIEW / "inf2.xlarge_profiler-2.27_matmul_128x128x256.json"),
                                               "--format", "json"]).output)["bounds"]["peaks"]["dma_bandwidth"]
    assert inf2["value"] == 435e9 and "the profiler's header" in inf2["source"]


# ---- the same kernel in two formats: which cores each side's bounds count ---------------------------------

def test_two_formats_of_one_kernel_say_their_cores_and_warn_that_they_differ(tmp_path):
    """The fused view JSON and a summary-json of its own summary (SOURCES.md's recipe for the derived
    files): the view JSON's rows put every MATMUL on one physical core of its LNC=2 NEFF, the summary-json
    states no LNC and its HFU implies two cores' peak. Same kernel, ideal compute times 2x apart."""
    doc = json.loads(PAIR[1].read_text(encoding="utf-8"))
    derived = tmp_path / "fused.summary-json.json"
    derived.write_text(json.dumps({doc["profile_info"][0]["profile_name"]: doc["summary"][0]}), encoding="utf-8")
    data = json.loads(CliRunner().invoke(cli, ["diff", str(PAIR[1]), str(derived), "--format", "json"]).output)
    view, summary = data["bounds"]["sides"]
    assert (view["peaks"]["basis"], summary["peaks"]["basis"]) == ("1 physical core of LNC=2", "2 physical cores")
    flops = doc["summary"][0]["hardware_flops"]
    core = doc["metadata"][0]["pe_num_rows"] * doc["metadata"][0]["pe_num_cols"] * 2 * doc["metadata"][0][
        "pe_clock_freq"] * 1e9
    assert view["aws"]["levels"]["compute_bound_ideal_flops"]["seconds"] == pytest.approx(flops / core)
    assert summary["aws"]["levels"]["compute_bound_ideal_flops"]["seconds"] == pytest.approx(flops / (2 * core))
    warned = [w for w in data["warnings"] if w.startswith("the bounds count different cores")]
    assert len(warned) == 1 and "per 1 physical core of LNC=2 (view-json: the profile's MATMULs ran on 1 of its " \
        "LNC=2 cores)" in warned[0] and "per 2 physical cores (summary-json: LNC=2, implied by HFU)" in warned[0]
    text = CliRunner().invoke(cli, ["diff", str(PAIR[1]), str(derived), "--no-color", "--width", "400"]).output
    assert "warning: the bounds count different cores:" in text
    # the same peaks for both: no warning; one format on both sides: none either
    given = json.loads(CliRunner().invoke(cli, ["diff", str(PAIR[1]), str(derived), "--format", "json",
                                                "--peak-tflops", "78.64", "--dma-gbps", "435"]).output)
    same = json.loads(CliRunner().invoke(cli, ["diff", *map(str, PAIR), "--format", "json"]).output)
    assert not [w for d in (given, same) for w in d["warnings"] if w.startswith("the bounds count")]
    shown = CliRunner().invoke(cli, ["show", str(derived), "--no-color", "--width", "140"]).output
    assert any(line.split() == ["ideal", "times", "per", "2", "physical", "cores"] for line in shown.splitlines())


# ---- a speedup estimate the step cannot reach -------------------------------------------------------------

INF2_256 = VIEW / "inf2.xlarge_profiler-2.27_matmul_128x128x256.json"


def test_a_speedup_far_beyond_the_work_is_not_reachable_never_a_large_multiple():
    """The inf2 matmul kernel's step is 1,876 us and its busiest engine or DMA is active 1.96 us: with the
    DMA at its no-reload ideal, AWS's bn_speedup is total_time / the GpSimd engine's 1.90 us, about 989x, a
    multiple of idle time no ideal removes."""
    summary = json.loads(INF2_256.read_text(encoding="utf-8"))["summary"][0]
    total, gpsimd = summary["total_time"], summary["gpsimd_engine_active_time"]
    data = json.loads(CliRunner().invoke(cli, ["show", str(INF2_256), "--format", "json"]).output)
    found = data["bounds"]["aws"]["speedup"]
    assert found["factor"] == pytest.approx(total / gpsimd) and total / gpsimd > 900
    assert found["reachable"] is False and "not reachable above 10x" in data["bounds"]["aws"]["speedup_assumes"]
    text = CliRunner().invoke(cli, ["show", str(INF2_256), "--no-color", "--width", "140"]).output
    row = next(line for line in text.splitlines() if line.startswith("speedup if ideal"))
    assert row.split()[-2:] == ["not", "reachable"]
    assert f"{total / gpsimd:.0f}" not in text and f"{total / gpsimd:.2f}" not in text
    assert (f"the step would be bound by GpSimd at {gpsimd * 1e6:.3f} us, {gpsimd / total:.2%} of its "
            f"{total * 1e3:.3f} ms") in " ".join(text.split())
    other = VIEW / "inf2.xlarge_profiler-2.27_matmul_128x128x512.json"
    diffed = CliRunner().invoke(cli, ["diff", str(INF2_256), str(other), "--no-color", "--width", "140"]).output
    assert next(line for line in diffed.splitlines() if "speedup if ideal" in line).split()[-4:] == [
        "not", "reachable", "not", "reachable"]
    # where the engines are busy it stays AWS's multiple: the fused trn2 kernel, 3.20x
    fused = CliRunner().invoke(cli, ["show", str(PAIR[1]), "--no-color", "--width", "140"]).output
    assert next(line for line in fused.splitlines() if line.startswith("speedup if ideal")).split()[-2:] == [
        "3.20x", "(vector)"]


def test_versions_shift_from_the_one_before_in_the_headline_as_in_the_tables(tmp_path):
    """AWS's bottleneck sequence DMA -> Tensor -> Tensor: V1 moved it from the DMA, V2 did not move it. The
    headline said V2 moved it 'from DMA' (against V0) while --bounds judged V2 against V1."""
    run = example_run(tmp_path / "blocking-tiled")
    text = CliRunner().invoke(cli, ["diff", str(run), "--no-color", "--width", "160"]).output
    row = next(line for line in text.splitlines() if line.startswith("bound by"))
    assert row.split() == ["bound", "by", "(from", "the", "one", "before)", "DMA", "tensor", "from", "DMA", "tensor"]
    md = CliRunner().invoke(cli, ["diff", str(run), "--format", "md"]).output
    cells = next(line for line in md.splitlines() if line.startswith("| bound by")).split("|")[2:-1]
    assert [c.strip() for c in cells] == ["DMA 1.09x", "tensor engine 1.13x (from DMA in V0)", "tensor engine 1.01x"]
    # without --versions (given order only) every variant is against the baseline: V2 moved it from V0's DMA
    alone = tmp_path / "no-manifest"
    alone.mkdir()
    for version in ("V0", "V1", "V2"):  # the files without the manifest that numbers them
        (alone / f"{version}.json").write_text((run / f"{version}.json").read_text())
    files = [str(alone / f"{v}.json") for v in ("V0", "V1", "V2")]
    plain = CliRunner().invoke(cli, ["diff", *files, "--order", "given", "--no-color", "--width", "160"]).output
    assert next(line for line in plain.splitlines() if line.startswith("bound by")).split() == [
        "bound", "by", "DMA", "tensor", "from", "DMA", "tensor", "from", "DMA"]


def test_the_library_call_takes_the_peaks_and_versions_diff_takes(tmp_path):
    import inspect
    from dataclasses import fields

    from neuroncmp.commands.diff import DiffOptions

    alone = tmp_path / "versions"
    alone.mkdir()
    example_run(tmp_path / "blocking-tiled")
    for version in ("V0", "V1", "V2"):  # no manifest: the order and the versions are the caller's
        (alone / f"{version}.json").write_text((tmp_path / "blocking-tiled" / f"{version}.json").read_text())
    files = [alone / f"{v}.json" for v in ("V0", "V2", "V1")]  # V2 before V1: versions keep the order given
    made = nc.compare(*files, order="given", versions=True, peak_flops=1e14, dma_bandwidth=5e11)
    report = made.report()
    assert report.versions and [s.label for s in made.sides] == ["v0", "v2", "v1"]
    v1 = report.bounds[2]
    assert v1.level("compute_bound_ideal_flops").seconds == pytest.approx(2 * 4096**3 / 1e14)
    assert v1.level("memory_bound_ideal").seconds == pytest.approx(6 * TILE / 5e11)
    assert "bound by (from the one before)" in made.text(width=160)  # v2 before v1
    # the same as the command line's
    cli_data = json.loads(CliRunner().invoke(cli, ["diff", *map(str, files), "--order", "given", "--versions",
                                                   "--peak-tflops", "100", "--dma-gbps", "500",
                                                   "--format", "json"]).output)
    assert cli_data["bounds"]["sides"][2]["from_previous"]["total_time"]["delta"] == pytest.approx(
        v1.step - report.bounds[1].step)
    # every option of DiffOptions that shapes a comparison is the library's too (the CLI's own: its gates and
    # what it prints)
    cli_only = {"rules", "summary", "findings", "bounds_only", "allow_incomparable", "brief"}
    declared = {f.name for f in fields(DiffOptions) if f.init} - cli_only
    assert declared == set(inspect.signature(nc.compare).parameters) - {"inputs"}
    with pytest.raises(nc.UsageError, match=r"^peak_flops=1e-300: expected a number above"):
        nc.compare(RUN, peak_flops=1e-300)


def test_unlike_kernels_of_similar_work_are_scored_and_the_docs_say_so():
    """The comparability rule reads the amount of work, not what it is (docs/judging.md): the inf2 matmul
    kernel and the fused trn2 attention kernel are within 100x in HBM traffic, so they are compared; the
    page names this pair and its factors, and the warnings that tell them apart are printed."""
    matmul = json.loads(INF2_256.read_text(encoding="utf-8"))["summary"][0]
    attention = json.loads(PAIR[1].read_text(encoding="utf-8"))["summary"][0]
    traffic = [s["hbm_read_bytes"] + s["hbm_write_bytes"] for s in (matmul, attention)]
    flops = [s["hardware_flops"] for s in (matmul, attention)]
    data = json.loads(CliRunner().invoke(cli, ["diff", str(INF2_256), str(PAIR[1]), "--format", "json"]).output)
    assert data["not_comparable"] == {}  # the limit: scored as one workload
    assert [w for w in data["warnings"] if w.startswith("the compiler changed the graph")]
    assert [w for w in data["warnings"] if w.startswith("instance_type differs")]
    change = f"{attention['total_time'] / matmul['total_time'] - 1:.1%}✔"  # -98.1%, scored better
    text = CliRunner().invoke(cli, ["diff", str(INF2_256), str(PAIR[1]), "--no-color", "--width", "140"]).output
    assert next(line for line in text.splitlines() if line.startswith("step time (device)")).split()[-1] == change
    doc = " ".join((Path(__file__).parents[1] / "docs" / "judging.md").read_text(encoding="utf-8").split())
    assert (f"differ {max(flops) / min(flops):.1f}x in hardware FLOPs but only {max(traffic) / min(traffic):.1f}x "
            f"in HBM traffic, so the diff scores them: `step time (device) {change}`") in doc
