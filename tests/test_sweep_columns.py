"""A sweep column is declared once (``analysis/table.py``'s ``COLUMNS``): a new entry there reaches
every output that shows the sweep table, with its value, and nothing else has to change.

The CSV format has no sweep document (``neuroncmp sweep --format csv`` is refused), so the outputs
are the terminal, Markdown, HTML, JSON and the DataFrame.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

import pytest
from click.testing import CliRunner
from conftest import RUN

import neuroncmp
from neuroncmp import units as u
from neuroncmp.analysis import table
from neuroncmp.analysis.table import ENGINES, EVERY, MOVEMENT, THROUGHPUT, Column
from neuroncmp.cli import cli
from neuroncmp.render.sweep_data import ROW_KEYS
from neuroncmp.render.sweep_words import CELLS

AXIS = ("b2", "b4", "baseline", "b16", "b32", "b48", "b64")  # the bundled sweep, smallest batch first


def raw(label: str) -> dict:
    return next(iter(json.loads((RUN / f"{label}.json").read_text()).values()))


# Two made-up columns: one copies a metric the table does not show, one is computed from the point
# and the previous one (and so has no value at the first batch size).
SYNC = Column("sync", "sync", u.FRACTION, "sync_engine_active_time_percent", "sync_engine_active_time_percent",
              ENGINES, "change")
STEP_RATIO = Column("step_ratio", "vs prev", u.DIMENSIONLESS, "total_time / total_time at prev",
                    lambda at: at.point.get("total_time") / at.previous.get("total_time") if at.previous else None,
                    THROUGHPUT, "times")


def expected() -> dict[str, dict[str, tuple[float | None, str]]]:
    """Per column, per label: the value and the cell text, from the raw files by this test's own arithmetic."""
    sync = {label: (raw(label)["sync_engine_active_time_percent"],
                    f"{raw(label)['sync_engine_active_time_percent'] * 100:+.1f}") for label in AXIS}
    ratio: dict[str, tuple[float | None, str]] = {AXIS[0]: (None, "-")}
    for before, label in zip(AXIS, AXIS[1:]):
        value = raw(label)["total_time"] / raw(before)["total_time"]
        ratio[label] = (value, f"{value:.2f}x")
    return {"sync": sync, "step_ratio": ratio}


@pytest.fixture
def with_new_columns(monkeypatch):
    monkeypatch.setattr(table, "COLUMNS", (*table.COLUMNS, SYNC, STEP_RATIO))


def sweep_output(fmt: str) -> str:
    result = CliRunner().invoke(cli, ["sweep", str(RUN), "--format", fmt, "--width", "400", "--no-color"])
    assert result.exit_code == 0, result.output
    return result.output


def check_table(header: list[str], rows: list[list[str]], title: str, name: str) -> None:
    """The column titled ``title`` holds, row by row (smallest batch first), the expected cells."""
    index = header.index(title)
    assert [row[index] for row in rows] == [expected()[name][label][1] for label in AXIS]


def test_a_new_column_is_printed_in_its_block_in_the_terminal(with_new_columns):
    lines = sweep_output("term").splitlines()
    for heading, title, name, after in (("throughput", "vs prev", "step_ratio", "marginal %"),
                                        ("utilization", "sync %", "sync", "throttled %")):
        start = next(i for i, line in enumerate(lines) if line.startswith(heading))
        header = re.split(r"\s{2,}", lines[start + 1].strip())
        rows = [re.split(r"\s{2,}", line.strip()) for line in lines[start + 2:start + 2 + len(AXIS)]]
        check_table(header, rows, title, name)
        assert header.index(title) == header.index(after) + 1  # declared last: after the block's others
        if name == "sync":
            assert header[-3:] == ["bound by", "next", "if ideal"]  # still printed last: they end their block


def test_a_new_column_is_in_the_markdown_tables(with_new_columns):
    text = sweep_output("md")
    for heading, title, name in (("Throughput", "vs prev", "step_ratio"), ("Utilization", "sync %", "sync")):
        block = text.split(f"#### {heading}", 1)[1].split("\n\n")[1].splitlines()
        cells = [[cell.strip() for cell in line.strip().strip("|").split("|")] for line in block]
        check_table(cells[0], cells[2:], title, name)


class Tables(HTMLParser):
    """Every <table> of a page as rows of cell texts."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[list[str]]] = []
        self.cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self.cell = []

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None:
            self.tables[-1][-1].append("".join(self.cell))
            self.cell = None


def test_a_new_column_is_in_the_html_tables(with_new_columns):
    parser = Tables()
    parser.feed(sweep_output("html"))
    for title, name in (("vs prev", "step_ratio"), ("sync %", "sync")):
        (found,) = [rows for rows in parser.tables if rows and title in rows[0]]
        check_table(found[0], found[1:], title, name)


def test_a_new_column_is_in_the_json_with_its_formula_and_values(with_new_columns):
    data = json.loads(sweep_output("json"))
    assert data["columns"][-2:] == [
        {"name": "sync", "title": "sync", "unit": "fraction", "formula": "sync_engine_active_time_percent"},
        {"name": "step_ratio", "title": "vs prev", "unit": "dimensionless",
         "formula": "total_time / total_time at prev"}]
    for row, label in zip(data["table"], AXIS, strict=True):
        for name in ("sync", "step_ratio"):
            assert row[name] == pytest.approx(expected()[name][label][0])
        assert list(row)[-6:] == ["sync", "step_ratio", "label", "inferred", "bottleneck", "next_bound"]


def test_a_new_column_is_a_frame_column_with_its_values(with_new_columns):
    frame = neuroncmp.sweep(RUN).to_frame()
    assert list(frame.columns)[-2:] == ["sync", "step_ratio"]
    for name in ("sync", "step_ratio"):
        assert str(frame[name].dtype) == "float64"
        values = [expected()[name][label][0] for label in AXIS]
        assert frame[name].tolist()[1:] == pytest.approx(values[1:])
    assert frame["step_ratio"].isna().tolist()[0]  # no previous batch size


def test_csv_has_no_sweep_document():
    result = CliRunner().invoke(cli, ["sweep", str(RUN), "--format", "csv"])
    assert result.exit_code == 2 and "(known: term, md, json, html)" in result.output


def test_every_declared_column_is_printed_and_written():
    """Each column names a block the renderers print and a cell kind they know (else it would be
    silently left out of the printed tables); the JSON's row order names declared columns only."""
    names = [column.name for column in table.COLUMNS]
    assert len(set(names)) == len(names)
    assert {column.block for column in table.COLUMNS} == {EVERY, THROUGHPUT, ENGINES, MOVEMENT}
    assert all(column.cell in CELLS for column in table.COLUMNS)
    assert set(ROW_KEYS) == set(names)
