"""Keep pint, pandas, numpy and pyarrow off the CLI's terminal path (each costs 10x Python's start), and
rich (about 70 ms) off every command that draws nothing: ``--help``, ``--format json`` and the like."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import ROOT, RUN, VARIANT_FILES

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
    (["diff", str(RUN / "baseline.json"), str(RUN / "b32.json"), "--no-color"], ["rich"]),
    (["diff", str(RUN / "baseline.json"), str(RUN / "b32.json"), "--format", "json"], []),
    (["diff", str(RUN / "baseline.json"), str(RUN / "b32.json"), "--format", "md"], []),
    (["--help"], []),
    (["diff", "--help"], []),
    (["--version"], []),
    (["show", str(RUN / "b32.json"), "--no-color"], ["rich"]),
    (["show", str(RUN / "b32.json"), "--format", "json"], []),
    (["sweep", str(RUN), "--no-color"], ["rich"]),
    (["sweep", str(RUN), "--format", "json"], []),
    (["sweep", str(RUN), "--format", "md"], []),
    (["metrics", "--no-color"], ["rich"]),
    (["metrics", "--format", "json"], []),
])
def test_terminal_path_imports_nothing_heavy(args, expected):
    assert loaded_modules(*args) == expected


def test_importing_the_library_imports_nothing_heavy():
    code = ("import sys, json, neuroncmp; neuroncmp.compare; neuroncmp.sweep; neuroncmp.examples; "
            f"print(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert json.loads(result.stdout) == []


# Which of the package's own modules a command loads (issue 23: "commands import only what they
# use"). Measured with the probe below; the README's speed section lists the counts per command.
OURS = PROBE.replace("{heavy!r} + (\"rich\",)", "tuple(sys.modules)").replace(
    "if m in sys.modules", "if m.startswith('neuroncmp')")


def package_modules(*args: str) -> set[str]:
    result = subprocess.run([sys.executable, "-c", OURS, json.dumps(list(args))],
                            capture_output=True, text=True, cwd=ROOT, check=True)
    return set(json.loads(result.stderr.strip().splitlines()[-1]))


COMMAND_MODULES = {f"neuroncmp.cli.{name}" for name in ("capture", "convert", "diff", "formats", "history",
                                                          "metrics", "ops", "regressions", "report", "show",
                                                          "store", "sweep")}


def test_help_imports_no_command_and_no_stage_of_the_pipeline():
    # --help lists the commands from cli/commands.py: click, the group and its error boundary only
    loaded = package_modules("--help")
    assert loaded == {"neuroncmp", "neuroncmp.cli", "neuroncmp.cli.app", "neuroncmp.cli.commands",
                      "neuroncmp.errors", "neuroncmp.escape"}


@pytest.mark.parametrize("command", ["diff", "sweep", "show", "store"])
def test_a_commands_help_imports_its_own_module_and_no_other_command(command):
    loaded = package_modules(command, "--help")
    # (a --format option's help lists the renderers, so it imports render/formats/: its usage line)
    assert loaded & COMMAND_MODULES == {f"neuroncmp.cli.{command}"}


def test_diff_loads_its_own_command_and_nothing_of_the_store_capture_or_api():
    loaded = package_modules("diff", *(str(RUN / f) for f in VARIANT_FILES), "--no-color")
    assert loaded & COMMAND_MODULES == {"neuroncmp.cli.diff"}
    assert not {m for m in loaded if m.split(".")[1:2] in (["store"], ["capture"], ["api"], ["examples"])}
    # explorer_parquet is sniffed (loaded) but its schema tables load only with an Explorer folder
    assert "neuroncmp.ingest.formats.explorer_schema" not in loaded
    assert "neuroncmp.render.terminal.sweep" not in loaded  # the sweep's view


def test_show_loads_no_comparison_and_no_analysis():
    # a profile's view (render/terminal/show.py): its step's bounds (analysis/side_bounds.py and what it
    # reads: the side record and its suspect values), none of the comparison's views, differ or sweep analysis
    loaded = package_modules("show", str(RUN / "b32.json"), "--no-color")
    assert "neuroncmp.render.terminal.show" in loaded  # it did run
    bounds = {f"neuroncmp.analysis.{m}" for m in ("bounds", "gaps", "peaks", "roofline", "series", "side_bounds")} \
        | {"neuroncmp.analysis", "neuroncmp.comparison", "neuroncmp.comparison.result", "neuroncmp.comparison.bands"}
    assert {m for m in loaded if m.split(".")[1:2] in (["comparison"], ["analysis"])} - bounds == set()
    assert not {"neuroncmp.render.terminal.diff", "neuroncmp.commands.diff", "neuroncmp.cli.diff"} & loaded



STDLIB_PROBE = """
import io, json, sys
from neuroncmp.cli import main
absent = json.loads(sys.argv[2])
sys.argv = ["neuroncmp", *json.loads(sys.argv[1])]
sys.stdout = io.StringIO()
try:
    main()
