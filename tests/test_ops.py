"""Operation tables and ``neuroncmp ops`` (issue 24, items 1-3, 5-6).

Real data: the view JSONs (inf2 matmul kernels, trn2 attention kernels; tests/data/third_party,
SOURCES.md, and shared/samples when beside the repository): the expected values are computed
here with a few lines of plain ``json`` from the file, never by the code under test. Generated
data: the Explorer op-table fixtures of ``scripts/make_explorer_fixtures.py`` (no public Parquet
capture exists), whose truth follows from the generator's parameters by arithmetic done here.
"""

from __future__ import annotations

import csv
import importlib.util
import io
import json
import re
import shutil
import warnings
from collections import Counter, defaultdict
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import ROOT, RUN

import neuroncmp
from neuroncmp.cli import cli
from neuroncmp.commands.ops import OpsOptions, ops_report
from neuroncmp.errors import ParseError, UsageError
from neuroncmp.ingest.ops import read_ops
from neuroncmp.ingest.ops.union import union_length

THIRD = ROOT / "tests" / "data" / "third_party" / "view-json"
SHARED = Path("/work/shared/samples/neuron-profile/view-json")
VIEWS = sorted(THIRD.glob("*.json")) + sorted(SHARED.glob("*.json"))
INF2_136 = THIRD / "inf2.xlarge_profiler-2.27_matmul_128x128x136.json"
INF2_256 = THIRD / "inf2.xlarge_profiler-2.27_matmul_128x128x256.json"
INF2_1024 = THIRD / "inf2.xlarge_profiler-2.27_matmul_128x128x1024.json"
TRN2 = THIRD / "trn2.3xlarge_profiler-2.28_attention_baseline_bf16_s512.json"
ENGINES = {"Tensor": "tensor", "Vector": "vector", "Scalar": "scalar", "Sync": "sync", "GpSimd": "gpsimd"}

pytest.importorskip("numpy")
pytest.importorskip("pyarrow")
_SPEC = importlib.util.spec_from_file_location("make_explorer_fixtures", ROOT / "scripts" / "make_explorer_fixtures.py")
assert _SPEC is not None and _SPEC.loader is not None
generator = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(generator)


def _ops(paths, options):
    return ops_report(paths, options).comparison


def _doc(path: Path) -> dict:
    return json.loads(path.read_text())


def _op_time_ns(params: tuple) -> int:
    """An op of the generator: ``count`` instructions of ``ns`` each, each starting after 80 % of
    the one before, so they cover 0.8 * ns * (count - 1) + ns."""
    _, _, count, ns, _, _ = params
    return round(0.8 * ns * (count - 1)) + ns


# --- intervals ---------------------------------------------------------------------------------

def test_union_counts_overlap_once():
    assert union_length([(0, 10), (5, 12), (20, 25), (25, 26), (30, 31)]) == 12 + 6 + 1
    assert union_length([(3, 9), (0, 100)]) == 100
    assert union_length([]) == 0


# --- view JSON: opcode level against the file and the profiler's own summary ------------------

@pytest.mark.parametrize("path", VIEWS, ids=lambda p: p.stem)
def test_opcode_counts_and_durations_match_the_instruction_rows(path):
    expected = defaultdict(lambda: [0, 0])
    for row in _doc(path)["instruction"]:
        cell = expected[f"{row['subgroup']} {row['opcode']}"]
        cell[0] += 1
        cell[1] += row["duration"]
    table = read_ops(path, "opcode")
    got = {op.key: [op.instructions, round(op.instruction_time * 1e9)] for op in table.ops}
    assert got == {k: v for k, v in expected.items()}
    assert all(op.wait == op.key.endswith(" EVENT_SEMAPHORE") for op in table.ops)


@pytest.mark.parametrize("path", VIEWS, ids=lambda p: p.stem)
def test_work_per_engine_adds_up_to_the_summary_instruction_time(path):
    """The summary's <engine>_engine_instruction_time is the sum of the engine's instruction
    durations without its EVENT_SEMAPHORE waits; the per-instruction durations are whole
    nanoseconds (cut, not rounded), the summary's are not: the summary is 0.2-2.8 % (10-84 ns)
    more on every sample, less than 1 ns per work instruction (the table in docs/commands/ops.md)."""
    summary = _doc(path)["summary"][0]
    rows = _doc(path)["instruction"]
    work: dict[str, float] = defaultdict(float)
    for op in read_ops(path, "opcode").ops:
        if not op.wait:
            work[op.key.split(" ")[0]] += op.instruction_time
    for engine, name in ENGINES.items():
        reported = summary[f"{name}_engine_instruction_time"]
        working = sum(1 for r in rows if r["subgroup"] == engine and r["opcode"] != "EVENT_SEMAPHORE")
        assert summary[f"{name}_engine_instruction_count"] == sum(1 for r in rows if r["subgroup"] == engine)
        assert 0 <= reported - work[engine] < 1e-9 * working, engine


def test_semaphore_waits_are_most_of_the_idle_engines_durations():
    """On the inf2 kernels the vector and sync engines' EVENT_SEMAPHORE instructions span the
    kernel: 99 % of their durations (plain json below), kept apart from work."""
    doc = _doc(INF2_136)
    for engine in ("Vector", "Sync"):
        rows = [r for r in doc["instruction"] if r["subgroup"] == engine]
        waits = sum(r["duration"] for r in rows if r["opcode"] == "EVENT_SEMAPHORE")
        assert waits / sum(r["duration"] for r in rows) > 0.99
        table = read_ops(INF2_136, "opcode").by_key()
        assert round(table[f"{engine} EVENT_SEMAPHORE"].instruction_time * 1e9) == waits
        assert table[f"{engine} EVENT_SEMAPHORE"].wait


def test_matmul_by_hand_on_the_136_kernel():
    """Read by hand from the file: two MATMULs on the tensor engine, durations summed."""
    rows = [r for r in _doc(INF2_136)["instruction"] if r["opcode"] == "MATMUL"]
    matmul = read_ops(INF2_136, "opcode").by_key()["Tensor MATMUL"]
    assert matmul.instructions == len(rows) == 2
    spans = sorted((r["timestamp"], r["timestamp"] + r["duration"]) for r in rows)
    covered = spans[1][1] - spans[0][0] if spans[1][0] <= spans[0][1] else sum(b - a for a, b in spans)
    assert round(matmul.time * 1e9) == covered


