"""``neuroncmp ranks``: ranks told apart by one rule (refusing guesses), the straggler found and
explained, two runs' distributions compared with a tail gate, and ``diff`` pointing per-rank files here.

The data: ``tests/data/ranks/{before,after}`` (``scripts/make_ranks.py``, the commands in
``tests/data/ranks/README.md``): 8 ranks made from the bundled real b32 profile, rank 5 of ``before``
planted with a vector engine 6 % of the step slower. Expected numbers are worked out from the files
with ``statistics.median``, not by the code under test.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import statistics
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import ROOT, RUN

import neuroncmp
from neuroncmp.cli import cli
from neuroncmp.errors import UsageError
from neuroncmp.ingest.ranks import identify

DATA = ROOT / "tests" / "data" / "ranks"
BEFORE, AFTER = DATA / "before", DATA / "after"


def run(*args: str, stdout: bool = False) -> tuple[int, str]:
    """Exit code and what was printed (standard output alone when ``stdout``: data formats)."""
    result = CliRunner(env={"COLUMNS": "100", "NO_COLOR": "1"}).invoke(cli, list(args))
    return result.exit_code, result.stdout if stdout else result.output


def per_rank(folder: Path) -> dict[int, dict[str, float]]:
    """Each file's summary block by the rank in its name."""
    out = {}
    for path in folder.glob("profile_rank_*.json"):
        (block,) = json.loads(path.read_text()).values()
        out[int(path.stem.rsplit("_", 1)[1])] = block
    return out


# --- which rank is which --------------------------------------------------------------------------

def copies(tmp_path: Path, names: list[str]) -> list[Path]:
    """The bundled b32 under each name, each with its own event count (identical files are read once)."""
    paths = []
    for number, name in enumerate(names):
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        data = json.loads((RUN / "b32.json").read_text())
        next(iter(data.values()))["event_count"] += number
        path.write_text(json.dumps(data))
        paths.append(path)
    return paths


def ids_of(paths: list[Path]) -> list[str]:
    return [rank.name for rank in identify(neuroncmp.load_many(paths))]


def test_the_rank_comes_from_the_capture_tools_file_names(tmp_path):
    paths = copies(tmp_path, ["out/profile_rank_3.json", "out/profile_rank_10_exec_2.json"])
    assert ids_of(paths) == ["rank 3", "rank 10"]


def test_runtime_folders_name_the_worker_by_instance_process_and_core(tmp_path):
    # the same local core 0 in two processes: two workers, never one pooled side
    paths = copies(tmp_path, ["i-0abc_pid_11/2024/profile_nc_0_session_0.json",
                              "i-0abc_pid_12/2024/profile_nc_0_session_0.json",
                              "i-0abc_pid_12/123_instid_0_vnc_3.json"])
    assert ids_of(paths) == ["i-0abc/pid 11/nc 0", "i-0abc/pid 12/nc 0", "i-0abc/pid 12/nc 3"]


def test_two_executions_of_one_rank_are_refused(tmp_path):
    paths = copies(tmp_path, ["profile_rank_1_exec_1.json", "profile_rank_1_exec_2.json"])
    with pytest.raises(UsageError, match=r"rank 1 .* given twice.*two executions of one rank"):
        ids_of(paths)


def test_a_mix_of_named_and_unnamed_files_is_refused(tmp_path):
    paths = copies(tmp_path, ["profile_rank_1.json", "other.json"])
    with pytest.raises(UsageError, match=r"from the file name for some profiles but not for .*other\.json"):
        ids_of(paths)


def test_core_indexes_alone_that_repeat_are_refused(tmp_path):
    # every bundled profile says nd_idx 0, nc_idx 0: the same core twice is no set of ranks
    paths = copies(tmp_path, ["a.json", "b.json"])
    with pytest.raises(UsageError, match=r"core nd0/nc0 .* given twice"):
        ids_of(paths)


