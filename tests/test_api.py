"""The Python API: inputs of every kind, results that show themselves, frames that keep units."""

from __future__ import annotations

import io
import json

import pytest
from conftest import RUN

import neuroncmp as nc


def test_public_names():
    assert {"load", "compare", "sweep", "Profile", "Comparison", "Sweep", "Finding", "ureg",
            "examples"} <= set(nc.__all__)
    assert all(getattr(nc, name) is not None for name in nc.__all__)  # each public name resolves
    assert dir(nc) == sorted(nc.__all__)
    assert nc.ureg.Quantity(1, "GiB").to("MiB").magnitude == 1024


@pytest.mark.parametrize("inputs", [
    (str(RUN / "baseline.json"), str(RUN / "b32.json")),          # paths
    ([RUN / "baseline.json", RUN / "b32.json"],),                   # a list of paths
])
def test_compare_accepts_paths_and_lists(inputs):
    comparison = nc.compare(*inputs)
    assert [s.label for s in comparison.sides] == ["baseline", "b32"]
    assert comparison.cell("mfu_estimated_percent", "b32").step.points == pytest.approx(9.52)


def test_inputs_of_every_kind_agree():
    loaded = nc.load(RUN)
    from_folder, from_profiles = nc.sweep(RUN), nc.sweep(loaded)
    assert from_folder.step_fit == from_profiles.step_fit
    assert nc.examples.load("trn1-2xlarge-bs-sweep")[0].metrics == loaded[0].metrics
    with pytest.raises(nc.UsageError, match="examples: trn1-2xlarge-bs-sweep"):
        nc.examples.load("nope")


def test_results_show_themselves():
    comparison = nc.compare(nc.load(RUN / "baseline.json"), nc.load(RUN / "b32.json"))
    html = comparison._repr_html_()
    assert html.index("throughput (device)") < html.index("<details>") and 'class="better"' in html
    assert len(repr(comparison)) < 300 and len(str(comparison)) < 300
    sweep = nc.sweep(nc.load(RUN))
    assert "recommendation: b64" in sweep._repr_html_() and len(repr(sweep)) < 300
    profile = nc.load(RUN / "b32.json")[0]
    assert "mfu_estimated_percent" in profile._repr_html_() and len(repr(profile)) < 300


def test_rich_renders_every_result():
    from rich.console import Console

    console = Console(file=io.StringIO(), width=100, color_system=None, force_terminal=False)
    for value in (nc.compare(nc.load(RUN / "baseline.json"), nc.load(RUN / "b32.json")),
                  nc.sweep(nc.load(RUN)), nc.load(RUN / "b32.json")[0]):
        console.print(value)
    text = console.file.getvalue()
    assert "throughput (device)" in text and "neuroncmp sweep" in text and "Metrics" in text


def test_frames_are_numeric_and_carry_units():
    comparison = nc.compare(nc.load(RUN))
    frame = comparison.to_frame()
    for column in ("baseline", "variant", "delta", "relative", "points", "ratio"):
        assert frame[column].dtype == "float64", column
    versions = frame[frame.metric == "compiler_version"].iloc[0]
    assert versions.baseline_text == "2.21.18209.0+043b1bf7" and versions.baseline != versions.baseline  # NaN
    total = frame[(frame.metric == "total_time") & (frame.basis == "step")].iloc[0]
    assert (total.unit, total.display_unit, total.display_factor) == ("s", "ms", 1e-3)
    wide = comparison.to_frame(wide=True)
    row = wide[(wide.metric == "total_time") & (wide.basis == "step")].iloc[0]
    baseline = json.loads((RUN / "baseline.json").read_text())["n_" + _key("baseline")]["total_time"]
    assert (row["baseline"], row["b64"]) == (baseline, 0.19644)
    sweep = nc.sweep(nc.load(RUN))
    table = sweep.to_frame()
    assert list(table.batch_size) == [2, 4, 8, 16, 32, 48, 64] and table["mfu"].dtype == "float64"
    assert table.loc[table.batch_size == 64, "device_throughput"].iloc[0] == pytest.approx(64 / 0.19644)


def _key(label):
    return next(iter(json.loads((RUN / f"{label}.json").read_text())))[2:]


def test_pint_pandas_columns_after_opting_in():
    pytest.importorskip("pint_pandas")
    sweep = nc.sweep(nc.load(RUN))
    nc.use_pint_pandas()
    table = sweep.to_frame(units="pint")
    assert str(table["step_time"].dtype).startswith("pint[second]")
    assert table["step_time"].pint.to("ms").pint.magnitude.iloc[-1] == pytest.approx(196.44)


def test_plots_are_figures():
    pytest.importorskip("matplotlib")
    sweep = nc.sweep(nc.load(RUN))
    for kind in ("throughput", "roofline", "memory"):
        assert sweep.plot(kind).axes
    assert [axes.get_ylabel() for axes in sweep.plot("throughput").axes] == ["throughput [samples/s]", "MFU [%]"]
    with pytest.raises(nc.UsageError):
        sweep.plot("pie")
    comparison = nc.compare(nc.load(RUN / "baseline.json"), nc.load(RUN / "b32.json"))
    from neuroncmp.catalog import HEADLINE

    shown = {h.metric for h in HEADLINE} & {row.name for row in comparison.rows}
    figure = comparison.plot()  # a panel per metric: a bar per variant, or a word where no change exists
    drawn = sum(len(axes.patches) + len(axes.texts) for axes in figure.axes)
    empty = {"train_samples_per_second"} & shown  # the Trainer's, on the b32 side only: no change to draw
    assert drawn == (len(shown) - len(empty)) * len(comparison.variants)
    assert all(name in figure.get_suptitle() for name in empty)


def test_profile_frames():
    profile = nc.load(RUN / "b32.json")[0]
    frame = profile.to_frame()
    assert frame.loc[frame.metric == "total_time", "value"].iloc[0] == 0.1147
    assert frame.loc[frame.metric == "device_throughput", "derived"].iloc[0]
    memory = profile.memory_frame()
    assert memory.loc[memory.usage_type == "shared_scratchpad", "bytes"].iloc[0] == 3.5 * 2**30
