"""Golden files: the output of `neuroncmp diff` and `neuroncmp sweep` on the bundled sweep, fixed width, no
colour, each small enough to review line by line.

The diff goldens (``diff.*``, one per output format) compare three profiles on the sixteen metrics in
``METRICS``, chosen so that every kind of row and mark appears once. The whole sweep (eight profiles, every
metric) is held by value: ``sweep-values.tsv`` is one line per metric with the baseline and each variant's
value and change as the JSON report prints them, and ``test_every_format_carries_the_whole_sweep`` checks
that each format holds the same rows and numbers as that JSON.

Refresh with `python -m pytest tests/test_golden.py --update-golden` and review the diff like code.
"""

from __future__ import annotations

import csv
import io
import json

import pytest
from click.testing import CliRunner
from conftest import ROOT, VARIANT_FILES

from neuroncmp.cli import cli

GOLDEN = ROOT / "tests" / "golden"
SWEEP = [f"profiles/trn1-2xlarge-bs-sweep/{name}" for name in VARIANT_FILES]
# baseline (batch size inferred, two anomalies), b4 (no memory table), b32 (Trainer and host memory files)
THREE = [SWEEP[0], SWEEP[2], SWEEP[4]]
METRICS = [
    "device_throughput",                          # derived, higher is better: ✘ at b4, ✔ at b32
    "trainer_step_time",                          # derived from the Trainer's file: new at b32
    "total_time",                                 # extensive: per sample, its per-step line under it
    "mfu_estimated_percent",                      # a fraction, changes in points
    "spill_reload_share",                         # derived fraction, lower is better
    "dma_queue_count",                            # a count within its band: =, a flat trend
    "hbm_read_bytes",                             # bytes, MiB per sample and GiB per step
    "vector_engine_active_time_percent",          # no better direction: ~
    "throttle_avg_util_limit_nc0_percent",        # 109.7 % in the baseline: suspect, !
    "throttle_periodic_active_time_nc0_percent",  # in the baseline only: gone
    "memory.dram_spill",                          # the memory table: 0 B, gone at b4
    "device_memory_total",                        # memory across batch sizes: not scored
    "host_used_memory_total",                     # in b32's sidecar only: new
    "eval_samples_per_second",                    # the Trainer's eval throughput
    "compiler_version",                           # text: identical metadata (the terminal counts it)
    "nc_idx",                                     # an index
]
THREE_METRICS = [*THREE, *(arg for name in METRICS for arg in ("--metric", name))]
SWEEPS = {  # neuroncmp sweep on the bundled run folder
    "sweep-analysis.txt": ["profiles/trn1-2xlarge-bs-sweep/", "--width", "100", "--no-color",
                           "--price-per-hour", "1.34"],
    "sweep-analysis.md": ["profiles/trn1-2xlarge-bs-sweep/", "--format", "md"],
}
CASES = {
    "diff.txt": [*THREE_METRICS, "--format", "term", "--width", "100", "--no-color", "--all"],
    "baseline-b32.txt": [SWEEP[0], SWEEP[4], "--width", "100", "--no-color"],  # the default: one screen
    "diff.md": [*THREE_METRICS, "--format", "md"],
    "diff.json": [*THREE_METRICS, "--format", "json"],
    "diff.csv": [*THREE_METRICS, "--format", "csv"],
    "diff.html": [*THREE_METRICS, "--format", "html"],
    "baseline-b32-changed.txt": [SWEEP[0], SWEEP[4], "--only-changed", "--sort", "change",
                                 "--width", "100", "--no-color",
                                 "--fail-on", "mfu_estimated_percent<-2pp"],
}


def run(monkeypatch, *args: str) -> str:
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("COLUMNS", "100")
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def check(name: str, text: str, update_golden: bool) -> None:
    """``text`` is the golden file ``name``; a JSON document is kept one value a line (the report
    writes a side's bounds on one line of 8 KB) and compared as the values it holds."""
    path = GOLDEN / name
    if name.endswith(".json"):
        document = json.loads(text)
        text = json.dumps(document, indent=1, ensure_ascii=False) + "\n"
    if update_golden:  # rewrite, then review `git diff tests/golden` like code: never compared here
        path.write_text(text)
        pytest.skip(f"rewrote {path.name}; review the diff")
    if name.endswith(".json"):
        assert document == json.loads(path.read_text())
    else:
        assert text == path.read_text()


