"""The terminal's default diff of two profiles is one screen; ``--all`` is everything.

Counts are checked against the full output (``--all``), values against the raw files.
"""

from __future__ import annotations

import json
import re

from click.testing import CliRunner
from conftest import RUN, THIRD_PARTY

from neuroncmp.cli import cli

BASE, B32 = str(RUN / "baseline.json"), str(RUN / "b32.json")
# two NKI attention kernels on trn2 whose file names differ in one word (baseline, fused)
ATTENTION = [str(THIRD_PARTY / "view-json" / f"trn2.3xlarge_profiler-2.28_attention_{name}_bf16_s512.json")
             for name in ("baseline", "fused")]


def _diff(*args, files=(BASE, B32)):
    result = CliRunner().invoke(cli, ["diff", *files, "--no-color", "--width", "100", *args])
    assert result.exit_code == 0, result.output
    return result.output.splitlines()


def _raw(path):
    with open(path) as file:
        return next(iter(json.load(file).values()))


def test_the_default_is_one_screen_of_headline_warnings_findings_and_the_largest_changes():
    lines = _diff()
    shown, _, _ = _counted(lines)
    assert len(lines) <= 60 or shown == 3  # one screen, unless that would leave fewer than 3 changed rows
    assert any(line.startswith("headline") for line in lines)
    assert any(line.startswith("warning: missing on baseline") for line in lines)
    assert any(line.startswith("findings (") for line in lines)
    # the largest change beside the headline: cc_op_active_time per sample, 13.93 ms / 8 -> 16.00 ms / 32
    base, b32 = _raw(BASE)["cc_op_active_time"] / 8, _raw(B32)["cc_op_active_time"] / 32
    row = next(line for line in lines if line.startswith("cc_op_active_time/sample"))
    assert row.split()[-1] == f"{(b32 / base - 1) * 100:+.1f}%✔" == "-71.3%✔"


def test_what_it_leaves_out_is_counted():
    """The unchanged rows it counts are the rows the full table marks ``=`` (below the headline; a row
    with no better direction too, inside its noise band), the rows shown but not compared (memory
    across batch sizes: context) whose change is inside the noise band (no mark: the JSON's
    ``in_band``) and the identical metadata rows it does not print."""
    brief, full = _diff(), _diff("--all")
    footer = " ".join(brief[-8:])
    shown, changed, unchanged = map(int, re.search(
        r"(\d+) of (\d+) changed rows beside the headline's shown .*?; (\d+)\s+rows unchanged; --all shows every row",
        footer).groups())
    table = full[full.index("throughput (derived from the profile and Trainer metrics)"):
                 full.index(next(line for line in full if line.startswith("findings (")))]
    marked_same = sum(1 for line in table if line.endswith("="))
    identical = int(next(re.match(r"(\d+) identical", line) for line in full if "identical metadata" in line)[1])
    rows = json.loads(CliRunner().invoke(cli, ["diff", BASE, B32, "--format", "json"]).output)["rows"]
    numeric = [(r, r[r["shown_basis"]]) for r in rows if r["kind"] not in ("text", "index")]
    unmarked_inside = [r["metric"] for r, basis in numeric  # memory across batch sizes
                       if basis["in_band"] == [True] and basis["verdict"][0] == "context"]
    assert unchanged == marked_same + len(unmarked_inside) + identical
    assert 0 < shown < changed


def test_all_shows_every_row_and_finding():
    brief, full = _diff(), _diff("--all")
    assert len(full) > 250 > 65 >= len(brief)
    assert any(line.startswith("8. [data quality]") for line in full)  # every finding
    assert not any(line.startswith("3. ") for line in brief) and "6 more findings: --all shows every one" in brief
    assert any(line.startswith("noise bands:") for line in full)


def _counted(lines):
    return map(int, re.search(r"(\d+) of (\d+) changed rows beside the headline's shown .*?; (\d+)\s+rows unchanged",
                              " ".join(lines)).groups())


def test_long_file_names_are_shown_by_the_word_that_tells_them_apart_and_the_screen_holds_rows():
    """The two labels (55 characters, all but one word shared) head their columns as ``baseline``
    and ``fused``, named in full once; the default view keeps to 60 lines with changed rows in it."""
    lines = _diff(files=ATTENTION)
    assert len(lines) <= 60
    default = CliRunner().invoke(cli, ["diff", *ATTENTION, "--no-color"], env={"COLUMNS": None})
    narrow = default.output.splitlines()
    assert max(map(len, narrow)) == 80 and (len(narrow) <= 60 or next(_counted(narrow)) == 3)
    assert lines[0] == "neuroncmp diff: baseline (bs ?) vs fused (bs ?)"
    legend = " ".join(lines[1:3])
    assert legend == ("labels: baseline = trn2-3xlarge-profiler-2-28-attention-baseline-bf16-s512; "
                      "fused = trn2-3xlarge-profiler-2-28-attention-fused-bf16-s512")
    assert sum("trn2-3xlarge" in line for line in lines) == 2  # the legend's lines only
    assert next(line for line in lines if line.startswith("metric [unit]")).split()[-2:] == ["baseline", "fused"]
    assert next(_counted(lines)) > 0  # changed rows shown


