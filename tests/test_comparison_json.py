"""The comparison JSON (``neuroncmp.comparison/3``): each fact once, laid out by json's C encoder.

The values asserted are read from the bundled profiles with ``json`` here, not from the comparison.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from neuroncmp.choices import ABSENT, ADDED, BETTER, NEUTRAL, REMOVED, SUSPECT, UNCHANGED, WORSE
from neuroncmp.cli import cli
from neuroncmp.comparison.result import Delta, Deltas
from neuroncmp.render.changes import change_with_mark, changes_once
from neuroncmp.render.json_out import dumps, laid_out

RUN = Path(__file__).parent.parent / "neuroncmp" / "examples" / "trn1-2xlarge-bs-sweep"
FILES = ("baseline.json", "b32.json", "b64.json")


def _block(name: str) -> dict:
    return next(iter(json.loads((RUN / name).read_text()).values()))


@pytest.fixture(scope="module")
def document() -> tuple[dict, str]:
    result = CliRunner().invoke(cli, ["diff", *(str(RUN / f) for f in FILES), "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output), result.output


def test_a_row_states_its_baseline_once_and_a_column_per_variant(document):
    data, _ = document
    assert data["schema"] == "neuroncmp.comparison/3"
    assert [side["label"] for side in data["variants"]] == ["b32", "b64"]
    base, b32, b64 = (_block(name) for name in FILES)
    row = next(r for r in data["rows"] if r["metric"] == "total_time")
    assert row["baseline"]["step"] == base["total_time"] == 0.05378
    assert row["step"]["value"] == [b32["total_time"], b64["total_time"]]
    # per sample: the baseline's batch size is inferred as 8 (a warning says so), the variants' stated
    assert row["baseline"]["sample"] == pytest.approx(0.05378 / 8)
    assert row["sample"]["value"] == pytest.approx([b32["total_time"] / 32, b64["total_time"] / 64])
    assert row["shown_basis"] == "sample" and row["display_unit"] == "ms"
    assert row["baseline"]["display"] == "6.723 ms" and row["display"] == ["3.584 ms", "3.069 ms"]
    assert row["sample"]["verdict"] == ["better", "better"] and row["change"] == ["-46.7% ✔", "-54.3% ✔"]
    assert row["step"]["verdict"] == ["context", "context"]  # per step under a per-sample row: not scored
    assert (row["baseline"]["n"], row["n"]) == (1, [1, 1])


def test_every_column_has_one_entry_per_variant_and_nothing_repeats_per_cell(document):
    data, _ = document
    variants = len(data["variants"])
    for row in data["rows"]:
        columns = [row["n"], row["display"], row["change"], *row["step"].values()]
        columns += list(row["sample"].values()) if row["sample"] is not None else []
        assert all(len(column) == variants for column in columns), row["metric"]
        assert set(row["baseline"]) == {"step", "sample", "display", "n", "spread"}
        assert "cells" not in row
    # columns that are null for one capture per side and unflagged inputs are left out
    assert not any("spread" in row or "p_value" in row["step"] for row in data["rows"])
    suspect = [row["metric"] for row in data["rows"] if "suspect" in row]
    assert suspect == ["throttle_avg_util_limit_nc0_percent", "throttle_periodic_avg_util_limit_nc0_percent"]


def test_an_intensive_metric_has_no_per_sample_values(document):
    data, _ = document
    row = next(r for r in data["rows"] if r["metric"] == "mfu_estimated_percent")
    assert row["sample"] is None and row["baseline"]["sample"] is None
    assert row["step"]["value"] == [_block(name)["mfu_estimated_percent"] for name in FILES[1:]] == [0.2039, 0.2381]
    assert row["display"] == ["20.39 %", "23.81 %"]  # a fraction, read as such, shown in %


def test_the_headline_is_columns_like_the_rows(document):
    data, _ = document
    line = next(item for item in data["headline"] if item["label"] == "throughput (device)")
    assert line["value"] == ["279.0 samples/s", "325.8 samples/s"] and line["verdict"] == ["better", "better"]
    assert line["change"] == ["+87.6% ✔", "+119% ✔"] and line["baseline"] == "148.8 samples/s"


def test_the_document_is_indented_at_the_top_and_a_line_per_row(document):
    data, text = document
    lines = text.splitlines()
    assert lines[0] == "{" and lines[1] == '  "schema": "neuroncmp.comparison/3",' and lines[-1] == "}"
    rows = lines[lines.index('  "rows": [') + 1:-2]
    assert len(rows) == len(data["rows"]) and all(line.startswith('    {"metric": ') for line in rows)


def test_the_500_variant_document_is_small(tmp_path):
    """Schema /2 wrote 39 MB for 500 variants (a dict per cell, the baseline in each); /3 about 6 MB.
    Measured here for 40 variants: the size per variant is what matters."""
    block = _block("b32.json")
    paths = [str(RUN / "b32.json")]
    for index in range(40):
        nudged = {k: v * (1 + index / 1000) if isinstance(v, float) else v for k, v in block.items()}
        path = tmp_path / f"v{index:03d}.json"
        path.write_text(json.dumps({f"n_{index}": nudged}))
        paths.append(str(path))
    out = tmp_path / "out.json"
    result = CliRunner().invoke(cli, ["diff", *paths, "-o", str(out)])
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    rows = sum(len(line) for line in out.read_text().splitlines() if line.startswith('    {"metric": '))
    assert rows / (len(data["rows"]) * 40) < 90  # bytes per cell; /2 wrote about 530


# ---- the layout ----------------------------------------------------------------------------------

JSONS = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5)
                     | st.floats(allow_nan=True, allow_infinity=True),
                     lambda inner: (st.lists(inner, max_size=4)
                                    | st.dictionaries(st.text(max_size=4), inner, max_size=4)),
                     max_leaves=20)


@given(JSONS, st.integers(min_value=0, max_value=3))
def test_laid_out_is_the_same_json_as_dumps(data, levels):
    """Whitespace aside, the layout writes what ``dumps`` writes, non-finite numbers included."""
    text = laid_out(data, levels)
    assert text.endswith("\n") and json.loads(text) == json.loads(dumps(data))


def test_laid_out_indents_the_given_levels_only():
    data = {"a": [1, {"b": [2]}], "c": {}, "d": {"e": float("inf")}}
    assert laid_out(data) == ('{\n  "a": [\n    1,\n    {"b": [2]}\n  ],\n  "c": {},\n'
                              '  "d": {\n    "e": null,\n    "non_finite": {"e": "Infinity"}\n  }\n}\n')
    assert laid_out(data, 0) == dumps(data) + "\n"
    assert laid_out({3: True, "x": "ü"}) == '{\n  "3": true,\n  "x": "ü"\n}\n'  # keys as json writes them


# ---- the change texts, remembered ----------------------------------------------------------------

VERDICTS = (BETTER, WORSE, UNCHANGED, NEUTRAL, SUSPECT, ADDED, REMOVED, ABSENT)
VALUES = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-10**15, 10**15),
                   st.sampled_from([0.0, -0.0, 5e-324, 1e308, -1e308, 0.5, 0.50095, 1.0]))


def _delta(b: float, v: float, fraction: bool, verdict: str, p_value: float | None, in_band: bool) -> Delta:
    """A delta as the differ makes one from two numbers (comparison/cell_rules.py ``delta_of``)."""
    change = v - b
    return Delta("step", b, v, change, change / b if b else None, change * 100 if fraction else None,
                 v / b if b else None, verdict, p_value, in_band)


@given(st.lists(st.tuples(VALUES, VALUES, st.booleans(), st.sampled_from(VERDICTS),
                          st.one_of(st.none(), st.floats(0, 1)), st.booleans()), max_size=30))
def test_remembered_change_texts_are_the_written_ones(changes):
    deltas = [_delta(*change) for change in changes] + [Delta("step", None, 1.0, None, None, None, None, ADDED),
                                                         Delta("step", "a", "b", None, None, None, None, NEUTRAL)]
    deltas += deltas[::-1]
    without_p = [delta._replace(p_value=None) for delta in deltas]  # no p-value (one capture a side): read at once
    for some in (deltas, without_p):
        columns = Deltas.of("step", None, some)  # each delta's own baseline is not read by its change text
        assert changes_once(columns) == [change_with_mark(delta) for delta in some]


def test_a_relative_change_of_minus_zero_is_not_taken_for_plus_zero():
    """The one pair of equal keys that read differently: a change so small against so large a
    baseline that the relative change underflows to -0.0 or 0.0 (-0.00% and +0.00%)."""
    up = _delta(1e308, 1e308 + 5e-324, False, UNCHANGED, None, False)._replace(delta=5e-324, relative=5e-324 / 1e308)
    down = up._replace(baseline=-1e308, relative=5e-324 / -1e308)
    assert (math.copysign(1, up.relative), math.copysign(1, down.relative)) == (1, -1)
    for pair in ([up, down], [down, up], [up, up._replace(p_value=0.5)]):
        assert changes_once(Deltas.of("step", None, pair)) == [change_with_mark(delta) for delta in pair]
    assert change_with_mark(up) != change_with_mark(down)