except SystemExit:
    pass
sys.stdout = sys.__stdout__
print(json.dumps(sorted(m for m in absent if m in sys.modules)))
"""


@pytest.mark.parametrize("args, absent", [
    (["--help"], ["pkgutil"]),
    (["diff", str(RUN / "baseline.json"), str(RUN / "b32.json"), "--no-color"], ["pkgutil", "shutil"]),
])
def test_standard_library_modules_a_command_does_without(args, absent):
    result = subprocess.run([sys.executable, "-c", STDLIB_PROBE, json.dumps(args), json.dumps(absent)],
                            capture_output=True, text=True, cwd=ROOT, check=True)
    assert json.loads(result.stdout.strip().splitlines()[-1]) == []


def test_reading_a_comparison_result_does_not_load_the_parsers():
    # comparison.result's records and ingest.tool_notes are small; the package inits used to import
    # the differ and the loader (every parser) with them
    code = ("import sys, json; import neuroncmp.comparison.result, neuroncmp.ingest.tool_notes; "
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith(('neuroncmp.ingest.', "
            "'neuroncmp.comparison.')))))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    loaded = set(json.loads(result.stdout))
    assert "neuroncmp.comparison.result" in loaded and "neuroncmp.ingest.tool_notes" in loaded
    assert not {"neuroncmp.ingest.loader", "neuroncmp.ingest.registry", "neuroncmp.comparison.differ"} & loaded
    assert not any(m.startswith("neuroncmp.ingest.formats") for m in loaded)


def test_the_metrics_listing_loads_no_parser():
    loaded = package_modules("metrics", "--no-color")
    assert "neuroncmp.catalog" in loaded
    assert not any(m.startswith("neuroncmp.ingest.formats") or m == "neuroncmp.ingest.loader" for m in loaded)


@pytest.fixture(scope="module")
def small_store(tmp_path_factory):
    """A store of the bundled sweep's profiles, added through the CLI (what the store commands read)."""
    store = tmp_path_factory.mktemp("store") / "s"
    subprocess.run([sys.executable, "-m", "neuroncmp", "store", "add", "--store", str(store),
                    *sorted(str(p) for p in RUN.glob("*.json"))], capture_output=True, cwd=ROOT, check=True)
    return store


@pytest.mark.parametrize("command", [["regressions", "--no-color"], ["history", "total_time", "--no-color"],
                                     ["store", "ls", "--no-color"], ["store", "series-by"]])
def test_the_store_commands_load_no_parser_and_no_differ(small_store, command):
    # issue 23: they read the store and render its records; the term format loads the comparison's
    # view (render/terminal/diff.py) and DiffReport only for a comparison
    loaded = package_modules(*command, "--store", str(small_store))
    assert "neuroncmp.store.queries" in loaded and "neuroncmp.render.formats.term" in loaded  # it did run
    assert "neuroncmp.store.adding" not in loaded  # reading the store loads none of its writers' code
    assert sorted(m for m in loaded if m.startswith("neuroncmp.ingest")) == []
    assert not {"neuroncmp.comparison.differ", "neuroncmp.comparison.result", "neuroncmp.commands.documents",
                "neuroncmp.render.terminal.diff", "neuroncmp.analysis.sweep"} & loaded
