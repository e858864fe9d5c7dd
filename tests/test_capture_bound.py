"""The batch sizes a capture could not profile, read back by ``sweep`` and ``diff`` (issue 32, item 1),
and neuronx-cc's compile-time out-of-memory stop classed as one.

Captures run offline on the stand-ins (tests/standins): the training command runs out of device
memory at STANDIN_OOM_AT (64 by default), at run time as the runtime reports it or, with
STANDIN_OOM_KIND, at compile time as neuronx-cc does. The expected memory forecasts are worked out
here from the bundled memory tables the stand-in's Explorer prints (``*.memory.md``: the rows, its
Total left out, as the stand-in writes them), with a plain least-squares line; the compiler's
numbers from the real messages in tests/fixtures (README there).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import FIXTURES, RUN, TRAIN, use_standins

from neuroncmp.cli import cli

GiB = 2**30
UNITS = {"B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30}
MEMORY_FILES = {8: "baseline", 16: "b16", 32: "b32", 64: "b64"}


def table_bytes(batch: int) -> tuple[float, float]:
    """(the rows' sum, the profiler buffers) of the bundled memory table of ``batch``."""
    total = profiler = 0.0
    for line in (RUN / f"{MEMORY_FILES[batch]}.memory.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4 or cells[2] in ("Usage Type", "Total") or not cells[3][0].isdigit():
            continue
        number, unit = cells[3].split()
        amount = float(number) * UNITS[unit]
        total += amount
        profiler = amount if cells[2] == "profiler buffers" else profiler
    return total, profiler


def line_through(batches: list[int]) -> tuple[float, float]:
    """Least squares of the tables' sums on the batch size: (intercept, slope)."""
    xs, ys = batches, [table_bytes(b)[0] for b in batches]
    mean_x, mean_y = sum(xs) / len(xs), sum(ys) / len(ys)
    slope = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys)) / sum((x - mean_x) ** 2 for x in xs)
    return mean_y - slope * mean_x, slope


def gib(value: float) -> str:
    return f"{value / GiB:.4g} GiB"


def captured(tmp_path_factory: pytest.TempPathFactory, batches: str, **switches: str) -> Path:
    return capture_printing(tmp_path_factory, batches, **switches)[0]


def capture_printing(tmp_path_factory: pytest.TempPathFactory, batches: str, **switches: str) -> tuple[Path, str]:
    """The run folder and what ``capture`` printed."""
    with pytest.MonkeyPatch.context() as mp:
        out = tmp_path_factory.mktemp("capture") / "run"
        use_standins(mp, out.parent / "no-neuron-bin")
        for name, value in switches.items():
            mp.setenv(name, value)
        result = CliRunner().invoke(cli, ["capture", "--batch", batches, "--out", str(out), "--", *TRAIN])
    return out, result.output


