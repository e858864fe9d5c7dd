"""Comparability is decided before any delta: runs of different workloads are shown, never judged.

The rule (``comparability.not_comparable``): every measure of work per step (per sample when both
batch sizes are known) that both runs state, among hardware FLOPs, model FLOPs, HBM traffic and DMA
bytes, more than 100x apart, and not one NEFF. The numbers below are read from the raw files.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import re
import shutil

import pytest
from click.testing import CliRunner
from conftest import RUN, THIRD_PARTY, VARIANT_FILES

import neuroncmp as nc
from neuroncmp.catalog import HEADLINE
from neuroncmp.cli import cli

BASE = str(RUN / "baseline.json")
VIEW = THIRD_PARTY / "view-json"
KERNEL = str(VIEW / "trn2.3xlarge_profiler-2.28_attention_fused_bf16_s512.json")
LABEL = "trn2-3xlarge-profiler-2-28-attention-fused-bf16-s512"
JUDGED = {"better", "worse", "unchanged", "neutral"}


def _base_raw_file():
    with open(BASE) as file:
        return json.load(file)


def _base_raw():
    return next(iter(_base_raw_file().values()))


def _kernel_raw():
    """The view JSON's summary: its ``summary`` list's first entry (the kernel's one NEFF)."""
    return json.loads(open(KERNEL).read())["summary"][0]


def _diff(*args):
    return CliRunner().invoke(cli, ["diff", BASE, KERNEL, "--no-color", "--width", "100", *args])


def test_the_ratios_that_decide_it_worked_out_from_the_files():
    base, kernel = _base_raw(), _kernel_raw()
    flops = base["hardware_flops"] / kernel["hardware_flops"]  # 654.344 GFLOP / 285.2 MFLOP
    traffic = ((base["hbm_read_bytes"] + base["hbm_write_bytes"])
               / (kernel["hbm_read_bytes"] + kernel["hbm_write_bytes"]))
    assert round(flops) == 2294 and round(traffic) == 12352  # both far past 100x
    comparison = nc.compare(nc.load(BASE), nc.load(KERNEL))
    assert "x2,294" in comparison.not_comparable[LABEL] and "x12,352" in comparison.not_comparable[LABEL]


def test_the_terminal_opens_with_it_and_withholds_every_verdict_and_the_tally():
    result = _diff("--summary")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert " ".join(lines[:2]).startswith(f"not comparable: {LABEL} and baseline ran different workloads")
    headline = lines[lines.index(next(t for t in lines if t.startswith("headline"))):]
    step = next(t for t in headline if t.startswith("step time (device)"))
    assert "0.03635" in step and "-99.9%" in step and "✔" not in step  # the value and change, no verdict
    assert not any(mark in t for t in headline[:20] for mark in "✔✘")
    tally = next(t for t in lines if t.startswith("rows better / worse / suspect"))
    assert "not" in tally and "✔" not in tally


@pytest.mark.parametrize("fmt", ["json", "csv", "md", "html"])
def test_every_format_says_it_and_judges_nothing(fmt):
    result = CliRunner().invoke(cli, ["diff", BASE, KERNEL, "--format", fmt])
    assert result.exit_code == 0
    out = result.output
    if fmt == "json":
        data = json.loads(out)
        assert list(data["not_comparable"]) == [LABEL] and data["tally"][LABEL] is None
        assert any(w.startswith("not comparable:") for w in data["warnings"])
        verdicts = {v for row in data["rows"] for basis in ("step", "sample") if row[basis]
                    for v in row[basis]["verdict"]}
        assert not verdicts & JUDGED and "context" in verdicts
    elif fmt == "csv":
        table = out[out.index("metric,group"):]
        verdicts = {row["verdict"] for row in csv.DictReader(io.StringIO(table))}
        assert not verdicts & JUDGED
        assert "warning: not comparable:" in out  # standard error, first of the warnings
    elif fmt == "md":
        assert out.startswith("**not comparable:")
        assert not any(mark in out.split("**Warnings**")[0] for mark in "✔✘")
    else:
        assert out.index("not comparable:") < out.index("<h3>") and "<td>not comparable</td>" in out


def test_the_api_withholds_too():
    comparison = nc.compare(nc.load(BASE), nc.load(KERNEL))
    assert comparison.tally() == ({},)
    assert comparison.cell("total_time", LABEL).step.verdict == "context"
    assert comparison.cell("total_time", LABEL).step.relative == pytest.approx(
        _kernel_raw()["total_time"] / _base_raw()["total_time"] - 1)


def test_a_gate_refuses_it_unless_told():
    refused = _diff("--fail-on", "total_time>+5%")
    assert refused.exit_code == 2 and "--allow-incomparable" in refused.output
    allowed = _diff("--fail-on", "total_time<-50%", "--allow-incomparable", "--summary")
    assert allowed.exit_code == 3  # judged as asked: -99.9 %
    assert _diff("--fail-on", "total_time>+5%", "--allow-incomparable", "--summary").exit_code == 0


# ---- what stays comparable --------------------------------------------------------------------

def _labels_not_comparable(paths):
    return dict(nc.compare([nc.load(str(p)) for p in paths]).not_comparable)


def test_the_bundled_sweep_is_one_workload():
    assert _labels_not_comparable([RUN / name for name in VARIANT_FILES]) == {}


def test_a_batch_sweep_without_batch_sizes_is_one_workload(tmp_path):
    """b2 and b64 per step (no batch size in the names): hardware FLOPs 180.1 G vs 5,221 G (29x),
    HBM traffic 5.37 vs 33.7 GB (6.3x): within 100x."""
    for name, new in (("b2.json", "run-a.json"), ("b64.json", "run-b.json")):
        shutil.copy(RUN / name, tmp_path / new)
    comparison = nc.compare(nc.load(str(tmp_path / "run-a.json")), nc.load(str(tmp_path / "run-b.json")))
    assert comparison.baseline.batch_size is None and comparison.not_comparable == {}


@pytest.mark.parametrize("family", ["inf2.xlarge_profiler-2.27_matmul", "trn2.3xlarge_profiler-2.28_attention"])
def test_real_kernels_of_one_family_stay_comparable(family):
    """Every pair of the inf2 matmul kernels (N = 128 to 2048: hardware FLOPs 8.5x apart at most,
    DMA bytes equal) and of the trn2 attention variants (a fused kernel, another dtype, another
    length: hardware FLOPs 4.8x apart at most, each its own NEFF)."""
    paths = sorted(VIEW.glob(f"{family}*.json")) + sorted((THIRD_PARTY / "derived" / "summary-json").glob(
        f"{family}*.json"))
    assert len(paths) >= 4
    for a, b in itertools.combinations(paths, 2):
        assert _labels_not_comparable([a, b]) == {}, (a.name, b.name)


def test_another_device_family_and_compiler_for_the_same_model_stays_comparable(tmp_path):
    """trn1 -> trn2 with a new compiler: the same work, so the same workload."""
    raw = _base_raw_file()
    (key,) = raw
    raw[key].update(instance_type="trn2.3xlarge", compiler_version="2.23.6484.0+3b612583")
    moved = tmp_path / "on-trn2.json"
    moved.write_text(json.dumps(raw))
    comparison = nc.compare(nc.load(BASE), nc.load(str(moved)))
    assert comparison.variants[0].profiles[0].info("instance_type") == "trn2.3xlarge"
    assert comparison.not_comparable == {}


def test_the_brief_footer_counts_rows_by_their_values_not_their_withheld_verdicts():
    """The default diff's footer said "0 of 136 changed rows ...; 0 rows unchanged": a withheld
    verdict (context) was counted as a change, so rows equal on both sides counted as changed. A row
    is unchanged when its values are inside the noise band, verdict or none: every row whose two
    values are equal (read from the JSON's values) is among the unchanged, and the footer's counts
    with the headline's rows add up to every row."""
    footer = " ".join(_diff().output.splitlines())
    changed, unchanged = map(int, re.search(
        r"\d+ of (\d+) changed rows beside the headline's shown .*?; (\d+) rows unchanged", footer).groups())
    rows = json.loads(_diff("--format", "json").output)["rows"]
    equal = [r["metric"] for r in rows if r["step"]["value"] == [r["baseline"]["step"]]]
    assert len(equal) >= 5 and unchanged >= len(equal)  # output_queue_bytes, nd_idx, three memory types
    headline = {entry.metric for entry in HEADLINE}
    moved = [r for r in rows if r["metric"] in headline and r["step"]["in_band"] != [True]]
    assert changed + unchanged + len(moved) == len(rows)
