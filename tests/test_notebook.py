"""The example notebook runs top to bottom in a real kernel, shows HTML tables and a chart, stays
small, and its key numbers match the ones computed here from the raw files."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT, RUN

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
pytest.importorskip("matplotlib")

NOTEBOOK = ROOT / "examples" / "compare_batch_sizes.ipynb"
BATCH = {"b2": 2, "b4": 4, "baseline": 8, "b16": 16, "b32": 32, "b48": 48, "b64": 64}


def _raw(label):
    return next(iter(json.loads((RUN / f"{label}.json").read_text()).values()))


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    assert all(not cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code")  # stored clean
    workdir = tmp_path_factory.mktemp("notebook")  # outside the repository: the examples are package data
    nbclient.NotebookClient(notebook, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(workdir)}}).execute()
    return notebook


def test_every_cell_runs_and_shows_tables_and_a_chart(executed):
    kinds = [set(output.get("data", {})) for cell in executed.cells if cell.cell_type == "code"
             for output in cell.outputs]
    assert not any(o.output_type == "error" for c in executed.cells if c.cell_type == "code" for o in c.outputs)
    assert sum("text/html" in k for k in kinds) >= 4 and any("image/png" in k for k in kinds)


def test_stored_outputs_stay_under_200_kb(executed):
    size = len(json.dumps([cell.get("outputs", []) for cell in executed.cells]))
    assert size < 200_000, size


def test_key_numbers(executed):
    printed = next(o.text for c in executed.cells if c.cell_type == "code" for o in c.outputs
                   if o.output_type == "stream" and o.text.startswith("{"))
    numbers = json.loads(printed)
    xs, ys = list(BATCH.values()), [_raw(label)["total_time"] for label in BATCH]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)
    assert numbers["per_sample_ms"] == round(slope * 1e3, 3)
    assert numbers["fixed_ms"] == round((my - slope * mx) * 1e3, 2)
    assert numbers["knee"] == 16 and numbers["recommendation"] == "b64"
    assert numbers["mfu_b32"] == _raw("b32")["mfu_estimated_percent"]
    per_sample = (_raw("b32")["total_time"] / 32) / (_raw("baseline")["total_time"] / 8) - 1
    assert numbers["per_sample_time_change"] == round(per_sample, 4)