def run(*args: str) -> str:
    result = CliRunner().invoke(cli, [*args, "--no-color"], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture(scope="module")
def oom_at_64_capture(tmp_path_factory):
    return capture_printing(tmp_path_factory, "2,4,8,16,32,64")


@pytest.fixture(scope="module")
def oom_at_64(oom_at_64_capture):
    return oom_at_64_capture[0]


@pytest.fixture(scope="module")
def oom_at_64_printed(oom_at_64_capture):
    return oom_at_64_capture[1]


@pytest.fixture(scope="module")
def oom_at_128(tmp_path_factory):
    return captured(tmp_path_factory, "2,4,8,16,32,64,128", STANDIN_OOM_AT="128")


# ---- neuronx-cc's messages --------------------------------------------------------------------

def test_xcg815_read_from_real_logs():
    from neuroncmp.capture import oom

    # aws-neuron-sdk#884: "Estimated peak HBM usage (22.839451) exceeds 16GB"; the compiler's GB are
    # GiB (its 16GB is trn1's 16 GiB per core), the estimate in the limit's unit
    first = oom.parse_compiler((FIXTURES / "neuronx-cc_XCG815_trn1_aws-neuron-sdk-884.log").read_text())
    assert first is not None and first.code == "XCG815"
    assert abs(first.estimate_bytes - 22.839451 * GiB) < 1 and first.limit_bytes == 16 * GiB
    second = oom.parse_compiler((FIXTURES / "neuronx-cc_XCG815_trn1_huggingface-inferentia2-samples-12.log")
                               .read_text())
    assert second is not None and abs(second.estimate_bytes - 19.000523 * GiB) < 1
    assert second.message.startswith("[XCG815]  Estimated peak HBM usage (19.000523) exceeds 16GB.")


def test_eoom_messages_read_as_quoted():
    from neuroncmp.capture import oom

    quoted = (FIXTURES / "neuronx-cc_EOOM_quoted.txt").read_text().split("\n\n")
    read = [oom.parse_compiler(text) for text in quoted]
    assert [(r.code, r.target) for r in read] == [("EOOM002", "Trn1"), ("EOOM002", "Trn2"), ("EOOM001", "Trn2")]
    for found, (usage, limit) in zip(read, [(18.12, 16), (28.44, 24), (32, 24)]):
        assert abs(found.estimate_bytes - usage * GiB) < 1 and found.limit_bytes == limit * GiB


def test_other_failures_are_not_compile_oom():
    from neuroncmp.capture import oom

    assert oom.parse_compiler("ValueError: tokenizer vocabulary file not found") is None
    assert oom.parse_compiler("[XTP002] Number of instructions (8658944) is over the threshold (5000000).") is None


@pytest.mark.parametrize("kind", ["XCG815", "EOOM002"])
def test_capture_classes_the_compiler_stop_as_out_of_memory(tmp_path_factory, kind):
    out = captured(tmp_path_factory, "32,64", STANDIN_OOM_KIND=kind)
    manifest = json.loads((out / "manifest.json").read_text())
    (failed,) = manifest["failed"]
    assert (failed["label"], failed["status"]) == ("b64", "out-of-memory")
    # the stand-in's estimate: 1.05 x 16 GB x 64 / 64 = 16.8 GB, printed to 6 (XCG815) or 2 decimals
    oom = failed["oom"]
    assert (oom["stage"], oom["code"], oom["limit_bytes"]) == ("compile", kind, 16 * GiB)
    assert abs(oom["estimate_bytes"] - 16.8 * GiB) < 1
    bound = manifest["upper_bound"]
    assert (bound["batch_size"], bound["stage"], bound["code"]) == (64, "compile", kind)


# ---- sweep and diff of the run folder ---------------------------------------------------------

def test_sweep_header_and_axis_name_the_failed_batch(oom_at_64):
    lines = run("sweep", str(oom_at_64)).splitlines()
    assert lines[0] == "neuroncmp sweep: 5 batch sizes (2 to 32) on trn1.2xlarge; 1 batch size failed at capture: b64"
    assert lines[1] == "axis: b2, b4, b8, b16, b32; b64: out of device memory at capture"


def test_no_batch_recommended_past_the_bound_the_forecast_missed(oom_at_64):
    text = run("sweep", str(oom_at_64))
    # the forecast from b8, b16, b32 puts b64 under 16 GiB as profiled: the capture proves it wrong there
    fixed, slope = line_through([8, 16, 32])
    at_64 = fixed + slope * 64
    assert at_64 < 16 * GiB
    assert (f"b64 ran out of device memory at capture (the runtime failed to allocate 6.000 GiB of tensors), "
            f"though the memory forecast puts it at {gib(at_64)} of 16.00 GiB per core as profiled: the "
            "forecast does not hold there") in text
    # the same words as the compiler's bound (test_a_compile_time_bound_the_forecast_fits_contradicts_it)
    assert "action: keep the batch below b64 (b32 is the largest batch that ran)" in text
    assert "largest batch   below b64, which ran out of device memory at capture: the forecast, b" in text
    assert "memory has room" not in text and not re.search(r"try b(6[4-9]|[7-9]\d|\d{3})", text)
    assert "recommendation: b32 (batch 32)" in text


def test_a_bound_the_profiler_may_explain_is_stated_as_untested(oom_at_128):
    text = run("sweep", str(oom_at_128))
    fixed, slope = line_through([8, 16, 32, 64])
    profiler = max(table_bytes(b)[1] for b in MEMORY_FILES)
    profiled, bare = fixed + slope * 128, fixed + slope * 128 - profiler
    assert bare <= 16 * GiB < profiled  # over the core's memory only with the profiler's buffers
    assert (f"b128 ran out of device memory at capture (the runtime failed to allocate 12.00 GiB of tensors) "
            f"with the profiler's {gib(profiler)} of buffers; without them the memory forecast puts it at "
            f"{gib(bare)} of 16.00 GiB per core ({gib(16 * GiB - bare)} to spare): it may fit in training, "
            "untested") in text
    # the memory finding names the bound and stays below it: the roundest batch above b64 under b128
    assert "b128 ran out of device memory at capture; try b96" in text
    assert "try b128" not in text


@pytest.fixture(scope="module")
def compile_oom_at_64(tmp_path_factory):
    return capture_printing(tmp_path_factory, "8,16,32,64", STANDIN_OOM_KIND="XCG815")


def test_a_compile_time_bound_the_forecast_fits_contradicts_it(compile_oom_at_64):
    text = run("sweep", str(compile_oom_at_64[0]))
    assert "axis: b8, b16, b32; b64: out of device memory at compile time" in text
    # the compiler's estimate holds no profiler: weighed against the forecast without its buffers,
    # which puts b64 well under the 16 GiB the compiler says it exceeds (16.80 GiB)
    fixed, slope = line_through([8, 16, 32])
    bare = fixed + slope * 64 - max(table_bytes(b)[1] for b in (8, 16, 32))
    assert bare < 16 * GiB
    assert ("b64 ran out of device memory at compile time (neuronx-cc [XCG815] estimated 16.80 GiB, over its "
            f"16.00 GiB limit), though the memory forecast puts it at {gib(bare)} of 16.00 GiB per core "
            "without the profiler's buffers: the forecast does not hold there") in text
    # as with a runtime failure the forecast contradicts: no batch from it, and one wording for the event
    assert ("not run: memory-headroom: the memory forecast fits b64 without the profiler's buffers, yet it ran "
            "out of device memory at compile time: the forecast does not hold there") in text
    assert "memory has room" not in text and "ran out of device memory at capture" not in text
    assert "largest batch   below b64, which ran out of device memory at compile time: the forecast, b118" in text
    assert "action: keep the batch below b64 (b32 is the largest batch that ran), or lower the graph's memory" in text
    assert not re.search(r"try b(6[4-9]|[7-9]\d|1\d\d)", text)  # nothing at or past the bound
    data = json.loads(run("sweep", str(compile_oom_at_64[0]), "--format", "json"))["oom_bound"]
    assert data["verdict"] == "contradicted" and abs(data["forecast_unprofiled"] / bare - 1) < 1e-6


def test_capture_prints_sizes_as_its_table_does(compile_oom_at_64, oom_at_64_printed):
    assert ("upper bound: batch 64 ran out of device memory at compile time (neuronx-cc [XCG815] estimated "
            "16.80 GiB, over its 16.00 GiB limit)") in compile_oom_at_64[1]
    # fake_train.py asks for 64 x 96 MiB = 6 GiB of tensors at b64
    assert "upper bound: batch 64 ran out of device memory (asked for 6.000 GiB of tensors)" in oom_at_64_printed
    assert "the runtime failed to allocate 6.000 GiB of tensors on ND 0:NC 0" in oom_at_64_printed


def test_other_failures_are_counted_and_named(tmp_path_factory):
    out = captured(tmp_path_factory, "2,4,8,16", STANDIN_FAIL="4")
    lines = run("sweep", str(out)).splitlines()
    assert lines[0].endswith("; 1 batch size failed at capture: b4")
    assert lines[1] == ("axis: b2, b8, b16; b4: no profile at capture (failed: exit status 1: ValueError: "
                        "tokenizer vocabulary file not found)")


def test_diff_of_the_run_folder_warns_and_finds_the_bound(oom_at_64):
    result = CliRunner().invoke(cli, ["diff", str(oom_at_64), "--no-color", "--all"],  # every finding
                                env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    assert "warning: b64: out of device memory at capture (not in this comparison)" in result.output
    assert "b64 ran out of device memory at capture" in result.output
    assert "memory has room" not in result.output


def test_sweep_json_lists_the_failed_batch_and_the_bound(oom_at_64):
    data = json.loads(run("sweep", str(oom_at_64), "--format", "json"))
    (failed,) = data["failed"]
    assert (failed["label"], failed["batch_size"], failed["status"]) == ("b64", 64, "out-of-memory")
    assert failed["requested_bytes"] == 6 * GiB  # fake_train.py: 64 x 96 MiB
    assert (data["oom_bound"]["batch_size"], data["oom_bound"]["verdict"]) == (64, "contradicted")


def test_an_edited_failed_entry_is_left_out_with_a_note(oom_at_64, tmp_path):
    import shutil

    out = tmp_path / "run"
    shutil.copytree(oom_at_64, out)
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["failed"][0]["batch_size"] = "sixty-four"
    (out / "manifest.json").write_text(json.dumps(manifest))
    text = run("sweep", str(out))
    assert text.splitlines()[0] == "neuroncmp sweep: 5 batch sizes (2 to 32) on trn1.2xlarge"
    assert (f"note: {out / 'manifest.json'}: failed[0]: batch_size: expected a whole number >= 1, found str "
            "'sixty-four'; left out") in text.replace("\n", " ")
