"""The terminal's default diff of two profiles is one screen; ``--all`` is everything.

Counts are checked against the full output (``--all``), values against the raw files.
"""

from __future__ import annotations

import json
import re

from click.testing import CliRunner
from conftest import RUN

from neuroncmp.cli import cli

BASE, B32 = str(RUN / "baseline.json"), str(RUN / "b32.json")


def _diff(*args):
    result = CliRunner().invoke(cli, ["diff", BASE, B32, "--no-color", "--width", "100", *args])
    assert result.exit_code == 0, result.output
    return result.output.splitlines()


def _raw(path):
    with open(path) as file:
        return next(iter(json.load(file).values()))


def test_the_default_is_one_screen_of_headline_warnings_findings_and_the_largest_changes():
    lines = _diff()
    assert len(lines) <= 60
    assert any(line.startswith("headline") for line in lines)
    assert any(line.startswith("warning: missing on baseline") for line in lines)
    assert any(line.startswith("findings (") for line in lines)
    # the largest change beside the headline: cc_op_active_time per sample, 13.93 ms / 8 -> 16.00 ms / 32
    base, b32 = _raw(BASE)["cc_op_active_time"] / 8, _raw(B32)["cc_op_active_time"] / 32
    row = next(line for line in lines if line.startswith("cc_op_active_time/sample"))
    assert row.split()[-1] == f"{(b32 / base - 1) * 100:+.1f}%✔" == "-71.3%✔"


def test_what_it_leaves_out_is_counted():
    """The unchanged rows it counts are the rows the full table marks ``=`` (below the headline)
    and the identical metadata rows it does not print."""
    brief, full = _diff(), _diff("--all")
    footer = " ".join(brief[-8:])
    shown, changed, unchanged = map(int, re.search(
        r"(\d+) of (\d+) changed rows beside the headline's shown .*?; (\d+)\s+rows unchanged; --all shows every row",
        footer).groups())
    table = full[full.index("throughput (derived from the profile and Trainer metrics)"):
                 full.index(next(line for line in full if line.startswith("findings (")))]
    marked_same = sum(1 for line in table if line.endswith("="))
    identical = int(next(re.match(r"(\d+) identical", line) for line in full if "identical metadata" in line)[1])
    assert unchanged == marked_same + identical
    assert 0 < shown < changed


def test_all_shows_every_row_and_finding():
    brief, full = _diff(), _diff("--all")
    assert len(full) > 250 > 60 >= len(brief)
    assert any(line.startswith("8. [data quality]") for line in full)  # every finding
    assert not any(line.startswith("3. ") for line in brief) and "6 more findings: --all shows every one" in brief
    assert any(line.startswith("noise bands:") for line in full)
