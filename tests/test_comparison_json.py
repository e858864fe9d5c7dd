"""The comparison JSON (``neuroncmp.comparison/3``): each fact once, laid out by json's C encoder.

The values asserted are read from the bundled profiles with ``json`` here, not from the comparison.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from neuroncmp.cli import cli
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