def test_layers_nest_and_a_parent_is_never_added_to_its_children():
    table = read_ops(TRN2, "layer").by_key()
    doc = _doc(TRN2)
    child_rows = [r for r in doc["instruction"] if r["layer"] == "Unknown" and r["opcode"] != "EVENT_SEMAPHORE"
                  and r.get("fully_qualified_subgraph") == "/sg00"]
    assert table["/sg00/Unknown"].parent == "/sg00"
    assert table["/sg00/Unknown"].instructions == len(child_rows)
    assert table["/sg00"].instructions > table["/sg00/Unknown"].instructions     # the parent holds the child's rows
    assert table["/sg00"].time >= table["/sg00/Unknown"].time
    flops = {r["name"]: r["tensor_engine_flop_count"] for r in doc["layer_summary"]}
    assert table["/sg00"].flops == flops["/sg00"]
    comparison = _ops([TRN2, THIRD / "trn2.3xlarge_profiler-2.28_attention_fused_bf16_s512.json"],
                        OpsOptions(level="layer"))
    counted = {c.key for c in comparison.variants[0].changes if c.counted}
    assert "/sg00" not in counted and "/sg00/Unknown" in counted


def test_view_json_has_no_source_lines_and_says_so():
    table = read_ops(INF2_136, "kernel")
    assert table.ops == () and "nki_source_location" in table.notes[0]


