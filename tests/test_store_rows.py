"""What the store keeps of a profile, row by row: every metric (Trainer and derived ones
included) with its value or text, unit, group and flags, and the run's tool versions. The
expected rows are read from the profile and the catalog here, not from the store's code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import RUN

from neuroncmp import catalog
from neuroncmp.ingest import load
from neuroncmp.store import Store

pytest.importorskip("duckdb")
pytest.importorskip("pyarrow")


def written(folder: Path) -> Path:
    """b32 with an uncatalogued counter, tool versions as text and a value out of its range."""
    (section, values), = json.loads((RUN / "b32.json").read_text()).items()
    values.update({"my_custom_counter": 7, "compiler_version": "2.23.6484.0+3b612583",
                   "runtime_version": "2.30.51", "dma_active_time_percent": 1.7})
    path = folder / "b32-extra.json"
    path.write_text(json.dumps({section: values}))
    return path


def expected_rows(path: Path) -> dict[str, tuple]:
    """metric -> (value, text, unit, group, flags), from the loaded profile and the catalog."""
    (profile,) = load(path)
    rows = dict(profile.metrics)
    for name, metric in profile.training.items():
        rows.setdefault(name, metric)
    added = {**profile.values.memory, **profile.values.derived}
    derived = set(added) - set(rows)
    rows.update((name, added[name]) for name in sorted(derived, key=list(added).index))
    out = {}
    for name, metric in rows.items():
        codes = [a.code for a in profile.anomalies if a.metric == name]
        flags = list(dict.fromkeys(codes))
        flags += ["uncatalogued"] if not catalog.lookup(name).catalogued else []
        flags += ["derived"] if name in derived else []
        text = metric.value if isinstance(metric.value, str) else None
        out[name] = (None if text is not None else float(metric.value), text, metric.unit, metric.group, flags)
    return out


def plain(value: object) -> object:
    """A frame's missing cell (NaN, None) as None."""
    import pandas as pd

    return None if pd.isna(value) else value


def rows_of(frame) -> dict[str, tuple]:
    return {row.metric: (plain(row.value), plain(row.text), row.unit, row.group, list(row.flags))
            for row in frame.itertuples(index=False)}


def stored_rows(store: Store) -> dict[str, tuple]:
    return rows_of(store.table("metrics"))


def test_every_metric_row_is_kept_with_its_flags(tmp_path):
    path = written(tmp_path)
    store = Store(tmp_path / "s")
    store.add(path)
    stored, expected = stored_rows(store), expected_rows(path)
    assert list(stored) == list(expected)  # the profile's order: its metrics, then derived ones
    assert stored == expected
    # the facts the rows must show, stated plainly
    assert stored["my_custom_counter"][4] == ["uncatalogued"]
    assert stored["compiler_version"][:2] == (None, "2.23.6484.0+3b612583")
    assert stored["total_time"][:2] == (0.1147, None)
    assert any("derived" in row[4] for row in stored.values())
    assert stored["dma_active_time_percent"][4] == ["out-of-range", "share-mismatch"]  # 1.7 of the step


def test_the_run_row_keeps_the_tool_versions_as_text(tmp_path):
    path = written(tmp_path)
    store = Store(tmp_path / "s")
    store.add(path)
    versions = dict(store.table("runs").versions.item())
    (values,) = json.loads(path.read_text()).values()
    assert versions == {k: v for k, v in values.items() if k.endswith("_version") and isinstance(v, str)}
    assert versions["compiler_version"] == "2.23.6484.0+3b612583" and len(versions) == 5  # 3 of b32's own


def test_runs_of_several_formats_in_one_add_keep_their_own_rows(tmp_path):
    """One add of profiles with different lists of metrics: each run's rows are its own."""
    path = written(tmp_path)
    files = [path, RUN / "b16.json", RUN / "b32-cc-optim.json"]
    store = Store(tmp_path / "s")
    report = store.add(*files)
    frame = store.table("metrics")
    for run, file in zip(report.runs, files):
        assert rows_of(frame[frame.run == run.run]) == expected_rows(file)
