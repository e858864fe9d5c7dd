"""Results pickle: a notebook saves a Comparison or sends it to another process (joblib,
multiprocessing). Derived specs hold a function made inside the catalog, which pickle cannot
name; they travel as their name and come back as the catalog's own spec."""

from __future__ import annotations

import pickle
from pathlib import Path

import neuroncmp
from neuroncmp import catalog
from neuroncmp.comparison.differ import compare

RUN = Path(__file__).resolve().parent.parent / "profiles" / "trn1-2xlarge-bs-sweep"


def test_a_comparison_pickles_and_reads_back_the_same_numbers() -> None:
    profiles = neuroncmp.load_many([RUN / "baseline.json", RUN / "b16.json", RUN / "b32.json"])
    comparison = compare(*profiles)
    copy = pickle.loads(pickle.dumps(comparison))
    assert [row.name for row in copy.rows] == [row.name for row in comparison.rows]
    throughput = next(row for row in comparison.rows if row.name == "device_throughput")
    copied = next(row for row in copy.rows if row.name == "device_throughput")
    assert copied.values("sample") == throughput.values("sample")
    assert copied.values("step") == throughput.values("step") != []
    assert copied.spec is catalog.lookup("device_throughput")  # the catalog's own, compute included
    assert copied.spec.compute is not None


def test_a_derived_spec_comes_back_as_the_catalogs_and_others_field_by_field() -> None:
    derived = next(spec for spec in catalog.derived_specs())
    assert pickle.loads(pickle.dumps(derived)) is derived
    plain = catalog.lookup("total_time")
    assert pickle.loads(pickle.dumps(plain)) == plain
    unknown = catalog.lookup("made_up_counter_bytes")  # uncatalogued: a guessed spec, not in the catalog
    copied = pickle.loads(pickle.dumps(unknown))
    assert copied == unknown and copied.unit == "B" and not copied.catalogued


def test_a_sweep_pickles() -> None:
    profiles = neuroncmp.load_many([RUN / "baseline.json", RUN / "b16.json", RUN / "b32.json"])
    sweep = neuroncmp.sweep(profiles)
    copy = pickle.loads(pickle.dumps(sweep))
    assert type(copy) is type(sweep)
