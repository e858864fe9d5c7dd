"""Output edges, messages and escaping (issue 11): what ``-o`` may replace, one-line errors,
usage errors for bad ``--threshold`` keys, and text from input files escaped in every format."""

from __future__ import annotations

import csv
import io
import json
import os
import signal
import stat
import subprocess
import sys

import pytest
from click.testing import CliRunner
from conftest import ROOT, RUN

from neuroncmp.cli import cli

BASE, B32 = str(RUN / "baseline.json"), str(RUN / "b32.json")


def run(*args):
    return CliRunner().invoke(cli, list(args))


# ---- -o ---------------------------------------------------------------------------------------

def test_output_through_a_symlink_replaces_its_file_and_keeps_the_link(tmp_path):
    real = tmp_path / "real.json"
    real.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    assert run("diff", BASE, B32, "-o", str(link)).exit_code == 0
    assert link.is_symlink() and json.loads(real.read_text())["schema"] == "neuroncmp.comparison/3"


@pytest.mark.parametrize("kind", ["fifo", "directory"])
def test_output_never_replaces_a_non_regular_file(tmp_path, kind):
    target = tmp_path / "out.json"
    os.mkfifo(target) if kind == "fifo" else target.mkdir()
    result = run("diff", BASE, B32, "--format", "json", "-o", str(target))
    assert result.exit_code == 1 and "out.json" in result.output
    assert stat.S_ISFIFO(target.stat().st_mode) if kind == "fifo" else target.is_dir()
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]  # no temp file left either


def test_output_never_replaces_an_input_of_the_run(tmp_path):
    variant = tmp_path / "b32.json"
    variant.write_bytes((RUN / "b32.json").read_bytes())
    result = run("diff", BASE, str(variant), "--format", "json", "-o", str(variant))
    assert result.exit_code == 2 and "input of this run" in result.output
    assert variant.read_bytes() == (RUN / "b32.json").read_bytes()


def test_output_never_replaces_a_sidecar_of_a_run_folder(tmp_path):
    sidecar = RUN / "b32.memory.md"
    result = run("diff", str(RUN), "--format", "md", "-o", str(sidecar))
    assert result.exit_code == 2 and "b32.memory.md" in result.output


def test_output_keeps_an_existing_files_mode(tmp_path):
    target = tmp_path / "out.csv"
    target.write_text("old")
    target.chmod(0o600)
    assert run("diff", BASE, B32, "-o", str(target)).exit_code == 0
    assert stat.S_IMODE(target.stat().st_mode) == 0o600 and target.read_text().startswith("metric,")


def test_empty_output_path_is_a_usage_error():
    result = run("diff", BASE, B32, "-o", "")
    assert result.exit_code == 2 and "empty path" in result.output


def test_missing_output_folders_are_created(tmp_path):
    target = tmp_path / "a" / "b" / "out.md"
    assert run("diff", BASE, B32, "-o", str(target)).exit_code == 0
    assert target.read_text().startswith("## neuroncmp diff")


def test_output_errors_name_the_target_not_the_temp_file(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    target = blocker / "out.json"
    result = run("diff", BASE, B32, "-o", str(target))
    assert result.exit_code == 1 and str(target) in result.output and ".tmp" not in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_interrupted_write_leaves_no_temp_file(tmp_path):
    from neuroncmp.atomic import write_atomic

    class Interrupting(str):
        def encode(self, *args, **kwargs):  # the write is under way when Ctrl-C arrives
            raise KeyboardInterrupt

    target = tmp_path / "out.txt"
    with pytest.raises(KeyboardInterrupt):
        write_atomic(target, Interrupting("text"))
    assert list(tmp_path.iterdir()) == []


def test_ctrl_c_during_a_command_exits_130_and_writes_nothing(tmp_path, monkeypatch):
    """The docs' 130 (docs/exit-codes.md): Ctrl-C while the report is being written, through the CLI's boundary."""
    import neuroncmp.atomic

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(neuroncmp.atomic.os, "replace", interrupted)
    result = run("diff", BASE, B32, "-o", str(tmp_path / "out.json"))
    assert result.exit_code == 130 and "interrupted" in result.output
    assert list(tmp_path.iterdir()) == []


SIGTERM_DURING_WRITE = """
import os, signal, sys, threading
from pathlib import Path
from neuroncmp import cli
from neuroncmp.atomic import write_atomic
class Slow(str):
    def encode(self, *args, **kwargs):
        import time
        time.sleep(5)                              # the write is under way when SIGTERM arrives
        return b""
def command(**_):                                  # run by cli.main(), after it installs its handler
    threading.Timer(0.05, os.kill, (os.getpid(), signal.SIGTERM)).start()
    write_atomic(Path(sys.argv_target), Slow("x"))
cli.cli = command
cli.main()
"""


def test_sigterm_during_a_write_leaves_no_temp_file(tmp_path):
    code = SIGTERM_DURING_WRITE.replace("sys.argv_target", repr(str(tmp_path / "out.json")))
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, timeout=30)
    assert result.returncode == 128 + signal.SIGTERM, result.stderr
    assert list(tmp_path.iterdir()) == []


