"""The terminal reads a row's deltas as columns (``Line.columns``, ``changes_with_marks``): the same
values, changes and marks as the ``Delta`` records ``Line.deltas`` makes, in every basis a line
can be shown in, with repeated captures (a ``?`` mark) and with a side that has no batch size."""

from __future__ import annotations

import json

import pytest
from conftest import RUN

import neuroncmp
from neuroncmp.comparison.differ import compare
from neuroncmp.render.changes import change_with_mark, changes_with_marks
from neuroncmp.render.rows import line


def _block(name: str) -> dict:
    return next(iter(json.loads((RUN / name).read_text()).values()))


def _written(tmp_path, folder: str, label: str, block: dict) -> neuroncmp.Profile:
    path = tmp_path / folder / f"{label}.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps({f"n_{label}": block}))
    return neuroncmp.load(path)[0]


@pytest.fixture(scope="module")
def comparisons(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("columns")
    b16, b32 = _block("b16.json"), _block("b32.json")
    unknown = _written(tmp, "x", "no-size", dict(b32, total_time=b32["total_time"] * 1.3))  # no batch size
    sweep = neuroncmp.load_many([RUN / "b16.json", RUN / "b32.json"])
    repeated = ([_written(tmp, f"r{i}", "b16", dict(b16, total_time=t)) for i, t in enumerate((0.10, 0.14, 0.12))],
                [_written(tmp, f"r{i}", "b32", dict(b32, total_time=t)) for i, t in enumerate((0.11, 0.15, 0.13))])
    return [compare(*sweep), compare(*sweep, unknown), compare(*repeated)]


def test_a_lines_columns_are_its_deltas(comparisons):
    checked = 0
    for comparison in comparisons:
        for row in comparison.rows:
            for basis in ("step", "sample"):  # "sample" too where a side has none: the mixed case
                shown = line(row, basis)
                columns, deltas = shown.columns(), shown.deltas
                # each variant's fields (a mixed line's records keep their own basis and baseline)
                assert [tuple(columns.made(i))[2:] for i in range(len(deltas))] == [tuple(d)[2:] for d in deltas]
                assert shown.values(columns) == [shown.baseline] + [delta.variant for delta in deltas]
                for sep in ("", " "):
                    assert changes_with_marks(columns, sep) == [change_with_mark(d, sep) for d in deltas]
                checked += 1
    assert checked > 300


def test_the_cases_are_there(comparisons):
    plain, mixed, repeated = comparisons
    row = mixed.row("total_time")
    assert row.sample is not None and None in row.sample.verdict  # a side without a batch size
    assert line(row, "sample").columns() is not row.sample
    assert any(d.not_significant for r in repeated.rows for d in line(r, "step").deltas)
    assert line(plain.row("total_time"), "sample").columns() is plain.row("total_time").sample