@pytest.mark.parametrize("name", sorted(CASES) + sorted(SWEEPS))
def test_golden(name, monkeypatch, update_golden):
    args = ["diff", *CASES[name]] if name in CASES else ["sweep", *SWEEPS[name]]
    check(name, run(monkeypatch, *args), update_golden)


@pytest.fixture(scope="module")
def whole_sweep():
    """``diff --all`` of the eight profiles in each format: {format: output}."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        return {fmt: run(monkeypatch, "diff", *SWEEP, "--format", fmt, "--all", "--width", "100", "--no-color")
                for fmt in ("term", "md", "json", "csv", "html")}


def values_table(document: dict) -> str:
    """One line per metric: its name, the baseline's value, then each variant's value and change, as
    the JSON report displays them (the basis each row is shown on)."""
    labels = [variant["label"] for variant in document["variants"]]
    lines = ["\t".join(["metric", document["baseline"]["label"], *labels])]
    for row in document["rows"]:
        cells = [f"{value} {change}".strip() for value, change in zip(row["display"], row["change"])]
        lines.append("\t".join([row["metric"], row["baseline"]["display"] or "-", *cells]))
    return "\n".join(lines) + "\n"


def test_the_whole_sweeps_values(whole_sweep, update_golden):
    document = json.loads(whole_sweep["json"])
    assert len(document["variants"]) == 7 and len(document["rows"]) == 140  # every metric of the set
    check("sweep-values.tsv", values_table(document), update_golden)


def csv_rows(text: str) -> list[dict[str, str]]:
    """The CSV's records, after the warnings it leads with."""
    lines = text.splitlines(keepends=True)
    first = next(i for i, line in enumerate(lines) if line.startswith("metric,"))
    assert all(line.startswith("warning: ") for line in lines[:first])
    return list(csv.DictReader(io.StringIO("".join(lines[first:]))))


def written(value: object) -> str:
    return "" if value is None else str(value)


def expected_csv(document: dict) -> dict[tuple[str, str, str], dict[str, str]]:
    """(metric, basis, variant) -> the CSV fields the JSON report states: each row's values on each
    basis it has, with their verdict and whether that basis is the one shown; each side's bottleneck and
    bound gap (the JSON's ``bounds``)."""
    labels = [variant["label"] for variant in document["variants"]]
    expected = {}
    for row in document["rows"]:
        for basis in (basis for basis in ("step", "sample") if row[basis] is not None):
            for i, label in enumerate(labels):
                expected[row["metric"], basis, label] = {
                    "baseline": written(row["baseline"][basis]), "variant": written(row[basis]["value"][i]),
                    "verdict": row[basis]["verdict"][i], "shown": str(basis == row["shown_basis"])}
    baseline, *variants = document["bounds"]["sides"]
    for label, side in zip(labels, variants, strict=True):
        for metric, key in (("bottleneck", "bottleneck"), ("bound_gap", "gap")):
            expected[metric, "step", label] = {"baseline": written(baseline[key]), "variant": written(side[key])}
    return expected


def test_every_format_carries_the_whole_sweep(whole_sweep):
    """The CSV holds each JSON value at full precision, on the same basis and with the same verdict;
    the Markdown and HTML reports name every metric of the JSON, the terminal counts them."""
    document = json.loads(whole_sweep["json"])
    expected = expected_csv(document)
    found = {(r["metric"], r["basis"], r["variant_label"]): r for r in csv_rows(whole_sweep["csv"])}
    assert len(found) == 1386  # 7 variants x (140 metrics + 56 of them on a second basis + 2 bounds)
    assert found.keys() == expected.keys()
    assert {key: {field: found[key][field] for field in fields} for key, fields in expected.items()} == expected
    for fmt in ("md", "html"):
        assert [row["metric"] for row in document["rows"] if row["metric"] not in whole_sweep[fmt]] == [], fmt
    assert f"{len(document['rows'])} metric rows shown" in whole_sweep["term"]