def test_the_cli_turns_sigterm_into_exit_143():
    # cli.main() installs the handler before the command runs
    code = ("import os, signal, time\nfrom neuroncmp import cli\n"
            "cli.cli = lambda **_: (os.kill(os.getpid(), signal.SIGTERM), time.sleep(5))\ncli.main()\n")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, timeout=30)
    assert result.returncode == 128 + signal.SIGTERM, result.stderr


# ---- messages ---------------------------------------------------------------------------------

@pytest.mark.parametrize("make", ["newline", "fifo", "directory", "corrupt parquet"])
def test_input_errors_are_one_line_with_exit_1(tmp_path, make):
    if make == "newline":
        path = tmp_path / "bad\nname.json"
        path.write_text("{not json")
    elif make == "fifo":
        path = tmp_path / "pipe.json"
        os.mkfifo(path)
    elif make == "directory":
        path = tmp_path / "empty"
        path.mkdir()
    else:
        pytest.importorskip("pyarrow")
        path = tmp_path / "explorer"
        path.mkdir()
        (path / "Summary.parquet").write_bytes(b"PAR1" + b"\x00garbage\nwith\nnewlines" * 20 + b"PAR1")
    result = run("show", str(path))
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: '") and "Traceback" not in result.output


@pytest.mark.parametrize("band, fragment", [
    ("tme=5%", "'tme' is neither a kind"), ("time=5pp", "pp (percentage points) is for fractions only"),
    ("spill_*=1pp", "spill_reload_bytes is a bytes value"), ("5", "expected [KIND|METRIC-GLOB=]"),
])
def test_bad_threshold_keys_and_units_are_usage_errors(band, fragment):
    result = run("diff", BASE, B32, "--threshold", band)
    assert result.exit_code == 2 and fragment in result.output


def test_good_thresholds_still_work():
    result = run("diff", BASE, B32, "--threshold", "spill_*=0.5%", "--threshold", "fraction=1pp",
                 "--threshold", "mfu_*=2pp", "--format", "json")
    assert result.exit_code == 0
    assert json.loads(result.output)["noise_bands"]["spill_*"] == "0.5%"


# ---- escaping ---------------------------------------------------------------------------------

HOSTILE = {"n": {"total_time": 0.05, "evil\x1b[2J\x07_time": 1.0, "=HYPERLINK(\"http://x\")": "=1+2",
                 "script_bytes": 5, "instance_type": "<script>alert(1)</script>|`x`",
                 "rtl\u202e_count": 3}}


@pytest.fixture()
def hostile(tmp_path):
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(HOSTILE))
    return str(path)


def test_terminal_output_escapes_control_characters(hostile):
    for args in (["show", hostile, "--no-color"], ["diff", B32, hostile, "--no-color"]):
        result = run(*args)
        assert result.exit_code == 0
        assert "\x1b" not in result.output and "\x07" not in result.output and "\u202e" not in result.output
        assert "evil\\x1b[2J\\x07_time" in result.output and "rtl\\u202e_count" in result.output


def test_csv_neutralises_formula_cells_but_keeps_negative_numbers(hostile):
    result = run("diff", B32, hostile, "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(result.stdout)))  # its warnings go to standard error
    formula = next(r for r in rows if "HYPERLINK" in r["metric"])
    assert formula["metric"] == "'=HYPERLINK(\"http://x\")" and formula["variant"] == "'=1+2"
    total = next(r for r in rows if r["metric"] == "total_time" and r["basis"] == "step")
    assert float(total["delta"]) < 0 and total["delta"].startswith("-")  # a number, not "'-..."


def test_markdown_and_html_escape_what_they_print(hostile):
    markdown = run("diff", B32, hostile, "--format", "md").output
    assert "<script>" not in markdown and "&lt;script>" in markdown
    html = run("diff", B32, hostile, "--format", "html").output
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_lone_surrogates_are_printed_as_escapes(tmp_path):
    path = tmp_path / "s.json"
    path.write_text('{"n": {"total_time": 0.1, "instance_type": "a\\ud800b"}}')
    for args in (["show", str(path), "--no-color"], ["show", str(path), "--format", "json"]):
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 0 and "\\ud800" in result.output