def test_the_rows_under_the_headline_are_the_changed_rows_it_does_not_show():
    """The attention pair's headline shows device memory per core (nc4, nc5) and the largest change
    (shared_scratchpad); the total device memory and HBM traffic, changed but not on it, come first
    below it (largest change first), and are counted. Changed rows: the 76 of ``--only-changed``
    less the 8 headline lines with a change (each a row of its own here: one basis, per step)."""
    brief, full = _diff(files=ATTENTION), _diff("--all", "--only-changed", files=ATTENTION)
    table = brief[brief.index(next(line for line in brief if line.startswith("rows better"))):]
    names = [line.split()[0] for line in table if re.match(r"[a-z_.0-9]+ \[", line)]
    assert names[:4] == ["device_memory_workload", "hbm_write_bytes", "dma_data_bytes", "hbm_traffic_bytes"]
    assert not {"memory.shared_scratchpad", "device_memory_workload.nc4"} & set(names)
    top = brief[brief.index("headline") + 1:brief.index(table[0])]
    # headline lines with a change beyond the band; one not scored (the engines' shares) has no mark,
    # so whether it moved is the JSON's in_band
    data = json.loads(CliRunner().invoke(cli, ["diff", *ATTENTION, "--format", "json"]).output)
    moved = {r["metric"] for r in data["rows"] if r["step"]["in_band"] == [False]}
    on_headline = sum(1 for line in data["headline"] if line["metric"] in moved)
    assert len(top) >= len(data["headline"])
    rows = int(re.search(r"(\d+) metric rows shown", " ".join(full))[1])
    hidden = int(re.search(r"(\d+) unchanged rows hidden", " ".join(full))[1])
    shown, changed, unchanged = _counted(brief)
    assert (on_headline, rows, hidden) == (8, 76, 61)
    assert (shown, changed, unchanged) == (len(names), rows - on_headline, hidden)
    assert "per-step lines left out" not in " ".join(brief)  # there are none: one basis



def test_a_row_that_fits_is_shown_when_each_variant_has_a_table_of_its_own():
    # Three Trainer files read alone, at 40 columns: too narrow for one table, so b32-cc-optim and b48
    # each get a table beside b16. The headline, warnings and footer take 53 lines; the largest change,
    # trainer_step_time per sample, 3 lines in each table (its name on two, the change under the
    # value): 59, within the screen's 60. The count of what the screen holds once said 54 for the 53
    # and left the row out.
    import neuroncmp
    from neuroncmp.commands.diff import DiffOptions, diff_report
    from neuroncmp.render import registry

    profiles = [neuroncmp.load(RUN / f"{name}.all_results.json")[0] for name in ("b16", "b32-cc-optim", "b48")]
    text = registry.by_name("term").render("diff", diff_report(profiles, DiffOptions(brief=True)), 40)
    lines = text.splitlines()
    assert len(lines) <= 60 or next(_counted(lines)) == 3  # (at least three changed rows, past the screen)
    assert sum(line.startswith("trainer_step_time/") for line in lines) == 2


def test_warnings_that_fill_the_screen_still_leave_the_three_largest_changes():
    """At 80 columns the baseline-b32 warnings and findings alone fill the 60 lines; the default still
    shows the three largest changes beside the headline, not none, the largest first."""
    narrow = CliRunner().invoke(cli, ["diff", BASE, B32, "--no-color", "--width", "80"]).output.splitlines()
    shown, changed, _ = _counted(narrow)
    assert shown == 3 and changed == list(_counted(_diff()))[1]
    base, b32 = _raw(BASE)["cc_op_active_time"] / 8, _raw(B32)["cc_op_active_time"] / 32
    after = narrow[narrow.index(next(line for line in narrow if line.startswith("rows better"))):]
    rows = [line for line in after if re.match(r"[a-z_]+(/sample)? \[", line)]
    assert len(rows) == 3 and rows[0].startswith("cc_op_active_time/sample")
    assert rows[0].endswith(f"{(b32 / base - 1) * 100:+.1f}%✔")
