"""The differ's fast path (a row of one plain baseline number, computed as columns; the variants lacking
the metric patched in) against its general rules: ``compare`` with every cell built by ``cell_rules.cell`` is
the reference, and each cell of the ordinary ``compare`` must equal it, field by field (NaN included,
hence ``repr``), read both as records (``row.cells``) and from the columns."""

from __future__ import annotations

import dataclasses
import math
import sys

import pytest
from conftest import ROOT, RUN

import neuroncmp
from neuroncmp.comparison import differ
from neuroncmp.comparison.differ import compare

FILES = ("baseline", "b2", "b4", "b16", "b32", "b32-cc-optim", "b48", "b64")


@pytest.fixture(scope="module")
def sweep():
    return neuroncmp.load_many([RUN / f"{name}.json" for name in FILES])


def _both(monkeypatch, *args, **kwargs):
    fast = compare(*args, **kwargs)
    with monkeypatch.context() as patched:
        patched.setattr(differ, "columnar_row", lambda facts, shared, unit: None)  # every row by the general rules
        general = compare(*args, **kwargs)
    return fast, general


def _assert_same(fast, general):
    assert [row.name for row in fast.rows] == [row.name for row in general.rows]
    for ours, theirs in zip(fast.rows, general.rows, strict=True):
        for cell, reference in zip(ours.cells, theirs.cells, strict=True):
            assert type(cell.step) is type(reference.step) and type(cell) is type(reference)
            assert repr(tuple(cell)) == repr(tuple(reference)), (ours.name, cell.variant)
        _assert_columns_are_the_cells(ours, theirs.cells)


def _assert_columns_are_the_cells(row, cells):
    """Each column entry is the field of the reference cell (read column by column, not through ``row.cells``)."""
    assert row.variants == tuple(cell.variant for cell in cells)
    for basis in ("step", "sample"):
        columns, deltas = getattr(row, basis), [getattr(cell, basis) for cell in cells]
        if columns is None:
            assert deltas == [None] * len(cells), row.name
            continue
        for field in ("variant", "delta", "relative", "points", "ratio", "verdict", "p_value", "in_band"):
            expected = [getattr(d, field) if d is not None else (False if field == "in_band" else None)
                        for d in deltas]
            assert repr(list(getattr(columns, field))) == repr(expected), (row.name, basis, field)
        assert {repr(d.baseline) for d in deltas if d is not None} <= {repr(columns.baseline)}
    for field in ("n_variant", "spread_variant", "suspect"):
        assert list(getattr(row, field)) == [getattr(cell, field) for cell in cells], (row.name, field)


# values a profile can hold that a plain number path must not get wrong: zero, a sign change, an
# infinity, NaN, an integer beyond a float's range' neighbourhood, a bool, a text, a missing value
_ODD = (0, 0.0, -1.0, math.inf, -math.inf, math.nan, 2**70, True, "text", None)


def _odd_variant(profile, label, k):
    """``profile`` with every seventh metric (shifted by ``k``) replaced by one of ``_ODD``, the
    rest scaled by 1 + k %, some changed within a band, some beyond it."""
    metrics = {}
    for position, (name, metric) in enumerate(profile.metrics.items()):
        value = metric.value
        if (position + k) % 7 == 0:
            value = _ODD[(position + k) % len(_ODD)]
        elif isinstance(value, float):
            value = value * (1 + k / 100)
        if value is not None:
            metrics[name] = metric._replace(value=value)
    return dataclasses.replace(profile, label=label, metrics=metrics, params=dict(profile.params))


@pytest.mark.parametrize("basis", ["auto", "step", "sample"])
@pytest.mark.parametrize("thresholds", [(), ("5%", "fraction=1pp", "memory.*=16MiB", "time=1us")])
def test_the_fast_paths_give_the_general_rules_cells_on_the_sweep(monkeypatch, sweep, basis, thresholds):
    _assert_same(*_both(monkeypatch, *sweep, basis=basis, thresholds=thresholds))


@pytest.mark.parametrize("basis", ["auto", "step", "sample"])
def test_the_fast_paths_give_the_general_rules_cells_on_odd_values(monkeypatch, sweep, basis):
    b32 = next(p for p in sweep if p.label == "b32")
    variants = [_odd_variant(b32, f"odd{k}", k) for k in range(14)]
    sizes = [None, 16, 32, 64]  # unknown, smaller, equal, larger batch sizes
    for k, variant in enumerate(variants):
        variant.params["batch_size"] = sizes[k % len(sizes)]
    _assert_same(*_both(monkeypatch, b32, *variants, basis=basis))
    _assert_same(*_both(monkeypatch, variants[3], b32, *variants[:3], basis=basis))  # an odd baseline


def test_the_fast_paths_give_the_general_rules_cells_beside_repeated_captures(monkeypatch, sweep):
    b16, b32 = (next(p for p in sweep if p.label == label) for label in ("b16", "b32"))
    again = dataclasses.replace(b32, metrics={n: m._replace(value=m.value * 1.01) if isinstance(m.value, float) else m
                                              for n, m in b32.metrics.items()})
    _assert_same(*_both(monkeypatch, b16, b32, again, _odd_variant(b32, "odd", 3)))


def test_the_columns_are_the_general_rules_cells_on_a_generated_sweep(monkeypatch, tmp_path):
    """``bench_cli``'s generated sweep (every number of b32 nudged up or down by up to 10 %, the
    in-process benchmark's input), 60 variants, beside the bundled b2 (another batch size) and a
    second capture of a variant (repeated captures): the auto basis, per sample and per step."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import bench_cli

    profiles = neuroncmp.load_many(bench_cli.generate_sweep(tmp_path, 60) + [str(RUN / "b2.json")])
    again = dataclasses.replace(profiles[5], metrics=dict(profiles[5].metrics))
    for basis in ("auto", "step", "sample"):
        _assert_same(*_both(monkeypatch, *profiles, again, basis=basis))
    assert differ._same_names([p.values.all for p in profiles[1:-1]]) is not None  # values read at once:
    _assert_same(*_both(monkeypatch, *profiles[:-1]))  # the variants state the same names in the same order


def test_the_variants_names_read_once_give_what_reading_each_gives(monkeypatch, tmp_path, sweep):
    """``compare`` reads one variant's names for all when every variant states the same names in one
    order (``_same_names``): the missing metrics (``only_in``) and every row are those of reading each
    variant's own, with a baseline that has names the variants lack and lacks some they have."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import bench_cli

    profiles = neuroncmp.load_many(bench_cli.generate_sweep(tmp_path, 12))
    first = profiles[0]
    extra = next(iter(first.metrics.values()))._replace(name="made_up_count", value=3)
    odd = dataclasses.replace(first, label="odd", params=dict(first.params), metrics={
        **{name: metric for i, (name, metric) in enumerate(first.metrics.items()) if i % 5}, "made_up_count": extra})
    for baseline in (first, odd):
        fast = compare(baseline, *profiles[1:])
        assert differ._same_names([p.values.all for p in profiles[1:]]) is not None
        with monkeypatch.context() as patched:
            patched.setattr(differ, "_same_names", lambda variants: None)  # each variant's names read
            general = compare(baseline, *profiles[1:])
        assert dict(fast.only_in) == dict(general.only_in) and list(fast.only_in) == list(general.only_in)
        assert fast.rows == general.rows and fast.warnings == general.warnings
    assert set(fast.only_in.values()) == {("odd",), tuple(side.label for side in fast.variants)}  # both kinds
