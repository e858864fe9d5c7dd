"""The Markdown of ``diff`` and ``regressions`` as GitHub shows it: rendered by cmark-gfm (GitHub's
own Markdown library) and read back as HTML tables, so a cell that breaks, a table that is not
one, or a fold that swallows its table fails here, not in a pull request."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import ROOT, RUN
from html_tables import Tables

from neuroncmp.cli import cli

cmarkgfm = pytest.importorskip("cmarkgfm")
from cmarkgfm.cmark import Options  # noqa: E402  (after importorskip: the test is skipped without it)


def gfm(markdown: str) -> str:
    """HTML as GitHub renders it (raw HTML allowed: GitHub keeps ``<details>`` and ``<sub>``)."""
    return cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)


def tables_of(markdown: str) -> Tables:
    parser = Tables()
    parser.feed(gfm(markdown))
    return parser


def run(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, result.output
    return result.output


ODD = ("base|line", "b`32`|x\ny")  # what breaks a table cell: a pipe, backticks, a newline


@pytest.fixture(scope="module")
def odd_labels() -> str:
    """The Markdown of baseline vs b32 under labels that would break a table cell if not escaped."""
    import dataclasses

    import neuroncmp
    from neuroncmp.comparison.differ import compare
    from neuroncmp.comparison.view import select
    from neuroncmp.render import registry
    from neuroncmp.render.base import DiffReport

    profiles = [dataclasses.replace(neuroncmp.load(RUN / name)[0], label=label)
                for name, label in zip(("baseline.json", "b32.json"), ODD, strict=True)]
    comparison = compare(profiles)
    return registry.by_name("md").diff(DiffReport(comparison, select(comparison)))


def test_diff_markdown_is_a_headline_table_with_the_full_table_folded_under_it(odd_labels):
    found = tables_of(odd_labels)
    headline, *full = found.tables
    assert not found.folded[0] and full and all(found.folded[1:])  # the headline above the fold
    assert found.summaries and found.summaries[0].startswith("All metrics")
    # each label is one header cell, its pipe and backticks as written, its newline shown as \n
    assert headline[0] == ["", "base|line", "b`32`|x\\ny"]
    for table in found.tables:
        assert all(len(row) == 3 for row in table), "a cell broke a row"
    rows = {row[0]: row for row in headline}
    # total_time from the two files: 0.05378 s and 0.1147 s; +113 % (0.1147 / 0.05378 - 1 = 1.133)
    assert rows["step time (device)"][1:] == ["53.78 ms", "114.7 ms (+113%)"]
    # per sample (batch 8 inferred, 32 stated): 6.7225 ms -> 3.584 ms, better, read without colour
    per_sample = rows["time per sample (device)"]
    assert per_sample[1] == "6.723 ms" and per_sample[2].startswith("3.584 ms (-46.7%")
    assert per_sample[2].endswith("better)")


def test_diff_markdown_names_every_metric_row_in_the_folded_table(odd_labels):
    found = tables_of(odd_labels)
    names = {row[0] for table in found.tables[1:] for row in table[1:]}
    raw = {**next(iter(json.loads((RUN / "b32.json").read_text()).values()))}
    # every numeric metric of the b32 file is a row (per sample or per step), in its own cell
    shown = {name.split(" ")[0].removesuffix("/sample") for name in names}
    assert {key for key, value in raw.items() if isinstance(value, (int, float))} <= shown


@pytest.fixture(scope="module")
def shifted_store(tmp_path_factory) -> Path:
    """60 generated runs with total_time 5 % slower and MFU 5 % lower from run 40, tagged with a
    model name holding a pipe and a backtick."""
    pytest.importorskip("duckdb")
    pytest.importorskip("pyarrow")
    sys.path.insert(0, str(ROOT / "scripts"))
    import make_history

    from neuroncmp.store import Store

    folder = tmp_path_factory.mktemp("history")
    make_history.generate(folder, 60, seed=5,
                          shifts={"total_time": (40, 0.05), "mfu_estimated_percent": (40, -0.05)})
    listing = folder / "runs.csv"
    listing.write_text(listing.read_text().replace("bert-large", "bert|large`x"))
    Store(folder / "store").add_listing(listing)
    return folder / "store"


def test_regressions_markdown_lists_the_planted_shifts_as_a_table(shifted_store):
    markdown = run("regressions", "--store", str(shifted_store), "--format", "md")
    found = tables_of(markdown)
    (table,) = found.tables  # five shifts at most: all in the headline table, nothing to fold
    header, *rows = table
    assert header[:3] == ["verdict", "metric", "series"] and len(header) == 11
    assert header[-1] == "first new run" and all(len(row) == 11 for row in rows)
    # the two planted shifts, achieved_flop_rate = model_flops / total_time falling with them, and
    # some of what the generator derives from total_time (the cycle count, active-time shares)
    import make_history  # (the fixture put scripts/ on the path)

    implied = make_history.synthetic.relations(make_history.base_metrics(make_history.BASE)[1]).moved_by({"total_time"})
    planted = {"total_time", "mfu_estimated_percent", "achieved_flop_rate"}
    assert planted <= {row[1] for row in rows} <= planted | implied
    assert all(row[0] == "✘ worse" for row in rows)
    assert {row[2] for row in rows} == {"instance=trn1.2xlarge model=bert|large`x"}


def test_regressions_markdown_folds_the_full_table_under_the_worst(shifted_store, monkeypatch):
    from neuroncmp.render.formats import md

    monkeypatch.setattr(md, "HEADLINE_CHANGES", 2)  # more shifts with --all-changes: two above the fold
    markdown = run("regressions", "--store", str(shifted_store), "--format", "md", "--all-changes")
    changes = json.loads(run("regressions", "--store", str(shifted_store), "--format", "json",
                             "--all-changes"))["changes"]
    assert len(changes) > 2
    found = tables_of(markdown)
    assert found.folded == [False, True] and found.summaries == [f"All {len(changes)} changes"]
    metrics = [c["metric"] for c in changes]
    assert [row[1] for row in found.tables[0][1:]] == metrics[:2]
    assert [row[1] for row in found.tables[1][1:]] == metrics


def test_no_regressions_is_a_sentence_not_an_empty_table(shifted_store):
    late = "2099-01-01T00:00:00Z"
    markdown = run("regressions", "--store", str(shifted_store), "--format", "md", "--since", late)
    assert "0 changes for the worse" in gfm(markdown) and not tables_of(markdown).tables
