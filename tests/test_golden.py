"""Golden files: every output format of `neuroncmp diff` on the bundled sweep, fixed width, no colour.

Refresh with `python -m pytest tests/test_golden.py --update-golden` and review the diff like code.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from conftest import ROOT, VARIANT_FILES

from neuroncmp.cli import cli

GOLDEN = ROOT / "tests" / "golden"
SWEEP = [f"profiles/trn1-2xlarge-bs-sweep/{name}" for name in VARIANT_FILES]
SWEEPS = {  # neuroncmp sweep on the bundled run folder
    "sweep-analysis.txt": ["profiles/trn1-2xlarge-bs-sweep/", "--width", "100", "--no-color",
                           "--price-per-hour", "1.34"],
    "sweep-analysis.md": ["profiles/trn1-2xlarge-bs-sweep/", "--format", "md"],
}
CASES = {
    "sweep.txt": [*SWEEP, "--format", "term", "--width", "100", "--no-color", "--all"],
    "baseline-b32.txt": [SWEEP[0], SWEEP[4], "--width", "100", "--no-color"],  # the default: one screen
    "sweep.md": [*SWEEP, "--format", "md"],
    "sweep.json": [*SWEEP, "--format", "json"],
    "sweep.csv": [*SWEEP, "--format", "csv"],
    "sweep.html": [*SWEEP, "--format", "html"],
    "baseline-b32-changed.txt": [SWEEP[0], SWEEP[4], "--only-changed", "--sort", "change",
                                 "--width", "100", "--no-color",
                                 "--fail-on", "mfu_estimated_percent<-2pp"],
}


@pytest.mark.parametrize("name", sorted(CASES) + sorted(SWEEPS))
def test_golden(name, monkeypatch, update_golden):
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("COLUMNS", "100")
    args = ["diff", *CASES[name]] if name in CASES else ["sweep", *SWEEPS[name]]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    path = GOLDEN / name
    if update_golden:  # rewrite, then review `git diff tests/golden` like code: never compared here
        path.write_text(result.output)
        pytest.skip(f"rewrote {path.name}; review the diff")
    assert result.output == path.read_text()
