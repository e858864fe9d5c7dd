"""The device-memory headline names the workload's memory, per core, and what changed (issue 32, item 4).

Real trn2.3xlarge view JSONs (LNC=2: ``nc_mem_usage`` per physical core, nc 4 and nc 5). Read from the
files by hand (``amount_bytes``):

- baseline nc 4: Total 3093768016, Profiler Buffers 2554331136, Shared Scratchpad 536870912;
  baseline nc 5: Total 2556274952, Profiler Buffers 2554331136, Shared Scratchpad 0;
- fused nc 4: Total 2556895952, Profiler Buffers 2554331136, Shared Scratchpad 0;
  fused nc 5: as baseline nc 5.

So the sum of both Totals, 5650042968 -> 5113170904 B (5.262 -> 4.762 GiB, -9.5 %), is 5108662272 B
(4.758 GiB) of profiler buffers on both sides; without them nc 4 holds 539436880 -> 2564816 B
(514.4 -> 2.446 MiB) and nc 5 1943816 B on both; the change is the 512 MiB shared scratchpad of nc 4.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner

from neuroncmp.cli.app import cli

VIEW = Path(__file__).parent / "data" / "third_party" / "view-json"
BASELINE = VIEW / "trn2.3xlarge_profiler-2.28_attention_baseline_bf16_s512.json"
FUSED = VIEW / "trn2.3xlarge_profiler-2.28_attention_fused_bf16_s512.json"
INF2 = VIEW / "inf2.xlarge_profiler-2.27_matmul_128x128x512.json"


def _diff(*paths: Path) -> dict:
    return json.loads(CliRunner().invoke(cli, ["diff", *map(str, paths), "--format", "json"]).stdout)


def _headline(data: dict) -> dict[str, dict]:
    return {line["label"]: line for line in data["headline"]}


def _row(data: dict, name: str) -> dict:
    return next(row for row in data["rows"] if row["metric"] == name)


def test_a_per_core_table_is_headlined_per_core_without_the_profilers_buffers():
    data = _diff(BASELINE, FUSED)
    lines = _headline(data)
    labels = list(lines)
    memory = labels[labels.index("device memory nc4 (no profiler buffers)"):]
    assert memory == ["device memory nc4 (no profiler buffers)", "device memory nc5 (no profiler buffers)",
                      "  largest change: shared_scratchpad", "  profiler buffers (not scored)"]
    assert _row(data, "device_memory_workload.nc4")["baseline"]["step"] == 3093768016 - 2554331136
    assert _row(data, "device_memory_workload.nc4")["step"]["value"] == [2556895952 - 2554331136]
    assert _row(data, "device_memory_workload.nc5")["step"]["value"] == [2556274952 - 2554331136]
    assert lines["device memory nc4 (no profiler buffers)"]["verdict"] == ["better"]
    scratch = lines["  largest change: shared_scratchpad"]
    assert (scratch["metric"], scratch["baseline"], scratch["value"]) == ("memory.shared_scratchpad", "512.0 MiB",
                                                                          ["0 MiB"])
    assert lines["  profiler buffers (not scored)"]["baseline"] == "4.758 GiB"  # 5108662272 B
    # the sum over both cores, profiler buffers included, is shown in the table, never scored
    total = _row(data, "device_memory_total")
    assert (total["baseline"]["step"], total["step"]["value"]) == (5650042968, [5113170904])
    assert total["step"]["verdict"] == ["neutral"]


def test_profiler_buffers_are_never_scored_even_when_they_differ():
    # inf2 matmul: one core (nc 0), Total 2518894420, Profiler Buffers 2415920128 (2.25 GiB): without them
    # 102974292 B (98.20 MiB, mostly 102439116 B of ucode); against the fused trn2 kernel's 4.758 GiB
    data = _diff(INF2, FUSED)
    buffers = _row(data, "memory.profiler_buffers")
    assert (buffers["baseline"]["step"], buffers["step"]["value"]) == (2415920128, [5108662272])
    assert buffers["step"]["verdict"] == ["context"]  # memory across core counts: shown, not compared
    assert _row(data, "device_memory_workload")["baseline"]["step"] == 2518894420 - 2415920128
    single = _diff(INF2, VIEW / "inf2.xlarge_profiler-2.27_matmul_128x128x1024.json")  # one core: one line
    assert [label for label in _headline(single) if label.startswith("device memory")] == [
        "device memory (no profiler buffers)"]
    assert not [row for row in single["rows"] if row["metric"].startswith("device_memory_workload.")]


def test_show_says_how_much_of_the_table_is_the_profilers():
    # fused: 5113170904 B in all (4.762 GiB), 2 x 2554331136 = 5108662272 B (4.758 GiB) profiler buffers
    out = CliRunner().invoke(cli, ["show", str(FUSED), "--no-color"]).output
    assert "Device memory by usage type (total 4.762 GiB, 4.758 GiB of it the profiler's buffers)" in out


def test_a_row_that_is_not_scored_carries_no_mark_in_any_format():
    """Profiler buffers (not scored) read "+111%~" and the total with them "+103% ~ changed": a mark on
    a row the output says it does not score. Now the values and the change, no mark, in every format.
    inf2 -> fused: buffers 2415920128 -> 5108662272 B (+111 %), Total 2518894420 -> 5113170904 B (+103 %);
    the bundled baseline and b32 hold the same 2.443 GiB of buffers: no "=" either."""
    assert f"{5108662272 / 2415920128 - 1:+.0%}" == "+111%" and f"{5113170904 / 2518894420 - 1:+.0%}" == "+103%"
    for fmt in ("term", "md", "html", "json"):
        out = CliRunner().invoke(cli, ["diff", str(INF2), str(FUSED), "--format", fmt, "--all", "--no-color"]).stdout
        for change in ("+111%", "+103%"):
            after = re.findall(re.escape(change) + r"(.{0,10})", out)
            assert after and not [text for text in after if re.match(r"\s?[~=✔✘]|\s?changed", text)], (fmt, after)
    run = Path(__file__).parent.parent / "profiles" / "trn1-2xlarge-bs-sweep"
    out = CliRunner().invoke(cli, ["diff", str(run / "baseline.json"), str(run / "b32.json"), "--no-color",
                                   "--width", "100"]).stdout
    line = next(text for text in out.splitlines() if "profiler buffers (not scored)" in text)
    assert line.split()[-2:] == ["2.443", "2.443"]


def test_sides_with_other_core_counts_show_both_totals_and_say_why_not_compared():
    """inf2 (one core) against the fused trn2 kernel (nc 4 and nc 5): the headline showed the trn2
    cores as "new" and the inf2 memory nowhere. Now each side's memory without the profiler's buffers,
    every core: inf2 2518894420 - 2415920128 = 102974292 B (98.20 MiB), fused 2564816 + 1943816 =
    4508632 B (4.300 MiB), with no verdict, and a warning naming both sides' cores."""
    data = _diff(INF2, FUSED)
    memory = [line for label, line in _headline(data).items() if label.startswith("device memory")]
    assert len(memory) == 1
    (line,) = memory
    assert (line["baseline"], line["value"]) == (f"{102974292 / 2**20:.2f} MiB", [f"{4508632 / 2**20:.3f} MiB"])
    assert line["verdict"] == ["context"] and line["change"] == [f"{4508632 / 102974292 - 1:+.1%}"]
    warning = next(w for w in data["warnings"] if "cores" in w)
    assert "1 core" in warning and "2 cores (nc4, nc5)" in warning and "not compared" in warning
    assert data["tally"]  # the rest is judged: only memory is set aside
