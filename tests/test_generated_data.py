"""The data the project generates passes its own loader's checks (issue 32, item 8): a generated
profile carries no anomaly unless one is planted on purpose (the fuzzers' edge files do; these
generators do not), and a diff of two profiles at one batch size reads its findings as about the
variant, not as a sweep.

Generators: ``scripts/make_history.py`` (one history, a fleet), ``scripts/bench_cli.py``'s sweep of
variants, ``scripts/make_explorer_fixtures.py``, the stand-ins' captures (``tests/standins``: they
print the bundled real profiles, so a capture holds exactly the anomalies of those files: the
bundled b8's throttle percents above 100 %, real). The relations checked are the loader's
(``ingest/anomalies.py``); the expected shares here are worked out from the generated times.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import ROOT, RUN, TRAIN, use_standins

import neuroncmp
from neuroncmp.cli import cli

sys.path.insert(0, str(ROOT / "scripts"))
import bench_cli
import make_history


def anomalies_of(paths: list[Path] | list[str]) -> dict[str, list[tuple[str, str | None]]]:
    """Each profile's anomalies (code, metric), by file, for those that have any."""
    found = {}
    for path in paths:
        for profile in neuroncmp.load(path):
            if profile.anomalies:
                found[str(path)] = [(a.code, a.metric) for a in profile.anomalies]
    return found


def test_the_readme_history_loads_with_no_anomaly(tmp_path):
    # the walk-through (docs/history/index.md): 80 runs, the default shifts, noisy nodes (3 %), outliers
    shifts = dict(make_history.parse_shift(text) for text in make_history.DEFAULT_SHIFTS)
    made = make_history.generate(tmp_path, 80, 13, shifts)
    runs = sorted(tmp_path.glob("run-*.json"))
    assert len(runs) == 80 and made.noisy_runs  # a noisy node is planted: not an anomaly
    assert anomalies_of(runs) == {}


def test_a_generated_run_keeps_every_share_of_its_times(tmp_path):
    make_history.generate(tmp_path, 60, 5, {"total_time": (40, 0.05), "dma_active_time": (30, 0.06)})
    for path in sorted(tmp_path.glob("run-*.json")):
        (values,) = json.loads(path.read_text()).values()
        for share in ("tensor_engine_active_time_percent", "dma_active_time_percent", "cc_op_active_time_percent"):
            time = values[share.removesuffix("_percent")]
            assert time <= values["total_time"]
            assert values[share] == time / values["total_time"]
        # b32's clock, 160,573,760 cycles in 0.1147 s (1.4 GHz), kept: the cycle count is a whole number
        assert abs(values["neuroncore_cycle_count"] - values["total_time"] * 160573760 / 0.1147) <= 0.5
        assert all(0 <= values[name] <= 1 for name in ("throttle_avg_util_limit_nc0_percent",
                                                       "throttle_activity_0_avg_util_limit_nc0_percent"))


@pytest.mark.parametrize("naming", ["neutral", "commit"])
def test_a_generated_fleet_loads_with_no_anomaly(tmp_path, naming):
    truth = make_history.generate_fleet(tmp_path, 40, 7, [("llama-1b", 8), ("llama-1b", 16), ("bert", 32)], naming)
    files = sorted(p for p in tmp_path.rglob("*.json"))
    assert len(files) == 120
    assert anomalies_of(files) == {}
    for history in truth.values():  # shifts are planted on what is measured, never on a derived share
        assert not [m for m in history.shifts if m.endswith("_active_time_percent")]
        assert history.shifts.get("throttle_avg_util_limit_nc0_percent", (0, -1.0))[1] < 0  # at 98 %: only falls


def test_the_benchmarks_variants_load_with_no_anomaly(tmp_path):
    paths = bench_cli.generate_sweep(tmp_path, 120)
    assert len(paths) == 121
    assert anomalies_of(paths[1:]) == {}


def test_the_explorer_fixtures_load_with_no_anomaly(tmp_path):
    pytest.importorskip("pyarrow")
    import make_explorer_fixtures

    folders = make_explorer_fixtures.write(tmp_path)
    assert anomalies_of(sorted(folders.values())) == {}


