"""Contract: every registered output format renders the same comparison, with the same numbers;
a new format is one new class, registered without touching any other module."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner
from conftest import RUN

import neuroncmp
from neuroncmp.cli import cli
from neuroncmp.comparison.differ import compare
from neuroncmp.comparison.gates import evaluate, parse_rule
from neuroncmp.comparison.view import select
from neuroncmp.render import registry
from neuroncmp.render.base import DiffReport, Renderer

FORMATS = registry.names("diff")


@pytest.fixture(scope="module")
def report():
    profiles = [neuroncmp.load(RUN / f)[0] for f in ("baseline.json", "b32.json", "b64.json")]
    comparison = compare(profiles)
    return DiffReport(comparison, select(comparison), evaluate(comparison, [parse_rule("total_time/step>+5%")]))


def test_the_five_formats_are_registered():
    assert FORMATS == ["term", "md", "json", "csv", "html"]
    assert registry.names("profiles") == ["term", "json"]
    assert registry.names("history") == ["term", "json", "png"]
    assert registry.names("regressions") == ["term", "md", "json"]
    assert registry.names("formats") == ["term", "json"]  # neuroncmp formats, through the registry too
    assert registry.by_name("table", "profiles") is registry.by_name("term")  # show --format table


@pytest.mark.parametrize("name", ["__pycache__", "os.path", "../term", "registry", "TERM", "json_", ""])
def test_a_name_that_is_no_format_is_refused(name):
    # by_name imports the format's own module without listing the folder; these name none
    with pytest.raises(neuroncmp.UsageError, match="unknown output format"):
        registry.by_name(name)


@pytest.mark.parametrize("name", FORMATS)
def test_every_format_renders_the_comparison(report, name):
    renderer = registry.by_name(name)
    text = renderer.render("diff", report, 100)
    assert isinstance(text, str) and text.endswith("\n")
    assert renderer.extensions and all(ext.startswith(".") for ext in renderer.extensions)
    assert registry.for_output(f"out{renderer.extensions[0]}") is renderer
    # the same MFU change and the tripped gate, in every format
    assert "mfu_estimated_percent" in text
    mfu = "0.2039" if name in ("json", "csv") else "20.39"
    assert mfu in text
    assert "total_time/step&gt;+5%" in text if name == "html" else "total_time/step>+5%" in text


@pytest.fixture(scope="module")
def documents(report, tmp_path_factory):
    """One value of every document the CLI renders: the diff above, two profiles, the bundled
    sweep, catalog entries, and a history and regressions from a small store of the sweep."""
    pytest.importorskip("duckdb")
    from neuroncmp.analysis.sweep import sweep
    from neuroncmp.catalog import listing
    from neuroncmp.render.base import HistoryReport, RegressionsReport
    from neuroncmp.store import Store

    store = Store(tmp_path_factory.mktemp("store") / "s")
    store.add(RUN)
    profiles = neuroncmp.load(RUN / "b32.json") + neuroncmp.load(RUN / "b64.json")
    return {"diff": report, "profiles": profiles, "sweep": sweep(neuroncmp.load(RUN)),
            "metrics": listing("mfu*"), "history": HistoryReport(store.history("total_time")),
            "regressions": RegressionsReport(store.regressions(all_changes=True), "s")}


DOCUMENTS = ("diff", "profiles", "sweep", "metrics", "history", "regressions")


@pytest.mark.parametrize("document", DOCUMENTS)
def test_every_format_that_claims_a_document_renders_it(documents, document):
    """Each format registered for a document renders it: text ends with a newline, JSON parses,
    an image is a PNG; and at least the terminal and JSON formats claim every document."""
    claimed = registry.names(document)
    assert {"term", "json"} <= set(claimed)
    for name in claimed:
        renderer = registry.by_name(name, document)
        if renderer.kind == "image":
            pytest.importorskip("matplotlib")
            assert renderer.render(document, documents[document], 100)[:8] == b"\x89PNG\r\n\x1a\n"
            continue
        text = renderer.render(document, documents[document], 100)
        assert isinstance(text, str) and text.endswith("\n"), (name, document)
        if name == "json":
            json.loads(text)


def test_the_json_carries_the_same_numbers_as_the_result(report):
    data = json.loads(registry.by_name("json").diff(report))
    row = next(r for r in data["rows"] if r["metric"] == "total_time")
    deltas = [cell.sample for cell in report.comparison.row("total_time").cells]
    assert row["baseline"]["sample"] == deltas[0].baseline
    assert row["sample"]["value"] == [delta.variant for delta in deltas]


class Rows(Renderer):
    """A sixth format, defined here: one metric name and verdict per line."""

    name, extensions, description = "rows", (".rows",), "metric names and verdicts"

    def diff(self, report: DiffReport, width: int = 100) -> str:
        return "".join(f"{row.name} {row.cells[0].shown(report.comparison.basis).verdict}\n"
                       for row in report.view.rows)


def test_a_sixth_format_is_one_class(tmp_path):
    registry.register(Rows())
    try:
        assert "rows" in registry.names("diff")
        result = CliRunner().invoke(cli, ["diff", str(RUN / "baseline.json"), str(RUN / "b32.json"),
                                          "--format", "rows", "--metric", "mfu_estimated_percent"])
        assert result.exit_code == 0 and result.output == "mfu_estimated_percent better\n"
        out = tmp_path / "diff.rows"
        result = CliRunner().invoke(cli, ["diff", str(RUN / "baseline.json"), str(RUN / "b32.json"),
                                          "-o", str(out), "--metric", "total_time"])
        assert result.exit_code == 0 and out.read_text() == "total_time better\n"
    finally:
        registry.unregister("rows")
    assert "rows" not in registry.names("diff")


def test_unknown_format_is_a_usage_error():
    result = CliRunner().invoke(cli, ["diff", str(RUN / "baseline.json"), str(RUN / "b32.json"),
                                      "--format", "xlsx"])
    assert result.exit_code == 2 and "unknown output format 'xlsx'" in result.output


def test_markdown_leads_with_the_headline_and_lists_warnings(report):
    text = registry.by_name("md").diff(report)
    assert text.index("### Headline") < text.index("**Warnings**") < text.index("<details>")
    warnings = text.split("**Warnings**", 1)[1].split("\n\n", 2)[1].splitlines()
    assert len(warnings) == len(report.comparison.warnings) and all(w.startswith("- ") for w in warnings)


def test_html_folds_the_full_table_under_the_headline(report):
    text = registry.by_name("html").diff(report)
    assert text.index("throughput (device)") < text.index("<details><summary>All metrics")


def test_html_per_step_lines_name_their_unit(report):
    """HTML writes bare numbers with the unit in the row's name; its per-step lines had none, though
    their unit is their own: spill reload per sample in MiB, per step in GiB (the baseline's
    spill_reload_bytes as the file writes it, over 2**30)."""
    text = registry.by_name("html").diff(report)
    rows = re.findall(r'<td class="m"[^>]*>([^<]*)</td><td>([^<]*)</td>', text)
    names = [name for name, _ in rows]
    at = names.index("spill_reload_bytes/sample [MiB]")
    (raw,) = json.loads((RUN / "baseline.json").read_text()).values()  # its one node, per step
    assert rows[at + 1] == ("\u00a0\u00a0per step [GiB]", f"{raw['spill_reload_bytes'] / 2**30:#.4g}")
    steps = [name for name in names if "per step" in name]
    assert steps and all(re.fullmatch(r"\u00a0\u00a0per step( \[.+\])?", name) for name in steps)
    # every per-step line with a unit says it: a unit-less one is a count (event_count's)
    assert "\u00a0\u00a0per step [ms]" in steps


def test_every_result_object_has_a_short_repr(report):
    comparison = report.comparison
    row = comparison.row("total_time")
    for value in (comparison, report, report.view, comparison.baseline, row, row.cells[0],
                  row.cells[0].step, report.gates[0]):
        assert len(repr(value)) < 400 and len(str(value)) < 400, type(value).__name__
