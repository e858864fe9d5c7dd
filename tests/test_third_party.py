"""Real Neuron outputs published by other people (tests/data/third_party, provenance in SOURCES.md),
read with neuroncmp's own entry points and checked against values read from the files by hand
(expected.json). Issue 20: many of these fail today; each failing case is an xfail naming its defect
class, strict, so a reader fix flips it to a pass (and then the xfail entry must go)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

import neuroncmp
from neuroncmp.capture import oom
from neuroncmp.ingest.memory_types import canonical_usage

DATA = Path(__file__).parent / "data" / "third_party"
EXPECTED = json.loads((DATA / "expected.json").read_text(encoding="utf-8"))["files"]



# Test id -> reason, for a case today's readers are known to fail (strict xfail: it must fail).
# Empty since every defect class of issue 20 was fixed; a newly gathered file that exposes a
# defect gets its entry here, naming the defect, until a reader is fixed.
XFAIL: dict[str, str] = {}


def _param(case_id: str, *values):
    reason = XFAIL.get(case_id)
    marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
    return pytest.param(*values, id=case_id, marks=marks)


VALUE_CASES = [_param(f"{name}::{entry['name']}", name, entry)
               for name, spec in EXPECTED.items() for entry in spec["values"]]
REFUSED_CASES = [_param(f"{name}::refused-clearly", name)
                 for name, spec in EXPECTED.items() if spec["loader"] == "refuse"]
ANOMALY_CASES = [_param(f"{name}::no-anomaly", name)
                 for name, spec in EXPECTED.items() if spec["loader"] == "load"]


def _profiles(name: str):
    return neuroncmp.load(DATA / name)


def _close(found, expected, rel: float) -> bool:
    if isinstance(expected, str) or isinstance(found, str):
        return found == expected
    if found is None or isinstance(found, bool):
        return False
    return math.isclose(float(found), float(expected), rel_tol=rel, abs_tol=0.0)


_PINT_UNITS = {"s": "second", "B": "byte"}  # pint's own base for bytes is the bit: name the unit


def _base(metric, unit=None):
    """A metric's value in the expected unit, converted by pint for times and sizes (seconds,
    bytes); counts, FLOPs, cycles and fractions as stored; strings as they are."""
    if isinstance(metric.value, str):
        return metric.value
    if unit in _PINT_UNITS:
        return metric.quantity.to(_PINT_UNITS[unit]).magnitude
    return metric.value


def _found(profile, entry):
    name, where = entry["name"], entry["where"]
    if where == "metric":
        metric = profile.metrics.get(name)
        return None if metric is None else _base(metric, entry.get("unit"))
    if where == "training":
        metric = profile.training.get(name)
        return None if metric is None else _base(metric, entry.get("unit"))
    if where == "info":
        return profile.info(name)
    if where == "memory_total":
        return profile.memory_total()
    if where == "any":
        if name in profile.metadata:
            return profile.metadata[name]
        metric = profile.metrics.get(name) or profile.training.get(name)
        return None if metric is None else _base(metric, entry.get("unit"))
    raise AssertionError(f"unknown 'where' {where!r}")


def _oom_found(report, entry):
    if entry["where"] == "oom":
        return getattr(report, entry["name"])
    usage = canonical_usage(entry["name"])
    found = [dict(row.bytes_by_type).get(usage) for row in report.rows]
    return next((value for value in found if value is not None), None)


@pytest.mark.parametrize(("name", "entry"), VALUE_CASES)
def test_value_read_as_the_file_states_it(name, entry):
    if EXPECTED[name]["loader"] == "oom":
        report = oom.parse((DATA / name).read_text(encoding="utf-8"))
        assert report is not None
        found = _oom_found(report, entry)
        assert _close(found, entry["value"], entry["rel"]), (found, entry)
        return
    profiles = _profiles(name)
    if entry["where"] == "note_contains":
        notes = [note for p in profiles for note in p.notes]
        assert any(entry["value"] in note for note in notes), notes
        return
    found = [_found(p, entry) for p in profiles]
    assert any(_close(value, entry["value"], entry["rel"]) for value in found), (found, entry)


@pytest.mark.parametrize("name", ANOMALY_CASES)
def test_no_data_quality_flag_on_real_data(name):
    """No flag on real data, except the ones expected.json marks as true for that file."""
    flagged = sorted((a.code, a.metric) for p in _profiles(name) for a in p.anomalies)
    expected = sorted(tuple(pair) for pair in EXPECTED[name].get("anomalies_expected", []))
    assert flagged == expected


# What a refusal must name: the profile formats neuroncmp looked for (any spelling of each).
_LOOKED_FOR = (("summary",), ("neuron-monitor", "neuron monitor"), ("trainer", "train metrics"))


@pytest.mark.parametrize("name", REFUSED_CASES)
def test_a_file_with_no_profile_is_refused_naming_what_was_looked_for(name):
    with pytest.raises(neuroncmp.ParseError) as info:
        neuroncmp.load(DATA / name)
    message = str(info.value).lower()
    missing = [kinds[0] for kinds in _LOOKED_FOR if not any(kind in message for kind in kinds)]
    assert missing == [], (missing, str(info.value))


def test_every_file_in_the_folder_has_expected_values():
    on_disk = {str(p.relative_to(DATA)) for p in DATA.rglob("*")
               if p.is_file() and p.name not in {"expected.json", "SOURCES.md", "RELATIONS.md",
                                                 "check_relations.py"}}
    assert on_disk == set(EXPECTED)