def test_the_op_table_fixtures_load_with_no_anomaly(tmp_path):
    """``write_ops`` used to put b32's Summary on the generated 65.72 us step: 9 anomalies a folder
    (the cycle count and every active-time share were b32's 114.7 ms ones)."""
    pytest.importorskip("pyarrow")
    import make_explorer_fixtures

    folders = make_explorer_fixtures.write_ops(tmp_path)
    assert anomalies_of(sorted(folders.values())) == {}
    (base,) = neuroncmp.load(folders["ops-base"])
    # by hand from OPS_BASE: n instructions of d ns, each starting 0.8 d after the one before, span
    # 0.8 d (n - 1) + d; the ops one after another after 10 us: dot 32,200, add 8,100, softmax 12,960,
    # reduce 2,460 ns; the vector engine runs add and reduce
    total = (10_000 + 32_200 + 8_100 + 12_960 + 2_460) * 1e-9
    assert base.value("total_time") == pytest.approx(total)
    assert base.value("tensor_engine_active_time") == pytest.approx(32_200e-9)
    assert base.value("vector_engine_active_time") == pytest.approx((8_100 + 2_460) * 1e-9)
    assert base.value("vector_engine_active_time_percent") == pytest.approx(10_560e-9 / total)
    assert base.value("neuroncore_cycle_count") == round(total * 1.4e9)


def test_a_stand_in_capture_holds_only_the_real_files_anomalies(tmp_path):
    with pytest.MonkeyPatch.context() as mp:
        use_standins(mp, tmp_path / "no-neuron-bin")
        out = tmp_path / "run"
        CliRunner().invoke(cli, ["capture", "--batch", "2,8,16,32", "--out", str(out), "--", *TRAIN])
    captured = {p.label: sorted((a.code, a.metric) for a in p.anomalies) for p in neuroncmp.load(out)}
    bundled = {label: sorted((a.code, a.metric) for a in neuroncmp.load(RUN / name)[0].anomalies)
               for label, name in (("b2", "b2.json"), ("b8", "baseline.json"), ("b16", "b16.json"),
                                   ("b32", "b32.json"))}
    assert captured == bundled
    assert captured["b8"] == [("percent-over-100", "throttle_avg_util_limit_nc0_percent"),
                              ("percent-over-100", "throttle_periodic_avg_util_limit_nc0_percent")]


def test_a_run_against_its_history_has_no_suspect_row(tmp_path, monkeypatch):
    """The issue's command: ``diff history/run-00079.json --baseline-history --where model=bert-large
    --summary`` flagged 7 of its 8 headline rows as suspect input (share mismatches)."""
    pytest.importorskip("duckdb")
    from neuroncmp.store import Store

    shifts = dict(make_history.parse_shift(text) for text in make_history.DEFAULT_SHIFTS)
    make_history.generate(tmp_path / "history", 80, 13, shifts)
    Store(tmp_path / "store").add_listing(tmp_path / "history" / "runs.csv")
    monkeypatch.setenv("COLUMNS", "100")
    result = CliRunner().invoke(cli, ["diff", str(tmp_path / "history" / "run-00079.json"), "--baseline-history",
                                      "--where", "model=bert-large", "--summary", "--no-color",
                                      "--store", str(tmp_path / "store")])
    assert result.exit_code == 0, result.output
    rows = result.output.split("headline\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert len(rows) >= 8 and not [row for row in rows if row.rstrip().endswith("!")]
    assert "input anomal" not in result.output


# ---- a diff of two profiles at one batch size -------------------------------------------------

def value(name: str, metric: str) -> float:
    (values,) = json.loads((RUN / name).read_text()).values()
    return float(values[metric])


def test_a_same_batch_diff_finds_about_the_variant(monkeypatch):
    monkeypatch.chdir(RUN)
    result = CliRunner().invoke(cli, ["diff", "b32.json", "b32-cc-optim.json", "--no-color"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    found = result.output.split("findings (", 1)[1].split("\n\n", 1)[0]
    assert found.startswith("of b32-cc-optim alone: these profiles form no sweep;")
    mfu, bound = value("b32-cc-optim.json", "mfu_estimated_percent"), value(
        "b32-cc-optim.json", "mfu_max_achievable_estimated_percent")
    intensity = value("b32-cc-optim.json", "mm_arithmetic_intensity")
    assert f"MFU {mfu * 100:.2f} % at b32-cc-optim is {mfu / bound:.0%} of the roofline bound" in found
    assert f"memory-bound at b32-cc-optim: arithmetic intensity {intensity:.1f} FLOP/B is" in found
    assert "every batch size" not in found and " at b32 " not in found and " at b32)" not in found


def test_a_sweep_of_one_profile_says_where_not_everywhere(monkeypatch):
    monkeypatch.chdir(RUN)
    result = CliRunner().invoke(cli, ["sweep", "b32.json", "--no-color"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "every batch size" not in result.output.split("checked, did not fire")[0]
    assert "memory-bound at b32:" in result.output
    # b32: 8.583 GiB of spill reload over its HBM reads, above the 25 % threshold
    assert "reload above 25 % of HBM reads at b32" in result.output
