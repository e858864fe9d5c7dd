"""Keep pint, pandas, numpy and pyarrow off the CLI's terminal path (each costs 10x Python's start)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import ROOT, RUN

HEAVY = ("pint", "pandas", "numpy", "pyarrow", "matplotlib", "duckdb", "pyspark")
PROBE = """
import runpy, sys, json
sys.argv = ["neuroncmp", *json.loads(sys.argv[1])]
try:
    runpy.run_module("neuroncmp", run_name="__main__")
except SystemExit:
    pass
sys.stdout = sys.__stdout__
print(json.dumps(sorted(m for m in {heavy!r} + ("rich",) if m in sys.modules)), file=sys.stderr)
"""


def loaded_modules(*args: str) -> list[str]:
    result = subprocess.run([sys.executable, "-c", PROBE.format(heavy=HEAVY), json.dumps(list(args))],
                            capture_output=True, text=True, cwd=ROOT, check=True)
    return json.loads(result.stderr.strip().splitlines()[-1])


@pytest.mark.parametrize("args, expected", [
    (["diff", str(RUN / "baseline.json"), str(RUN / "b32.json"), "--no-color"], []),
    (["diff", str(RUN / "baseline.json"), str(RUN / "b32.json"), "--format", "json"], []),
    (["--help"], []),
    (["show", str(RUN / "b32.json"), "--no-color"], []),
    (["sweep", str(RUN), "--no-color"], []),
    (["sweep", str(RUN), "--format", "json"], []),
    (["sweep", str(RUN), "--format", "md"], []),
    (["metrics", "--no-color"], []),
])
def test_terminal_path_imports_nothing_heavy(args, expected):
    assert loaded_modules(*args) == expected


def test_importing_the_library_imports_nothing_heavy():
    code = ("import sys, json, neuroncmp; neuroncmp.compare; neuroncmp.sweep; neuroncmp.examples; "
            f"print(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert json.loads(result.stdout) == []
