"""No value from a missing or zero-by-convention input (issue 32, item 3), on real profiles.

NKI kernels carry no HLO statistics: the profiler writes ``model_flops`` 0 and warns that it and
``mfu_hlo_estimated_percent`` "will not be available", pointing to ``hardware_flops -
transpose_flops`` instead. The expected numbers below are read from the files by hand
(``summary[0]`` of each view JSON) and worked out in the comments.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

import neuroncmp
from neuroncmp.catalog import catalog
from neuroncmp.cli.app import cli

DATA = Path(__file__).parent / "data" / "third_party"
VIEW = DATA / "view-json"
FUSED = VIEW / "trn2.3xlarge_profiler-2.28_attention_fused_bf16_s512.json"
BASELINE = VIEW / "trn2.3xlarge_profiler-2.28_attention_baseline_bf16_s512.json"
INF2 = VIEW / "inf2.xlarge_profiler-2.27_matmul_128x128x512.json"
HARDWARE = "(hardware_flops - transpose_flops) / total_time"


def _one(path: Path) -> neuroncmp.Profile:
    (profile,) = neuroncmp.load(path)
    return profile


def test_the_flop_rate_of_an_nki_kernel_is_its_non_transpose_flops_per_second():
    # fused: model_flops 0, hardware_flops 285212672, transpose_flops 83886080, total_time 3.6351609e-05 s:
    # (285212672 - 83886080) / 3.6351609e-05 = 201326592 / 36.351609 us = 5.5383e12 FLOP/s (was "0 FLOP/s")
    values = _one(FUSED).values
    rate = values.derived["achieved_flop_rate"]
    assert rate.value == pytest.approx(201326592 / 3.6351609e-05, rel=1e-12)
    assert rate.raw == f"= {HARDWARE}"
    assert "model_flops" not in values.all and "model_flops" in values.unavailable


def test_a_kernel_with_hlo_statistics_keeps_the_model_flop_rate():
    # inf2 matmul 128x128x512: model_flops 16777216 over total_time 0.001870868809 s = 8.9677e9 FLOP/s
    rate = _one(INF2).values.derived["achieved_flop_rate"]
    assert rate.value == pytest.approx(16777216 / 0.001870868809, rel=1e-12)
    assert rate.raw == "= model_flops / total_time"


def test_values_the_profiler_writes_as_0_without_a_source_are_not_available():
    # fused: model_flops 0, mfu_hlo_estimated_percent 0, mfu_hlo_max_achievable_estimated_percent 0 with
    # 201326592 non-transpose FLOPs run; dma_transfer_time 0 and dma_transfer_average_bytes 0 with no
    # dma_transfer_count while DMA was active 1.1048218e-05 s. mfu_estimated_percent 0.0352 (the profiler's
    # fallback to the instruction count, = mfu_inst_estimated_percent) is a measurement and stays.
    values = _one(FUSED).values
    assert set(values.unavailable) == {"model_flops", "mfu_hlo_estimated_percent",
                                       "mfu_hlo_max_achievable_estimated_percent", "dma_transfer_time",
                                       "dma_transfer_average_bytes"}
    assert not set(values.unavailable) & set(values.numbers)
    assert values.all["mfu_estimated_percent"].value == pytest.approx(0.035211646340056094)
    inf2 = _one(INF2).values  # HLO statistics and one DMA transfer counted: every value measured
    assert inf2.unavailable == {} and inf2.all["dma_transfer_average_bytes"].value == 32768


def test_show_states_each_formula_and_what_is_not_available(monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    out = CliRunner().invoke(cli, ["show", str(FUSED), "--no-color"]).output
    assert "achieved_flop_rate  (derived)" in out and "5.538 TFLOP/s" in out and "0 FLOP/s" not in out
    assert f"derived: achieved_flop_rate = {HARDWARE}" in out
    model = next(line for line in out.splitlines() if line.strip().startswith("model_flops"))
    assert model.split()[-2:] == ["not", "available"]
    assert "not available: model_flops, mfu_hlo_estimated_percent" in out
    assert "not computed: device_throughput: batch_size / total_time needs a batch size" in out
    data = json.loads(CliRunner().invoke(cli, ["show", str(FUSED), "--format", "json"]).output)
    assert data["derived"]["achieved_flop_rate"]["formula"] == HARDWARE
    assert data["not_available"]["model_flops"]["read"] == 0 and "model_flops" not in data["metrics"]
    assert data["not_computed"]["device_throughput"] == "batch_size / total_time needs a batch size"


def test_a_diff_states_the_formula_and_scores_no_change_of_formula():
    # both trn2 kernels: (hardware - transpose) / total_time, 201326592 / 5.4276582e-05 s = 3.709 TFLOP/s
    # -> 5.538 TFLOP/s, +49.3 %: one formula on both sides, scored (better)
    data = json.loads(CliRunner().invoke(cli, ["diff", str(BASELINE), str(FUSED), "--format", "json"]).stdout)
    row = next(r for r in data["rows"] if r["metric"] == "achieved_flop_rate")
    assert row["formula"] == HARDWARE and "formula_variant" not in row
    assert row["step"]["value"][0] / row["baseline"]["step"] - 1 == pytest.approx(
        (3.6351609e-05 ** -1) / (5.4276582e-05 ** -1) - 1)
    assert row["step"]["verdict"] == ["better"]
    assert not any(r["metric"] in ("model_flops", "mfu_hlo_estimated_percent") for r in data["rows"])
    assert any(w.startswith(f"achieved_flop_rate = {HARDWARE} on ") and "(model_flops not available)" in w
               for w in data["warnings"])
    # inf2 (model FLOPs) against trn2 (non-transpose FLOPs): two formulas, two quantities: not scored
    data = json.loads(CliRunner().invoke(cli, ["diff", str(INF2), str(FUSED), "--format", "json"]).stdout)
    row = next(r for r in data["rows"] if r["metric"] == "achieved_flop_rate")
    assert (row["formula"], row["formula_variant"]) == ("model_flops / total_time", [HARDWARE])
    assert row["step"]["verdict"] == ["suspect"]
    assert "model_flops" not in data["only_in"]
    assert any(w.startswith("not available on trn2-3xlarge-profiler-2-28-attention-fused-bf16-s512: "
                            "model_flops, mfu_hlo_estimated_percent") for w in data["warnings"])


def _kernel_runs(folder: Path, first: int, count: int) -> Path:
    """``count`` summaries of the fused kernel (its ``summary[0]``), the step 0.1 % longer on every
    other run (noise for the shift detector) and a picosecond more each (distinct files), with a
    listing giving each a day and a commit."""
    summary = json.loads(FUSED.read_text(encoding="utf-8"))["summary"][0]
    rows = ["path,time,commit,kernel"]
    for i in range(first, first + count):
        step = summary["total_time"] * (1 + 0.001 * (i % 2)) + 1e-12 * i
        (folder / f"k{i:02d}.json").write_text(json.dumps(dict(summary, total_time=step)))
        rows.append(f"k{i:02d}.json,2026-01-{i + 1:02d}T00:00:00+00:00,c{i:02d},attention")
    listing = folder / f"runs-{first}.csv"
    listing.write_text("\n".join(rows) + "\n")
    return listing


def test_a_store_written_by_the_old_rule_shows_no_shift_at_the_change_of_rule(tmp_path, monkeypatch):
    """Ten runs added by the old rule (no zero by convention: achieved_flop_rate = model_flops /
    total_time = 0 / t stored as 0 FLOP/s, model_flops and mfu_hlo_estimated_percent stored as 0), ten
    by today's: history and regressions recompute from the stored values, so every run reads
    (285212672 - 83886080) / t (5.538 or 5.533 TFLOP/s) and no shift appears at run 10."""
    pytest.importorskip("duckdb")
    from neuroncmp import conventions
    from neuroncmp.store import Store

    folder = tmp_path / "runs"
    folder.mkdir()
    store = Store(tmp_path / "store")
    with monkeypatch.context() as old_rule:
        old_rule.setattr(conventions, "unavailable", lambda numbers: {})
        store.add_listing(_kernel_runs(folder, 0, 10))
    store.add_listing(_kernel_runs(folder, 10, 10))
    (series,) = store.history("achieved_flop_rate").series
    steps = [3.6351609e-05 * (1 + 0.001 * (i % 2)) + 1e-12 * i for i in range(20)]
    assert [p.value for p in series.points] == pytest.approx([201326592 / t for t in steps], rel=1e-9)
    assert series.changes == ()
    changes = store.regressions(all_changes=True).changes
    assert not [c for c in changes if c.metric in ("achieved_flop_rate", "model_flops", "mfu_hlo_estimated_percent")]
    assert store.history("model_flops").series == ()  # stored 0 by the old rule: no measurement either


# shared/ sits beside the checkout on the team's machines and is absent on a clean CI checkout.
SHARED = next((p for p in (Path(__file__).resolve().parents[1].parent / "shared" / "samples",
                           Path("/work/shared/samples")) if p.is_dir()), Path("/nonexistent"))
# Zeros that are measurements, each with what in the same profile says so (read from the profiles by
# hand: the kernels and summaries run no collective op and spill nothing; neuron-monitor counts no
# failed execution over a sampling period in which executions completed).
TRUE_ZEROS = {"cc_op_time": lambda v: v.get("cc_op_count") == 0,
              "spill_reload_bytes": lambda v: v.get("spill_save_bytes") == 0,
              **{f"execution_{outcome}_count": lambda v: v.get("execution_completed_count", 0) > 0
                 for outcome in ("completed_with_err", "completed_with_num_err", "timed_out", "incorrect_input",
                                 "failed_to_queue")}}
NAME = re.compile(r"[a-z][a-z0-9_]*")


def _real_profiles() -> list[tuple[str, neuroncmp.Profile]]:
    found = []
    for root in (DATA, SHARED):
        for path in sorted(root.rglob("*")) if root.is_dir() else []:
            if path.is_file() and path.suffix not in (".py",) and path.name not in ("SOURCES.md", "RELATIONS.md",
                                                                                   "expected.json"):
                try:
                    found += [(str(path.relative_to(root)), p) for p in neuroncmp.load(path)]
                except neuroncmp.NeuroncmpError:
                    continue  # refused with one clear line (tests/test_third_party.py checks which)
    return found


REAL = _real_profiles()


def test_real_profiles_were_read():
    # 12 view JSONs, 6 derived summary-json, 2 runner/tool logs, the UI export (4 sections), ...;
    # shared/samples adds 4 view JSONs where it is present.
    view_jsons = 16 if SHARED.is_dir() else 12
    assert len(REAL) >= 30 and sum("view-json" in name for name, _ in REAL) >= view_jsons


@pytest.mark.parametrize("name,profile", REAL, ids=[f"{n}::{p.label}" for n, p in REAL])
def test_no_derived_value_of_a_real_profile_comes_from_a_zero_or_absent_input(name, profile):
    """Every value a derived value's formula names is a value of the profile (read, or derived from
    what was read), and a derived value of 0 comes only from zeros the profile says are measurements
    (no collective op, no spill, no failed execution)."""
    values = profile.values
    known = {*catalog(), "batch_size"}
    for metric in values.derived.values():
        named = [n for n in NAME.findall(metric.raw) if n in known]
        assert named and all(n in values.numbers or n in values.derived for n in named), \
            f"{metric.name} {metric.raw}: an input absent or not available"
        if metric.value == 0:
            zeros = [n for n in named if values.numbers.get(n) == 0]
            assert zeros and all(n in TRUE_ZEROS and TRUE_ZEROS[n](values.numbers) for n in zeros), \
                f"{metric.name} {metric.raw} = 0 from {zeros}: no witness that they measure 0"


@pytest.mark.parametrize("name,profile", [(n, p) for n, p in REAL if "view-json" in n],
                         ids=[f"{n}::{p.label}" for n, p in REAL if "view-json" in n])
def test_what_the_profiler_says_is_not_available_is_never_a_value(name, profile):
    """The view JSON's own warnings name the metrics that "will not be available" (the NEFF lacks HLO
    statistics); the profile holds none of them as a value, so nothing scores or derives from them."""
    said = [set(re.findall(r"`(\w+)`", note)) for note in profile.notes if "will not be available" in note]
    for names in said:
        assert names and not names & set(profile.values.all), names
        assert names <= set(profile.values.unavailable)


def test_a_sweep_finds_nothing_in_a_zero_the_profiler_writes_for_no_transfer_counted(tmp_path):
    # the three s512 kernels as b1, b2, b4: dma_transfer_average_bytes 0 in each, with no
    # dma_transfer_count while DMA was active 11.05, 11.71 (fp32) and 24.23 us: no mean transfer size
    # exists, so the small-DMA rule (average under 4 KiB) has nothing to read (it fired on "0 B")
    for size, kind in ((1, "fused_bf16"), (2, "fused_fp32"), (4, "baseline_bf16")):
        source = VIEW / f"trn2.3xlarge_profiler-2.28_attention_{kind}_s512.json"
        (tmp_path / f"b{size}.json").write_bytes(source.read_bytes())
    files = [str(tmp_path / f"b{size}.json") for size in (1, 2, 4)]
    data = json.loads(CliRunner().invoke(cli, ["sweep", *files, "--format", "json"]).stdout)
    assert "small-dma" not in [f["rule"] for f in data["findings"]]
    assert any(entry["rule"] == "small-dma" for entry in data["not_run"])