def test_a_manifest_rank_comes_first(tmp_path):
    copies(tmp_path, ["run/x.json", "run/y.json"])
    manifest = {"schema": "neuroncmp.manifest/1", "profiles": [
        {"file": "x.json", "label": "x", "params": {}, "metadata": {"rank": 7}},
        {"file": "y.json", "label": "y", "params": {}, "metadata": {"rank": 2}}]}
    (tmp_path / "run" / "manifest.json").write_text(json.dumps(manifest))
    assert [r.name for r in identify(neuroncmp.load(tmp_path / "run"))] == ["rank 7", "rank 2"]


# --- one run -------------------------------------------------------------------------------------

def test_the_planted_straggler_is_found_late_with_its_cause():
    code, out = run("ranks", str(BEFORE))
    assert code == 0, out
    blocks = per_rank(BEFORE)
    outside = {r: b["total_time"] - b["cc_op_active_time"] for r, b in blocks.items()}
    excess = outside[5] - statistics.median(outside.values())
    vector = blocks[5]["vector_engine_active_time"] - statistics.median(
        b["vector_engine_active_time"] for b in blocks.values())
    assert excess == pytest.approx(6.975e-3, abs=1e-6) and vector == pytest.approx(7.278e-3, abs=1e-6)
    flat = " ".join(out.split())  # the sentences wrap at 100 columns
    assert "8 ranks of one step (told apart by file name); 1 outlier" in flat
    assert "rank 5 is late, the others wait for it: its time outside collectives is +6.975 ms" in flat
    assert "vector engine +7.278 ms (104%)" in flat and "cause: vector engine" in flat
    assert out.index("rank 5 is late") < re.search(r"rank +step ms", out).start()  # said before the table


@pytest.mark.parametrize("width", [60, 80])
def test_a_narrow_terminal_cuts_no_rank_name_or_number(width):
    """The per-rank table is wider than 80 columns: it continues below, the rank repeated, as the
    sweep's tables do, and the straggler's kind stays beside its step time; nothing is ellipsized."""
    code, out = run("ranks", str(BEFORE), "--width", str(width))
    assert code == 0 and "\u2026" not in out, out
    assert all(len(line) <= width for line in out.splitlines() if not line.startswith("note:")), out
    steps = {r: b["total_time"] for r, b in per_rank(BEFORE).items()}
    median = statistics.median(steps.values())
    step, against = re.escape(f"{steps[5] * 1e3:.1f}"), re.escape(f"{(steps[5] / median - 1) * 100:+.2f}%")
    straggler = rf"^rank 5 +{step} +{against} +late\b"
    assert re.search(straggler, out, re.M), out
    assert all(re.search(rf"^rank {r} ", out, re.M) for r in steps)


def test_json_and_csv_hold_every_rank_in_base_units():
    code, out = run("ranks", str(BEFORE), "--format", "json", stdout=True)
    data = json.loads(out)
    steps = [b["total_time"] for b in per_rank(BEFORE).values()]
    assert data["schema"] == "neuroncmp.ranks/1" and len(data["ranks"]) == 8
    assert data["spreads"]["step"]["median_s"] == pytest.approx(statistics.median(steps))
    assert data["spreads"]["step"]["max_s"] == max(steps)
    assert [(o["rank"], o["kinds"], o["cause"]) for o in data["outliers"]] == [(5, ["late"], "vector engine")]
    code, out = run("ranks", str(BEFORE), "--format", "csv", stdout=True)
    lines = out.strip().splitlines()
    assert code == 0 and len(lines) == 9 and lines[0].startswith("schema,run,rank,")
    code, out = run("ranks", str(BEFORE), "--format", "md")
    assert code == 0 and "| rank 5 |" in out and "# Ranks" in out


def test_unlike_ranks_are_said_first_and_left_out(tmp_path):
    folder = tmp_path / "run"
    shutil.copytree(BEFORE, folder)
    path = folder / "profile_rank_7.json"
    data = json.loads(path.read_text())
    (block,) = data.values()
    block["hardware_flops"] //= 2  # another graph: half the work
    path.write_text(json.dumps(data))
    code, out = run("ranks", str(folder), stdout=True)
    assert code == 0, out
    assert out.splitlines()[0].startswith("8 ranks (7 of one step, 1 unlike)")
    assert out.splitlines()[1].startswith("rank 7 ran different work (hardware_flops 1.276e+12")