def test_two_view_jsons_of_different_kernels_open_with_the_graph_change():
    a, b = _doc(INF2_136), _doc(INF2_1024)
    counts = [defaultdict(int), defaultdict(int)]
    for number, doc in enumerate((a, b)):
        for row in doc["instruction"]:
            counts[number][row["subgroup"]] += 1
    result = CliRunner().invoke(cli, ["ops", str(INF2_136), str(INF2_1024), "--no-color", "--width", "120"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    first = " ".join(line.strip() for line in lines[:lines.index("")])  # the opening paragraph, unwrapped
    assert first.startswith("inf2-xlarge-profiler-2-27-matmul-128x128x1024: the compiler changed the graph")
    assert f"NEFF hash {a['neff_header'][0]['hash'][:8]} -> {b['neff_header'][0]['hash'][:8]}" in first
    assert f"Tensor {counts[0]['Tensor']} -> {counts[1]['Tensor']}" in first


def test_the_graph_change_says_what_changed_and_never_the_same_alone():
    """The two inf2 kernels run the same engine x opcodes on another graph: the line names the NEFF
    hashes and the engines whose instruction counts differ (counted here from the files), and at the
    kernel level, where the view JSON has no operator at all, claims nothing about operators (it said
    "the compiler changed the graph: the same NKI source lines")."""
    a, b = _doc(INF2_256), _doc(INF2_1024)
    counts = [Counter(row["subgroup"] for row in doc["instruction"]) for doc in (a, b)]
    moved = ", ".join(f"{e} {counts[0][e]} -> {counts[1][e]}" for e in sorted(counts[0])
                      if counts[0][e] != counts[1][e])
    assert moved == "Scalar 25 -> 26, Tensor 30 -> 31"
    hashes = f"{a['neff_header'][0]['hash'][:8]} -> {b['neff_header'][0]['hash'][:8]}"
    why = f"NEFF hash {hashes}; instructions per engine {moved}"
    (kernel,) = _ops([INF2_256, INF2_1024], OpsOptions(level="kernel")).variants
    assert kernel.graph_change == f"the compiler changed the graph: {why}"
    (opcode,) = _ops([INF2_256, INF2_1024], OpsOptions()).variants
    assert opcode.graph_change == f"the compiler changed the graph: {why}; 37 engine x opcodes on both sides"


def test_diff_says_the_graph_changed_first():
    result = CliRunner().invoke(cli, ["diff", str(INF2_136), str(INF2_1024), "--no-color", "--summary"])
    warnings = [line for line in result.output.splitlines() if line.startswith("warning:")]
    assert warnings[0].startswith("warning: the compiler changed the graph:")


def test_diff_of_one_graph_says_nothing_about_it():
    result = CliRunner().invoke(cli, ["diff", str(RUN / "baseline.json"), str(RUN / "b32.json"), "--summary"])
    assert "changed the graph" not in result.output


# --- ranked by what moved: the step shrinks while operators grow ----------------------------------

# By hand from the two files' instruction rows ([timestamp, timestamp + duration) in ns, merged where
# they overlap), 128x128x256 -> 128x128x1024:
#   Scalar ACTIVATE 256: 248 + 339 = 587; 1024: 248 + [1861928, 1862831) = 248 + 903 = 1151  (+564, +96 %)
#   Scalar DRAIN    256: 7+7+7+7+365+12+7+7 = 419; 1024: 7+7+7+7+719+12+7+7 = 773        (+354, +84 %)
#   Tensor MATMUL   256: 206 + 237 = 443; 1024: 205 + [1861540, 1862100) = 205 + 560 = 765 (+322, +73 %)
#   Tensor DRAIN    256: 6+6+6+6+279+10+6+6 = 325; 1024: 6+6+6+6+584+10+6+6 = 630        (+305, +94 %)
# Every other work operator moves by 5 ns or less (inside the 50 ns floor), and the step (the summary's
# total_time) shrinks: 1.875964381 -> 1.867629615 ms, -8.334766 us.
MOVERS = [("Scalar ACTIVATE", 587, 1151), ("Scalar DRAIN", 419, 773), ("Tensor MATMUL", 443, 765),
          ("Tensor DRAIN", 325, 630)]


def test_growing_operators_rank_first_when_the_step_shrinks():
    (variant,) = _ops([INF2_256, INF2_1024], OpsOptions()).variants
    assert round(variant.step_change * 1e9) == round((1.867629615 - 1.875964381) * 1e6) == -8335
    first = [(c.key, round(c.baseline * 1e9), round(c.variant * 1e9)) for c in variant.changes[:4]]
    assert first == MOVERS
    assert [c.verdict for c in variant.changes[:4]] == ["worse"] * 4
    assert all(abs(round(c.change * 1e9)) <= 5 and c.verdict == "unchanged" for c in variant.changes[4:])


def test_the_movers_lead_the_default_table():
    """The terminal's default top 20 opens with the four movers, each with its own change and verdict."""
    result = CliRunner().invoke(cli, ["ops", str(INF2_256), str(INF2_1024), "--no-color", "--width", "140"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("op "))
    for line, (key, before, after) in zip(lines[head + 1:head + 5], MOVERS):
        assert line.startswith(key) and f"+{after - before:.1f} ns" in line and line.endswith("worse"), line
        assert f"+{(after / before - 1) * 100:.{0 if after / before >= 2 else 1}f}%" in line


def test_json_and_csv_hold_every_operator():
    """Every work operator of the two files (engine x opcode, EVENT_SEMAPHORE apart), whatever --top;
    the rest line is the terminal's alone."""
    keys = set()
    for path in (INF2_256, INF2_1024):
        keys |= {f"{r['subgroup']} {r['opcode']}" for r in _doc(path)["instruction"]
                 if r["opcode"] != "EVENT_SEMAPHORE"}
    data = json.loads(CliRunner().invoke(cli, ["ops", str(INF2_256), str(INF2_1024), "--format", "json",
                                               "--top", "3"]).stdout)
    assert data["schema"] == "neuroncmp.ops/3"
    ops = [r for r in data["rows"] if r["kind"] == "op"]
    assert {r["op"] for r in ops} == keys and len(ops) == len(keys) == 37
    assert [(r["op"], round(r["variant_s"] * 1e9)) for r in ops[:4]] == [(k, a) for k, _, a in MOVERS]
    assert round(ops[2]["relative_change"], 4) == round(765 / 443 - 1, 4)
    assert {r["kind"] for r in data["rows"]} == {"op", "unexplained", "wait"}
    rows = list(csv.DictReader(io.StringIO(CliRunner().invoke(
        cli, ["ops", str(INF2_256), str(INF2_1024), "--format", "csv", "--top", "3"]).stdout)))
    assert {r["op"] for r in rows if r["kind"] == "op"} == keys and {r["schema"] for r in rows} == {"neuroncmp.ops/3"}


def _work_keys(*paths: Path) -> set[str]:
    return {f"{r['subgroup']} {r['opcode']}" for path in paths for r in _doc(path)["instruction"]
            if r["opcode"] != "EVENT_SEMAPHORE"}


def test_markdown_shows_every_operator_as_json_does():
    """Markdown kept the terminal's top 20 and "(other ops): 17" where JSON and CSV hold all 37 (the
    work operators of the two files, counted from their rows). A document shows every one; folded only
    when --top is given, and then the fold says how many and names the largest change among them."""
    keys = _work_keys(INF2_256, INF2_1024)
    assert len(keys) == 37
    every = CliRunner().invoke(cli, ["ops", str(INF2_256), str(INF2_1024), "--format", "md"]).stdout
    table = every.split("Semaphore waits")[0]
    assert {line.split(" | ")[0][2:] for line in table.splitlines() if line.startswith("| ")} - {
        "op", "(unexplained rest) "[:-1]} == keys
    assert "(other ops)" not in every
    # --top 3: the 34 others folded; the largest change among them is Tensor DRAIN's, 325 -> 630 ns (MOVERS)
    three = CliRunner().invoke(cli, ["ops", str(INF2_256), str(INF2_1024), "--format", "md", "--top", "3"]).stdout
    assert "| (other ops): 34 |" in three
    assert ("folded into (other ops): the 34 operators past the first 3; the largest change among them: "
            "Tensor DRAIN +305.0 ns (worse); --all shows every one") in three
    terminal = CliRunner().invoke(cli, ["ops", str(INF2_256), str(INF2_1024), "--no-color", "--width", "200"]).stdout
    # the terminal's 20: the 17 folded are the ones that did not move at all (the ranking puts them last)
    assert "folded into (other ops): the 17 operators past the first 20; none of them changed; --all shows every " \
           "one" in terminal
    everything = CliRunner().invoke(cli, ["ops", str(INF2_256), str(INF2_1024), "--no-color", "--all"]).stdout
    assert "(other ops)" not in everything and all(f"\n{key[:20]}" in everything for key in keys)


def _wait_ns(path: Path, engine: str) -> int:
    """The union of an engine's EVENT_SEMAPHORE intervals, in ns, from the rows."""
    spans = sorted((r["timestamp"], r["timestamp"] + r["duration"]) for r in _doc(path)["instruction"]
                   if r["subgroup"] == engine and r["opcode"] == "EVENT_SEMAPHORE")
    covered, reach = 0, None
    for start, end in spans:
        reach = start if reach is None else max(reach, start)
        covered += max(0, end - reach)
        reach = max(reach, end)
    return covered


def test_a_wait_that_grew_is_more_waiting_never_worse():
    """The tensor engine's semaphore waits grew from 256 to 1024 (+21 %) and were scored "worse": waiting
    is not work (an engine waits longer when another one's work grows). Beyond the band it is "more
    waiting", below it "less waiting", never scored."""
    before, after = _wait_ns(INF2_256, "Tensor"), _wait_ns(INF2_1024, "Tensor")
    assert after - before > max(50, 0.02 * before)  # beyond the time band: 2 % or 50 ns
    data = json.loads(CliRunner().invoke(cli, ["ops", str(INF2_256), str(INF2_1024), "--format", "json"]).stdout)
    assert data["schema"] == "neuroncmp.ops/3"
    waits = {r["op"]: r for r in data["rows"] if r["kind"] == "wait"}
    tensor = waits["Tensor EVENT_SEMAPHORE"]
    assert round(tensor["change_s"] * 1e9) == after - before and tensor["verdict"] == "more waiting"
    assert not {r["verdict"] for r in waits.values()} & {"worse", "better"}
    assert all(r["counted"] is False for r in waits.values())
    text = CliRunner().invoke(cli, ["ops", str(INF2_256), str(INF2_1024), "--no-color", "--width", "200"]).stdout
    (line,) = [line for line in text.splitlines() if line.startswith("Tensor EVENT_SEMAPHORE ")]
    assert line.endswith("more waiting")
    # the other way round the same wait shrank: less waiting
    back = json.loads(CliRunner().invoke(cli, ["ops", str(INF2_1024), str(INF2_256), "--format", "json"]).stdout)
    assert {r["op"]: r["verdict"] for r in back["rows"] if r["kind"] == "wait"}["Tensor EVENT_SEMAPHORE"] == \
        "less waiting"


@pytest.mark.parametrize("fmt", ["term", "md", "html"])
def test_a_level_with_no_operator_prints_no_empty_table(fmt):
    """The view JSON ties no instruction to an NKI source line: --level kernel printed a table heading
    and no operator under it. It says there is none, and shows no table."""
    result = CliRunner().invoke(cli, ["ops", str(INF2_256), str(INF2_1024), "--level", "kernel", "--format", fmt,
                                      "--no-color"] if fmt == "term" else
                                ["ops", str(INF2_256), str(INF2_1024), "--level", "kernel", "--format", fmt])
    assert result.exit_code == 0, result.output
    assert "no NKI source lines on either side: no table" in result.stdout
    assert "(unexplained rest)" not in result.stdout and "<table>" not in result.stdout
    assert not [line for line in result.stdout.splitlines() if line.startswith(("op ", "| op |"))]


# --- bad op tables: refused in one line naming the file, the place and what was found --------------

def _view_with(tmp_path: Path, name: str, where: tuple, token: str) -> Path:
    """INF2_1024 with one value replaced by a raw JSON ``token`` (NaN, a string, a negative)."""
    doc = _doc(INF2_1024)
    node = doc
    for key in where[:-1]:
        node = node[key]
    node[where[-1]] = "@@"
    path = tmp_path / name
    path.write_text(json.dumps(doc).replace('"@@"', token))
    return path


@pytest.mark.parametrize("where,token,place,found", [
    (("instruction", 10, "duration"), "NaN", "instruction[10], duration", "float nan"),
    (("instruction", 10, "timestamp"), "-5", "instruction[10], timestamp", "int -5"),
    (("instruction", 10, "duration"), "1e300", "instruction[10], duration", "float 1e+300"),
    (("instruction", 10, "hbm_read_bytes"), '"12"', "instruction[10], hbm_read_bytes", "str '12'"),
    (("layer_summary", 0, "tensor_engine_flop_count"), '"1e9"', "layer_summary[0], tensor_engine_flop_count",
     "str '1e9'"),
])
def test_a_bad_view_json_value_is_refused_naming_its_place(tmp_path, where, token, place, found):
    """A NaN duration passed the old ``>= 0`` test and was scored "better"; a string in a bytes or FLOP
    field was a TypeError naming no file."""
    bad = _view_with(tmp_path, "b.json", where, token)
    result = CliRunner().invoke(cli, ["ops", str(INF2_256), str(bad), "--level", "layer"])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.output.strip() == f"Error: '{bad}': {place}: expected " + (
        "a number of nanoseconds from 0 to 2^62" if place.endswith(("duration", "timestamp"))
        else "a number >= 0 (or null)") + f", found {found}"


def _explorer_with(explorer, tmp_path: Path, table: str, column: str, values) -> Path:
    """The generated ops-slow folder with one column of one table replaced."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = tmp_path / "ops-slow@7.4.0"
    shutil.copytree(explorer["ops-slow"], folder)
    if table != "Instruction":
        (folder / "Instruction.parquet").unlink()  # the summaries are read only without it
    data = pq.read_table(folder / f"{table}.parquet")
    replaced = pa.array(values(data.column(column).to_pylist()))
    data = data.set_column(data.schema.get_field_index(column), column, replaced)
    pq.write_table(data, folder / f"{table}.parquet")
    return folder


NAN = float("nan")


@pytest.mark.parametrize("table,column,values,level,row,found", [
    # end_ts before start_ts: every op read as 0 ns, scored "better"
    ("Instruction", "end_ts", lambda v: [end - 2000 for end in v], "hlo", 0, "end_ts 9300 before start_ts 10000"),
    # a null start_ts read as 0: dot.1 +188 % "worse" (truth: +30 %)
    ("Instruction", "start_ts", lambda v: v[:3] + [None] + v[4:], "hlo", 3, "null"),
    # a NaN start_ts: numpy's RuntimeWarning, then a 2.3-billion-second op
    ("Instruction", "start_ts", lambda v: [float(x) for x in v[:3]] + [NAN] + [float(x) for x in v[4:]], "hlo", 3,
     "nan"),
    ("Instruction", "start_ts", lambda v: [str(x) for x in v], "hlo", 0, "string '10000'"),
    ("Instruction", "raw_flops", lambda v: [str(x) for x in v], "opcode", 0, "string '16777216'"),
    ("Instruction", "hbm_read_bytes", lambda v: [-1.0] + [float(x) for x in v[1:]], "opcode", 0, "-1.0"),
    ("OpcodeSummary", "active_time_ns", lambda v: [NAN] + [float(x) for x in v[1:]], "opcode", 0, "float nan"),
    ("OpcodeSummary", "instruction_count", lambda v: [NAN] + [float(x) for x in v[1:]], "opcode", 0, "float nan"),
    ("HloInstruction", "time_intervals", lambda v: ["[[20, 10]]"] + v[1:], "hlo", 0, "[20, 10]"),
])
def test_a_bad_explorer_table_is_refused_naming_file_table_row_and_column(explorer, tmp_path, table, column,
                                                                           values, level, row, found):
    folder = _explorer_with(explorer, tmp_path, table, column, values)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's RuntimeWarning (a NaN cast to int64) must not reach anyone
        result = CliRunner().invoke(cli, ["ops", str(explorer["ops-base"]), str(folder), "--level", level])
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output and "Warning" not in result.output
    (line,) = result.output.strip().splitlines()
    assert line.startswith(f"Error: '{folder / (table + '.parquet')}': table {table}, row {row}, {column}: expected ")
    assert line.endswith(f", found {found}")


@pytest.mark.parametrize("table,column,values,level,row,expected,found", [
    # a float opcode column became operators "tensor 3.0", "scalar 2.0" (and "tensor nan"), all "added"
    ("Instruction", "opcode", lambda v: [3.0] * len(v), "opcode", 0, "an opcode (text)", "double 3.0"),
    ("Instruction", "opcode", lambda v: [3] * len(v), "opcode", 0, "an opcode (text)", "int64 3"),
    # a null opcode or engine made "tensor (none)", "(none) MATMUL": an instruction always has both
    ("Instruction", "opcode", lambda v: v[:3] + [None] + v[4:], "opcode", 3, "an opcode (text)", "null"),
    ("Instruction", "engine", lambda v: v[:5] + [""] + v[6:], "opcode", 5, "an engine (text)", "empty text"),
    ("Instruction", "hlo_name", lambda v: [NAN] * len(v), "hlo", 0, "an HLO op name (text, or null for none)",
     "double nan"),
    ("OpcodeSummary", "opcode", lambda v: [3.0] + [float(i) for i in range(1, len(v))], "opcode", 0,
     "an opcode (text)", "float 3.0"),
    ("OpcodeSummary", "engine", lambda v: v[:1] + [None] + v[2:], "opcode", 1, "an engine (text)", "null"),
    # NaN HLO names became an operator called "nan"; 0.0 (falsy) one called "(none)"
    ("HloInstruction", "hlo_name", lambda v: [NAN] + [float(i) for i in range(1, len(v))], "hlo", 0,
     "an HLO op name (text, or null for none)", "float nan"),
])
def test_a_name_that_is_not_text_is_refused_not_made_up(explorer, tmp_path, table, column, values, level, row,
                                                        expected, found):
    folder = _explorer_with(explorer, tmp_path, table, column, values)
    result = CliRunner().invoke(cli, ["ops", str(explorer["ops-base"]), str(folder), "--level", level])
    assert result.exit_code == 1, result.output
    assert result.output.strip() == (f"Error: '{folder / (table + '.parquet')}': table {table}, row {row}, "
                                     f"{column}: expected {expected}, found {found}")


def test_a_null_hlo_name_is_an_instruction_of_no_op(explorer, tmp_path):
    """Null where an instruction may belong to no HLO op (as the sync engine's wait does, with ""):
    "(none)", the name of the instructions no op claims: dot.1's rows nameless in the variant, dot.1 is
    removed and (none) added."""
    folder = _explorer_with(explorer, tmp_path, "HloInstruction", "hlo_name",
                            lambda v: [None if name == "dot.1" else name for name in v])
    (variant,) = _ops([explorer["ops-base"], folder], OpsOptions(level="hlo")).variants
    by_key = {c.key: c for c in variant.changes}
    assert by_key["dot.1"].verdict == "removed" and by_key["(none)"].verdict == "added"


@pytest.mark.parametrize("field,token,found", [("opcode", "null", "null"), ("subgroup", "3", "int 3"),
                                               ("opcode", '""', "empty text")])
def test_a_view_json_name_that_is_not_text_is_refused(tmp_path, field, token, found):
    """A null opcode or a numeric engine (subgroup) made operators "Tensor None", "3 MATMUL"."""
    bad = _view_with(tmp_path, "b.json", ("instruction", 10, field), token)
    result = CliRunner().invoke(cli, ["ops", str(INF2_256), str(bad)])
    what = "an opcode" if field == "opcode" else "an engine"
    assert result.exit_code == 1, result.output
    assert result.output.strip() == f"Error: '{bad}': instruction[10], {field}: expected {what} (text), found {found}"


def test_an_opcode_summary_row_given_twice_is_refused(explorer, tmp_path):
    """Two rows of one engine x opcode: their merged active times cannot be added, and keeping one
    dropped the other without a word."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = _explorer_with(explorer, tmp_path, "OpcodeSummary", "engine", lambda v: v)
    summary = pq.read_table(folder / "OpcodeSummary.parquet")
    pq.write_table(pa.concat_tables([summary, summary.slice(1, 1)]), folder / "OpcodeSummary.parquet")
    engine, opcode = summary.column("engine")[1].as_py(), summary.column("opcode")[1].as_py()
    with pytest.raises(ParseError, match=rf"table OpcodeSummary, row {summary.num_rows}, opcode: expected one row "
                                         rf"per engine x opcode, found {engine} {opcode} again \(first at row 1\)"):
        read_ops(folder, "opcode")


def test_a_suspect_op_is_never_scored_nor_summed(explorer, tmp_path):
    """An OpcodeSummary active_time_ns of 1e15 ns (longer than the step) was marked suspect but summed:
    "(unexplained rest) -1000000 s", explained_s 999999.99. Left out and named, the rest is what the
    other ops do not explain: of the truth (dot.1 = tensor MATMUL +9660, gelu.5 +3280, reduce.4 -2460,
    one after another: step +10480 ns) the counted ops explain 3280 - 2460 = 820 ns, the rest 9660."""
    folder = _explorer_with(explorer, tmp_path, "OpcodeSummary", "active_time_ns",  # row 0: tensor MATMUL
                            lambda v: [1e15] + [float(x) for x in v[1:]])
    result = CliRunner().invoke(cli, ["ops", str(explorer["ops-base"]), str(folder), "--format", "json"])
    assert result.exit_code == 0, result.output
    (variant,) = json.loads(result.stdout)["variants"]
    assert variant["left_out"] == ["tensor MATMUL"]
    assert round(variant["explained_s"] * 1e9) == 3280 - 2460
    assert round(variant["unexplained_s"] * 1e9) == 10480 - 820
    (row,) = [r for r in json.loads(result.stdout)["rows"] if r["op"] == "tensor MATMUL"]
    assert row["verdict"] == "suspect" and row["counted"] is False and row["share_of_change"] is None
    assert row["share_of_step"] is None  # 1e15 ns of a 76.2 us step printed "of step 1312335958005%"
    text = CliRunner().invoke(cli, ["ops", str(explorer["ops-base"]), str(folder), "--no-color", "--width", "200"])
    assert "(unexplained rest)                          +9.660 us" in text.output
    assert "left out of the contributions and the unexplained rest (suspect: longer than the step, never " \
           "scored): tensor MATMUL" in text.output


def test_a_null_flop_count_leaves_the_op_without_one(explorer, tmp_path):
    """Null raw_flops (no count recorded): the op has no FLOP count, not the sum of the others."""
    folder = _explorer_with(explorer, tmp_path, "Instruction", "raw_flops", lambda v: [None] + v[1:])
    by_key = read_ops(folder, "hlo").by_key()
    assert by_key["dot.1"].flops is None
    assert by_key["add.2"].flops == 0
    assert by_key["dot.1"].time == read_ops(explorer["ops-slow"], "hlo").by_key()["dot.1"].time


@pytest.mark.parametrize("token,code", [("NaN", "nan-value"), ("-0.001", "negative-value")])
def test_a_step_time_that_is_nan_or_negative_is_named_and_never_used(tmp_path, token, code):
    """It printed "step 1.868 ms -> NaN" and "+nan%" with no warning; diff names it: here too, and
    the shares that need it are not computed."""
    bad = _view_with(tmp_path, "b.json", ("summary", 0, "total_time"), token)
    result = CliRunner().invoke(cli, ["ops", str(INF2_256), str(bad), "--no-color", "--width", "140"])
    assert result.exit_code == 0, result.output
    assert f"[{code}]: step time not used" in result.output and "nan" not in result.output.lower().replace(
        "[nan-value]", "").replace("is nan in", "")
    (variant,) = _ops([INF2_256, bad], OpsOptions()).variants
    assert variant.step_variant is None and variant.share_of_change(variant.changes[0].change) is None
    assert [c.key for c in variant.changes[:4]] == [k for k, _, _ in MOVERS]  # the ops are scored as before
    data = json.loads(CliRunner().invoke(cli, ["ops", str(INF2_256), str(bad), "--format", "json"]).stdout)
    assert data["step_doubts"][0].startswith("b: total_time is ")


# --- inputs as diff takes them ------------------------------------------------------------------------

def test_files_sharing_a_label_are_told_apart_never_dropped(tmp_path):
    """``ops run1/b32.json run2/b32.json run2/b64.json`` kept the first b32 and dropped the second;
    with the two b32 files alone it said "give two or more profiles"."""
    for folder, name, source in (("run1", "b32", INF2_256), ("run2", "b32", INF2_1024),
                                 ("run2", "b64", THIRD / "inf2.xlarge_profiler-2.27_matmul_128x128x512.json")):
        (tmp_path / folder).mkdir(exist_ok=True)
        shutil.copy(source, tmp_path / folder / f"{name}.json")
    three = _ops([tmp_path / "run1" / "b32.json", tmp_path / "run2" / "b32.json", tmp_path / "run2" / "b64.json"],
                 OpsOptions(basis="step"))
    assert three.baseline.label == "run1/b32" and [v.side.label for v in three.variants] == ["run2/b32", "b64"]
    two = ops_report([tmp_path / "run1" / "b32.json", tmp_path / "run2" / "b32.json"], OpsOptions())
    (variant,) = two.comparison.variants
    assert variant.side.label == "run2/b32" and [c.key for c in variant.changes[:4]] == [k for k, _, _ in MOVERS]
    assert "2 inputs share the label b32: compared as run1/b32, run2/b32" in two.notes


def test_the_same_file_given_twice_is_said_to_be_one(tmp_path):
    """``ops a.json a.json`` said "give two or more profiles" though two were given: the message names the
    file given twice (or the other spelling of it) and what to give instead."""
    what = "ops compares a baseline with a different profile; give the baseline's file, then the variant's"
    twice = CliRunner().invoke(cli, ["ops", str(INF2_256), str(INF2_256)])
    assert twice.exit_code == 2 and twice.output.splitlines()[-1] == f"Error: '{INF2_256}' is given twice: {what}"
    (tmp_path / "sub").mkdir()
    other = tmp_path / "sub" / ".." / "sub" / ".." / "link.json"
    other.symlink_to(INF2_256)
    spelled = CliRunner().invoke(cli, ["ops", str(INF2_256), str(other)])
    assert spelled.output.splitlines()[-1] == f"Error: '{other}' is the same file as '{INF2_256}': {what}"
    with pytest.raises(UsageError, match=f"^'{re.escape(str(INF2_256))}' is given twice: "):
        neuroncmp.ops(neuroncmp.load(INF2_256), neuroncmp.load(INF2_256))
    for folder in ("run1", "run2"):  # copies: read once (diff's rule), said in the error
        (tmp_path / folder).mkdir()
        shutil.copy(INF2_256, tmp_path / folder / "b32.json")
    copies = CliRunner().invoke(cli, ["ops", str(tmp_path / "run1" / "b32.json"), str(tmp_path / "run2" / "b32.json")])
    assert copies.exit_code == 2 and copies.output.splitlines()[-1].endswith(
        f"(the inputs read: {tmp_path / 'run2' / 'b32.json'}: the same content as {tmp_path / 'run1' / 'b32.json'}; "
        "read once (one capture))")


@pytest.mark.parametrize("inputs", [
    lambda: [[str(INF2_256), str(INF2_1024)]],
    lambda: [(p for p in (INF2_256, INF2_1024))],
    lambda: [*neuroncmp.load(INF2_256), *neuroncmp.load(INF2_1024)],
    lambda: [neuroncmp.load(INF2_256), str(INF2_1024)],
])
def test_the_api_takes_what_compare_takes(inputs):
    """A list, a generator or Profile objects raised a pathlib TypeError naming no argument."""
    result = neuroncmp.ops(*inputs())
    assert [c.key for c in result.comparison.variants[0].changes[:4]] == [k for k, _, _ in MOVERS]


@pytest.mark.parametrize("bad", [None, 5, b"x.json", {"a": 1}])
def test_the_api_refuses_other_inputs_naming_the_argument(bad):
    with pytest.raises(UsageError, match=r"^inputs\[1\]=.*: expected a profile, a path \(str or Path\) or a list"):
        neuroncmp.ops(str(INF2_256), bad)


@pytest.mark.parametrize("inputs,place", [
    (lambda: [[str(INF2_256), None, str(INF2_1024)]], "inputs[0][1]=None"),
    (lambda: [str(INF2_256), [str(INF2_1024), [None]]], "inputs[1][1][0]=None"),
    (lambda: [[str(INF2_256), ""]], "inputs[0][1]=''"),
])
def test_a_bad_element_of_a_list_is_named_by_its_position(inputs, place):
    """``nc.ops([a, None, b])`` said ``inputs=None``, which the caller never wrote: the message names the
    element (its index in each list), for ``nc.compare`` alike."""
    for call in (neuroncmp.ops, neuroncmp.compare):
        with pytest.raises(UsageError) as raised:
            call(*inputs())
        assert str(raised.value).startswith(f"{place}: expected a ")


# --- Explorer Parquet with known truth ------------------------------------------------------

@pytest.fixture(scope="module")
def explorer(tmp_path_factory):
    return generator.write_ops(tmp_path_factory.mktemp("ops"))


def _truth() -> dict[str, float]:
    """Contributions in ns: dot.1 30 % slower, reduce.4 removed, gelu.5 added."""
    return {"dot.1": _op_time_ns(generator.OPS_SLOW["dot.1"]) - _op_time_ns(generator.OPS_BASE["dot.1"]),
            "gelu.5": _op_time_ns(generator.OPS_SLOW["gelu.5"]),
            "reduce.4": -_op_time_ns(generator.OPS_BASE["reduce.4"])}


def test_the_truth_is_what_the_docstring_says():
    truth = _truth()
    assert truth["dot.1"] == round(0.3 * (0.8 * 1000 * 39 + 1000)) == 9660
    assert truth == {"dot.1": 9660, "gelu.5": 3280, "reduce.4": -2460}


def test_explorer_ranks_the_slowed_op_first_with_its_contribution(explorer):
    comparison = _ops([explorer["ops-base"], explorer["ops-slow"]], OpsOptions(level="hlo"))
    (variant,) = comparison.variants
    truth = _truth()
    first = variant.changes[0]
    assert first.key == "dot.1" and first.verdict == "worse"
    assert round(first.change * 1e9) == truth["dot.1"]
    by_key = {c.key: c for c in variant.changes}
    assert by_key["gelu.5"].verdict == "added" and round(by_key["gelu.5"].change * 1e9) == truth["gelu.5"]
    assert by_key["reduce.4"].verdict == "removed" and round(by_key["reduce.4"].change * 1e9) == truth["reduce.4"]
    assert by_key["add.2"].verdict == "unchanged" and by_key["add.2"].change == 0
    step = sum(truth.values())  # the ops run one after another: the step grows by their changes
    assert round(variant.step_change * 1e9) == step
    assert round(variant.explained * 1e9) + round(variant.unexplained * 1e9) == step
    assert variant.unexplained == 0
    assert variant.graph_change == ("the compiler changed the graph: 1 HLO op only in ops-slow, 1 only in the "
                                    "baseline (NEFF hash 1f0e1f0e -> 7a7b7a7b; instructions per engine "
                                    "scalar 20 -> 30, vector 30 -> 20)")


def test_explorer_waits_are_apart_and_never_counted(explorer):
    comparison = _ops([explorer["ops-base"], explorer["ops-slow"]], OpsOptions(level="opcode"))
    (variant,) = comparison.variants
    assert [w.key for w in variant.waits] == ["sync EVENT_SEMAPHORE"]
    assert all(not c.baseline_op or not c.baseline_op.wait for c in variant.changes)
    matmul = next(c for c in variant.changes if c.key == "tensor MATMUL")
    assert variant.changes[0] is matmul and round(matmul.change * 1e9) == _truth()["dot.1"]


@pytest.mark.parametrize("level,key,base_ns", [
    ("opcode", "tensor MATMUL", 32200), ("layer", "decoder[0]/norm", 2460), ("kernel", "norm.py:3", 2460)])
def test_explorer_every_level(explorer, level, key, base_ns):
    table = read_ops(explorer["ops-base"], level).by_key()
    assert round(table[key].time * 1e9) == base_ns


def test_explorer_without_instruction_table_falls_back_to_the_summaries(explorer, tmp_path):
    folder = tmp_path / "ops-base@7.4.0"
    shutil.copytree(explorer["ops-base"], folder)
    (folder / "Instruction.parquet").unlink()
    opcode = read_ops(folder, "opcode").by_key()
    assert round(opcode["tensor MATMUL"].time * 1e9) == 32200
    assert round(opcode["tensor MATMUL"].instruction_time * 1e9) == 40 * 1000
    hlo = read_ops(folder, "hlo").by_key()
    assert round(hlo["softmax.3"].time * 1e9) == _op_time_ns(generator.OPS_BASE["softmax.3"])
    with pytest.raises(ParseError, match="Instruction table"):
        read_ops(folder, "layer")


def test_a_capture_folder_is_read_as_it_is(explorer, tmp_path):
    """capture keeps DIR/<label>.json and Explorer's tables in DIR/raw/<label>/explorer/."""
    for label, name in (("b8", "ops-base"), ("b32", "ops-slow")):
        shutil.copy(RUN / "b32.json", tmp_path / f"{label}.json")
        shutil.copytree(explorer[name], tmp_path / "raw" / label / "explorer")
    comparison = _ops([tmp_path / "b8.json", tmp_path / "b32.json"], OpsOptions(level="hlo", basis="step"))
    assert comparison.variants[0].changes[0].key == "dot.1"


# --- the command in every format ---------------------------------------------------------------

def _run(explorer, *args):
    return CliRunner().invoke(cli, ["ops", str(explorer["ops-base"]), str(explorer["ops-slow"]), "--level", "hlo",
                                    *args])


def test_cli_term_opens_with_the_graph_change(explorer):
    result = _run(explorer, "--no-color", "--width", "120")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("ops-slow: the compiler changed the graph: 1 HLO op only in ops-slow")
    table = lines[lines.index(next(line for line in lines if line.startswith("op "))) + 1:]
    assert table[0].split()[0] == "dot.1" and "+9.660 us" in table[0] and "worse" in table[0]
    assert any(line.startswith("(unexplained") for line in table)


def test_cli_json(explorer):
    data = json.loads(_run(explorer, "--format", "json").output)
    assert data["graph_changes"][0].startswith("ops-slow: the compiler changed the graph")
    rows = [r for r in data["rows"] if r["kind"] == "op"]
    assert rows[0]["op"] == "dot.1" and round(rows[0]["change_s"] * 1e9) == 9660
    assert {r["op"]: r["verdict"] for r in rows}["reduce.4"] == "removed"
    assert data["variants"][0]["unexplained_s"] == 0


def test_cli_csv(explorer):
    result = _run(explorer, "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert rows[0]["op"] == "dot.1" and rows[0]["verdict"] == "worse"
    assert round(float(rows[0]["change_s"]) * 1e9) == 9660
    assert next(r for r in rows if r["kind"] == "unexplained")["change_s"] == "0.0"


def test_cli_markdown_and_html(explorer, tmp_path):
    md = _run(explorer, "--format", "md").output
    assert md.splitlines()[1].startswith("> **ops-slow: the compiler changed the graph")
    assert "| dot.1 | 32.20 us | 41.86 us | +9.660 us |" in md
    out = tmp_path / "ops.html"
    assert _run(explorer, "-o", str(out)).exit_code == 0
    page = out.read_text()
    assert page.index("the compiler changed the graph") < page.index("<td>dot.1</td>")


def test_cli_top_sums_the_rest_on_one_line(explorer):
    lines = _run(explorer, "--top", "1", "--no-color").output.splitlines()
    assert any(line.startswith("(other ops): 4") for line in lines)


def test_cli_bad_input_is_one_clear_line(tmp_path):
    summary_only = tmp_path / "b8.json"
    shutil.copy(RUN / "b32.json", summary_only)
    result = CliRunner().invoke(cli, ["ops", str(summary_only), str(RUN / "b32.json")])
    assert result.exit_code != 0 and "operation tables" in result.output and "Traceback" not in result.output


def test_options_are_checked():
    with pytest.raises(UsageError, match=r"level.*opcode, hlo, layer, kernel"):
        OpsOptions(level="ops")
    with pytest.raises(UsageError, match="top"):
        OpsOptions(top=0)


def test_api_returns_a_frame(explorer):
    result = neuroncmp.ops(explorer["ops-base"], explorer["ops-slow"], level="hlo")
    frame = result.to_frame()
    first = frame[frame["kind"] == "op"].iloc[0]
    assert first["op"] == "dot.1" and round(first["change_s"] * 1e9) == 9660
    assert "the compiler changed the graph" in str(result)


@pytest.mark.parametrize("ordered,batches,far", [(True, 1, False), (True, 7, False), (False, 1, False),
                                                 (True, 3, True)])
def test_column_wise_union_agrees_with_the_plain_one(ordered, batches, far):
    """union.py (numpy, every operator at once, in row groups carrying each operator's reach, or
    the whole table sorted; ``far``: times so spread the shift would overflow) against
    the stretches a plain merge of each operator's sorted intervals makes, on random overlapping intervals."""
    import numpy as np

    from neuroncmp.ingest.ops import union

    random = np.random.default_rng(7)
    start = random.integers(0, 2**59 if far else 10_000, 2_000)
    if ordered:
        start = np.sort(start)
    end = start + random.integers(1, 300, start.size)
    group_names = [f"op{g}" for g in random.integers(0, 9, start.size)]
    totals = union.Totals("(none)")
    for part in np.array_split(np.arange(start.size), batches):
        ids = totals.ids([group_names[i] for i in part], [False] * part.size)
        nothing = np.zeros(part.size)
        union.add(totals, ids, start[part], end[part], union.Amounts(nothing, nothing, nothing, nothing), ordered)
    got = {name: covered for name, _, covered, _, _, _, _ in totals.rows()}
    for name in set(group_names):
        mine = [i for i, n in enumerate(group_names) if n == name]
        assert got[name] == _merged_length([(int(start[i]), int(end[i])) for i in mine]), name


def _merged_length(intervals):
    """Covered length by merging sorted intervals into stretches and adding each stretch once."""
    total, start, end = 0, None, None
    for low, high in sorted(intervals):
        if end is not None and low <= end:
            end = max(end, high)
            continue
        total += 0 if end is None else end - start
        start, end = low, high
    return total + (0 if end is None else end - start)


def test_rows_out_of_time_order_are_read_whole(explorer, tmp_path):
    """The fixture's EVENT_SEMAPHORE row (start 0) comes last: the streaming pass stops, the whole
    table is read sorted, and the times are the same as the docstring's arithmetic."""
    import pyarrow.parquet as pq

    rows = pq.read_table(explorer["ops-base"] / "Instruction.parquet").column("start_ts").to_pylist()
    assert rows[-1] < rows[-2]
    table = read_ops(explorer["ops-base"], "hlo").by_key()
    assert round(table["dot.1"].time * 1e9) == _op_time_ns(generator.OPS_BASE["dot.1"])


def test_ops_reads_what_capture_kept(tmp_path):
    """A capture with the Explorer stand-in keeps its Parquet output, op tables included, in
    raw/<label>/explorer/; ``ops`` of the run folder's summaries finds them there. The stand-in
    writes one 1,000 ns MATMUL per sample, back to back: the same time per sample at b8 and b32."""
    from conftest import TRAIN, use_standins

    out = tmp_path / "run"
    with pytest.MonkeyPatch.context() as mp:
        use_standins(mp, tmp_path / "no-neuron-bin")
        result = CliRunner().invoke(cli, ["capture", "--batch", "8,32", "--out", str(out), "--", *TRAIN])
    assert result.exit_code == 0, result.output
    assert (out / "raw" / "b8" / "explorer" / "Instruction.parquet").is_file()
    comparison = _ops([out / "b8.json", out / "b32.json"], OpsOptions(level="hlo"))
    (variant,) = comparison.variants
    dot = variant.changes[0]
    assert comparison.basis == "sample" and dot.key == "dot.1"
    assert (dot.baseline_op.instructions, dot.variant_op.instructions) == (8, 32)
    assert round(dot.baseline * 1e9) == round(dot.variant * 1e9) == 1000 and dot.verdict == "unchanged"