@pytest.mark.parametrize("bad", ["NaN", "Infinity"])
def test_a_rank_whose_step_is_not_a_number_is_left_out_and_named(tmp_path, bad):
    """A NaN or an infinity kept as read in one rank's total_time must not poison the others' median,
    p90 and sigma (it printed "p90 NaN", "+nan%" and an infinite straggler): the step's spread is that of
    the seven other ranks, worked out from their files, and a note names the rank left out."""
    folder = tmp_path / "ranks"
    shutil.copytree(AFTER, folder)
    bad_file = folder / "profile_rank_3.json"
    data = json.loads(bad_file.read_text())
    next(iter(data.values()))["total_time"] = float(bad.replace("Infinity", "inf"))
    bad_file.write_text(json.dumps(data))  # json writes NaN / Infinity, as Python tools do
    others = [block["total_time"] for rank, block in per_rank(AFTER).items() if rank != 3]
    code, out = run("ranks", str(folder), "--format", "json", stdout=True)
    step = json.loads(out)["spreads"]["step"]
    assert code == 0 and step["count"] == 7
    assert step["median_s"] == pytest.approx(statistics.median(others), rel=1e-12)
    assert step["max_s"] == pytest.approx(max(others), rel=1e-12)
    assert json.loads(out)["outliers"] == []
    code, text = run("ranks", str(folder))
    assert not re.search(r"\b(nan|inf)\b", text.lower())
    assert "not a finite number) in rank 3: left out of the distribution" in text


def test_one_profile_is_no_set_of_ranks():
    code, out = run("ranks", str(BEFORE / "profile_rank_0.json"))
    assert code == 2 and "give two or more profiles" in out


# --- two runs ------------------------------------------------------------------------------------

def test_two_runs_compare_median_and_tail_with_verdicts():
    code, out = run("ranks", str(AFTER), "--baseline", str(BEFORE), "--format", "json", stdout=True)
    assert code == 0, out
    data = json.loads(out)
    before = [b["total_time"] for b in per_rank(BEFORE).values()]
    after = [b["total_time"] for b in per_rank(AFTER).values()]
    change = {(c["quantity"], c["stat"]): c for c in data["changes"]}
    median = change[("step", "median")]
    assert median["relative_change"] == pytest.approx(statistics.median(after) / statistics.median(before) - 1)
    assert median["verdict"] == "better"  # -4.7 %: outside the 2 % band
    assert change[("step", "max")]["run_s"] == max(after)
    assert data["baseline"]["outliers"][0]["rank"] == 5 and data["outliers"] == []


def test_a_tail_gate_trips_with_exit_3_and_passes_otherwise():
    code, out = run("ranks", str(AFTER), "--baseline", str(BEFORE), "--fail-on", "p90>+1%")
    assert code == 0 and "gate p90>+1%: step p90 122.1 ms -> 116.6 ms (-4.5%): passed" in out
    code, out = run("ranks", str(BEFORE), "--baseline", str(AFTER), "--fail-on", "p90>+1%")
    assert code == 3 and "(+4.7%): TRIPPED" in out
    code, out = run("ranks", str(BEFORE), "--fail-on", "p90>+1%")
    assert code == 2 and "add --baseline" in out
    code, out = run("ranks", str(BEFORE), "--baseline", str(AFTER), "--fail-on", "mean>1%")
    assert code == 2 and "STAT one of median, p90, max" in out


@pytest.mark.parametrize("limit,code", [("-5%", 3), ("-4%", 0), ("5e0%", 0), ("-.5e1%", 3)])
def test_a_tail_gates_number_is_read_as_diffs_gates_read_it(limit, code):
    """A sign (its direction) and an exponent, as ``diff --fail-on`` takes them: the step's p90 went
    122.1 -> 116.6 ms (-4.5 %), more than -5 % above the baseline (trips), not more than -4 %."""
    assert run("ranks", str(AFTER), "--baseline", str(BEFORE), "--fail-on", f"p90>{limit}")[0] == code


@pytest.mark.parametrize("limit", ["10001%", "1e400%", "inf%", "nan%", "9" * 400 + "%"])
def test_a_tail_gate_beyond_the_gates_range_is_refused_naming_it(limit):
    """As ``diff --fail-on``: a limit beyond 10,000 % (a gate that could never trip) is refused."""
    code, out = run("ranks", str(AFTER), "--baseline", str(BEFORE), "--fail-on", f"p90>{limit}")
    assert code == 2 and "expected a number from -10000% to 10000%" in out, out


# --- diff points here --------------------------------------------------------------------------

def test_diff_of_per_rank_files_says_they_are_ranks():
    code, out = run("diff", str(BEFORE / "profile_rank_0.json"), str(BEFORE / "profile_rank_5.json"))
    assert code == 2
    assert "2 ranks of a distributed step (rank 0, rank 5; told apart by file name)" in out
    assert "'neuroncmp ranks FILES'" in out


def test_diff_of_one_rank_across_two_runs_is_left_to_diff(tmp_path):
    paths = copies(tmp_path, ["a/profile_rank_0.json", "b/x_b64.json"])
    code, out = run("diff", *map(str, paths), "--summary")
    assert code == 0, out


# --- generated ranks with known truth ----------------------------------------------------------

sys.path.insert(0, str(ROOT / "scripts"))


def test_generated_ranks_load_without_anomalies():
    for path in sorted(BEFORE.glob("*.json")) + sorted(AFTER.glob("*.json")):
        (profile,) = neuroncmp.load(path)
        assert profile.anomalies == [], path


def test_planted_stragglers_are_found_with_their_cause_and_clean_ranks_stay_quiet():
    """300 generated steps of 4 to 32 ranks; two in three carry one straggler of 5-10 % of the step
    with a random cause. Acceptance: at least 95 % found with the right cause, at most 1 % of the
    clean ranks flagged."""
    from neuroncmp.analysis.rank_synthetic import CAUSES, Plant, rank_set
    from neuroncmp.analysis.ranks import analyse
    from neuroncmp.comparison.bands import Bands
    from neuroncmp.ingest.formats.summary_json import profile_from_mapping

    ((key, block),) = json.loads((RUN / "b32.json").read_text()).items()
    base = {k: v for k, v in block.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    planted = right = clean = false = 0
    for seed in range(300):
        rng = random.Random(seed)
        n = rng.choice([4, 8, 16, 32])
        plants = [Plant(rng.randrange(n), rng.choice(CAUSES), rng.uniform(0.05, 0.10))] if seed % 3 else []
        profiles = [profile_from_mapping(dict(values), f"p_rank_{r}.json", key, f"p_rank_{r}")
                    for r, values in enumerate(rank_set(rng, base, n, plants))]
        flagged = {o.row.id.rank: o.cause for o in
                   analyse(identify(profiles), profiles, Bands().for_kind("time"), "file name").outliers}
        for rank in range(n):
            if plants and plants[0].rank == rank:
                planted += 1
                right += flagged.get(rank) == plants[0].cause
            else:
                clean += 1
                false += rank in flagged
    assert planted == 200 and right / planted >= 0.95
    assert false / clean <= 0.01, (false, clean)


# --- everywhere the rest is --------------------------------------------------------------------

def test_html_and_the_python_api_show_the_same_straggler():
    code, out = run("ranks", str(BEFORE), "--format", "html", stdout=True)
    assert code == 0 and "<h1>Ranks</h1>" in out and "rank 5 is late" in out
    result = neuroncmp.ranks(BEFORE)
    assert [(o.row.id.rank, o.cause) for o in result.outliers] == [(5, "vector engine")]
    steps = {r: b["total_time"] for r, b in per_rank(BEFORE).items()}
    assert {row["rank"]: row["step_s"] for row in result.records()} == steps
    compared = neuroncmp.ranks(AFTER, baseline=[BEFORE], fail_on=["p90>+1%"])
    assert compared.report.runs is not None and not compared.report.tripped
    with pytest.raises(UsageError, match="add --baseline"):
        neuroncmp.ranks(AFTER, fail_on=["p90>+1%"])


def test_stored_ranks_keep_the_rank_as_a_tag(tmp_path):
    store = tmp_path / "store"
    code, out = run("store", "add", str(BEFORE), "--store", str(store), "--tag", "model=bert")
    assert code == 0, out
    code, out = run("store", "ls", "--store", str(store))
    assert code == 0 and all(f"model=bert rank={r}" in out for r in range(8))
    code, out = run("history", "total_time", "--store", str(store), "--where", "rank=5")
    assert code == 0 and "model=bert rank=5: 1 runs" in out


def test_diff_warns_when_one_side_pools_captures_of_different_cores(tmp_path):
    data = json.loads((RUN / "b32.json").read_text())
    (tmp_path / "r1").mkdir()
    (tmp_path / "r1" / "b32.json").write_text(json.dumps(data))
    next(iter(data.values())).update(nc_idx=1, total_time=0.115)
    (tmp_path / "r2").mkdir()
    (tmp_path / "r2" / "b32.json").write_text(json.dumps(data))
    code, out = run("diff", str(RUN / "b16.json"), str(tmp_path / "r1" / "b32.json"), str(tmp_path / "r2" / "b32.json"),
                    "--summary")
    assert code == 0, out
    assert "b32 pools 2 captures from different ranks or cores (core nd0/nc0, core nd0/nc1)" in " ".join(out.split())


def test_explorer_folders_give_each_collective_operations_spread(tmp_path):
    """Four ranks as Explorer folders (``profile_rank_<r>@latest``): generated summaries and a CcOp table
    of four AllReduce rows (the rank's collective time less 1 ms, in equal parts) and one 1 ms AllGather."""
    pytest.importorskip("pyarrow")
    import make_explorer_fixtures as fixtures

    from neuroncmp.analysis.rank_synthetic import rank_set

    summary = fixtures.b32_summary()
    numbers = {k: v for k, v in summary.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    reduce = {}
    for rank, values in enumerate(rank_set(random.Random(5), numbers, 4)):
        folder = fixtures.profile_folder(tmp_path / f"profile_rank_{rank}@latest", "7.4.0",
                                         [{**summary, **values, "neuroncore_idx": 0}], fixtures.schema_fields())
        reduce[rank] = values["cc_op_time"] - 1e-3
        rows = [{"operation": "AllReduce", "duration_ns": round(reduce[rank] / 4 * 1e9)} for _ in range(4)]
        fixtures._table(folder, "CcOp", [*rows, {"operation": "AllGather", "duration_ns": 1_000_000}])
    code, out = run("ranks", *sorted(str(p) for p in tmp_path.iterdir()), "--format", "json", stdout=True)
    assert code == 0, out
    operations = json.loads(out)["collective_operations"]
    assert list(operations) == ["AllReduce", "AllGather"]  # the one that varies first
    assert operations["AllReduce"]["min_s"] == pytest.approx(min(reduce.values()), abs=4e-9)
    assert operations["AllReduce"]["max_s"] == pytest.approx(max(reduce.values()), abs=4e-9)
    assert operations["AllGather"]["max_s"] == operations["AllGather"]["min_s"] == pytest.approx(1e-3)


def test_a_sweep_of_per_rank_files_says_they_are_ranks(tmp_path):
    paths = copies(tmp_path, ["b8_rank_0.json", "b8_rank_1.json", "b16_rank_0.json", "b16_rank_1.json"])
    code, out = run("sweep", *map(str, paths))
    assert code == 2 and "4 ranks of a distributed step" in out and "give one rank per batch size" in out
