"""The matplotlib charts' geometry, checked on the drawn figures (not their pixels): what hides what,
what lies outside the figure, which units share an axes. Each test keeps a screenshot of the chart
it checked for review (the folder is printed; ``NEURONCMP_SCREENSHOTS=DIR`` chooses it)."""

from __future__ import annotations

import itertools
import json
import os
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

import neuroncmp as nc
from neuroncmp.store import trends

pytest.importorskip("matplotlib")
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.text import Text

from neuroncmp.render import charts, store_plot

ROOT = Path(__file__).resolve().parent.parent
SWEEP = ROOT / "profiles" / "trn1-2xlarge-bs-sweep"


@pytest.fixture(scope="module")
def screenshots(tmp_path_factory) -> Path:
    chosen = os.environ.get("NEURONCMP_SCREENSHOTS")
    folder = Path(chosen) if chosen else tmp_path_factory.mktemp("chart-screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    print(f"\nchart screenshots: {folder}")
    return folder


def keep(figure, folder: Path, name: str) -> None:
    (folder / f"{name}.png").write_bytes(charts.png(figure))


@pytest.fixture(scope="module")
def swept():
    return nc.sweep(SWEEP)


def profile_value(name: str, metric: str) -> float:
    """A metric as the bundled profile file states it (the test's own reading of the JSON; the
    profiler writes a ``*_percent`` value as a fraction: 0.0367 is 3.67 %)."""
    ((_, block),) = json.loads((SWEEP / f"{name}.json").read_text()).items()
    return float(block[metric])


# ---- geometry -----------------------------------------------------------------------------------

def box(artist, renderer):
    return artist.get_window_extent(renderer)


def overlap(a, b) -> bool:
    return min(a.x1, b.x1) - max(a.x0, b.x0) > 0 and min(a.y1, b.y1) - max(a.y0, b.y0) > 0


def within(inner, outer, margin: float = 0.0) -> bool:
    return (inner.x0 >= outer.x0 + margin and inner.x1 <= outer.x1 - margin
            and inner.y0 >= outer.y0 + margin and inner.y1 <= outer.y1 - margin)


def drawn(figure):
    """The figure laid out as it is saved, and its renderer (Agg: the one ``charts.png`` uses)."""
    if not hasattr(figure.canvas, "get_renderer"):
        FigureCanvasAgg(figure)
    figure.draw_without_rendering()
    return figure.canvas.get_renderer()


def texts(figure):
    """Every text a reader sees: titles, axis and tick labels, annotations, legend entries (a tick
    label of a tick outside the axis' view is made but never drawn)."""
    ticks = [tick for axes in figure.axes for axis in (axes.xaxis, axes.yaxis)
             for tick in axis.get_major_ticks() + axis.get_minor_ticks()]
    hidden = {id(tick.label1) for tick in ticks if not shown_tick(tick)}
    hidden |= {id(tick.label2) for tick in ticks}  # the far side's labels: off unless asked for
    return [t for t in figure.findobj(Text)
            if t.get_visible() and t.get_text().strip() and id(t) not in hidden]


def shown_tick(tick) -> bool:
    low, high = sorted(tick.axes.xaxis.get_view_interval() if tick in tick.axes.xaxis.get_major_ticks()
                       + tick.axes.xaxis.get_minor_ticks() else tick.axes.yaxis.get_view_interval())
    return bool(low - 1e-9 * abs(low) <= tick.get_loc() <= high + 1e-9 * abs(high))


def assert_every_text_inside(figure, renderer) -> None:
    frame = figure.bbox
    outside = [t.get_text() for t in texts(figure) if not within(box(t, renderer), frame)]
    assert not outside, f"texts reaching past the figure: {outside}"


def assert_no_two_overlap(labels, renderer) -> None:
    for a, b in itertools.combinations(labels, 2):
        assert not overlap(box(a, renderer), box(b, renderer)), f"{a.get_text()!r} overlaps {b.get_text()!r}"


# ---- throughput ---------------------------------------------------------------------------------

def test_mfu_is_on_its_own_axes_not_over_the_device_throughput_line(swept, screenshots):
    """MFU and device throughput both grow as 1 / step time: on a twin axis the MFU line lay exactly
    on the throughput line and hid it. Now each has its own axes, side by side (not stacked on one
    area), each in one unit, and the MFU line holds the profiles' own MFU percentages."""
    figure = charts.throughput_figure(swept)
    renderer = drawn(figure)
    keep(figure, screenshots, "throughput")
    lines = {line.get_label(): line for axes in figure.axes for line in axes.get_lines()}
    device = lines["device (profile)"]
    (mfu,) = [line for label, line in lines.items() if label.startswith("MFU")]
    assert device.axes is not mfu.axes
    assert not overlap(device.axes.get_window_extent(renderer), mfu.axes.get_window_extent(renderer))
    assert device.axes.get_ylabel() == "throughput [samples/s]" and mfu.axes.get_ylabel() == "MFU [%]"
    assert all(" [" in axes.get_xlabel() or not axes.get_xaxis().get_visible() or axes.get_xlabel() == ""
               for axes in figure.axes)
    assert mfu.axes.get_xlabel() == "batch size [samples per step]"
    expected = {2: "b2", 4: "b4", 8: "baseline", 16: "b16", 32: "b32", 48: "b48", 64: "b64"}
    shown = dict(zip(mfu.get_xdata(), mfu.get_ydata(), strict=True))
    assert sorted(shown) == sorted(expected)
    for batch, name in expected.items():
        assert shown[batch] == pytest.approx(profile_value(name, "mfu_estimated_percent") * 100, abs=1e-6)
    legend = device.axes.get_legend()
    assert_no_two_overlap(legend.get_texts(), renderer)
    assert_every_text_inside(figure, renderer)


# ---- roofline -----------------------------------------------------------------------------------

def test_roofline_labels_overlap_nothing_and_name_their_points(swept, screenshots):
    """b32, b48 and b64 sit close together on the roofline: their labels overlapped each other. Now
    no label overlaps another, a point or the legend, each lies inside the axes, and each is in the
    colour of the point it names, nearer to it than to any other point of another colour."""
    figure = charts.roofline_figure(swept)
    renderer = drawn(figure)
    keep(figure, screenshots, "roofline")
    axes = figure.axes[0]
    labels = [t for t in axes.texts if t.get_text().startswith("b")]
    assert sorted(t.get_text() for t in labels) == sorted(f"b{b}" for b in (2, 4, 8, 16, 32, 48, 64))
    assert_no_two_overlap(labels, renderer)
    frame = axes.get_window_extent(renderer)
    points = {}
    for collection in axes.collections:
        (x, y), = axes.transData.transform(collection.get_offsets())
        points[tuple(collection.get_facecolor()[0])] = (x, y)
    legend = box(axes.get_legend(), renderer)
    for label in labels:
        extent = box(label, renderer)
        assert within(extent, frame), label.get_text()
        assert not overlap(extent, legend), label.get_text()
        for x, y in points.values():  # no label covers a point's centre (its marker's middle)
            assert not (extent.x0 <= x <= extent.x1 and extent.y0 <= y <= extent.y1), label.get_text()
        assert tuple(label.get_color()) in points or label.get_color() in points
    assert_every_text_inside(figure, renderer)


# ---- history ------------------------------------------------------------------------------------

START = datetime(2025, 1, 1, 2, tzinfo=timezone.utc)


def series(values: list[float], shifts: list[int], unit: str, tags: dict[str, str],
           direction: str = "worse") -> trends.Series:
    points = tuple(trends.Point(f"run{i}", None, START + timedelta(days=i), v) for i, v in enumerate(values))
    changes = []
    for at in shifts:
        before = sorted(values[max(0, at - 10):at])[len(values[max(0, at - 10):at]) // 2]
        after = sorted(values[at:at + 10])[len(values[at:at + 10]) // 2]
        candidates = trends.Candidates(points[at], points[at], points[at - 1], 1, 0.95)
        changes.append(trends.Change("m", tags, points[at], points[at - 1], before, after, unit,
                                     after / before - 1, direction, 1e-9, candidates))
    return trends.Series(tags, points, tuple(changes))


def test_history_shift_labels_sit_inside_their_axes_above_the_points(screenshots):
    """The shift label was drawn against the top frame, over the highest points (clipped at the
    top). Every label now lies inside its axes below the frame, inside the figure, over no point and
    no other label: for a shift whose first run is the highest point, a shift two runs from the right
    edge (its label turns left) and two shifts three runs apart (the second goes a row down)."""
    jump = [100.0] * 30 + [112.0] + [110.0] * 29                     # the highest point starts the shift
    edge = [100.0] * 57 + [106.0, 106.0, 106.5]                        # a shift two runs from the end
    twice = [100.0] * 25 + [104.0] * 3 + [109.0] * 32                  # two shifts close together
    result = trends.History("total_time", "s", (
        series([v / 1000 for v in jump], [30], "s", {"node": "a"}),
        series([v / 1000 for v in edge], [57], "s", {"node": "b"}),
        series([v / 1000 for v in twice], [25, 28], "s", {"node": "c"})))
    figure = store_plot.history_figure(result)
    renderer = drawn(figure)
    keep(figure, screenshots, "history")
    labels = []
    for axes in figure.axes:
        frame = axes.get_window_extent(renderer)
        shifts = [t for t in axes.texts if t.get_text().endswith(("worse", "better"))]
        assert shifts, axes.get_title()
        centres = [axes.transData.transform((axes.xaxis.convert_units(x), y))
                   for line in axes.get_lines() if line.get_marker() == "."
                   for x, y in zip(line.get_xdata(), line.get_ydata(), strict=True)]
        for label in shifts:
            extent = box(label, renderer)
            assert within(extent, frame, margin=1), label.get_text()  # below the top frame, not on it
            for x, y in centres:
                assert not (extent.x0 - 3 <= x <= extent.x1 + 3 and extent.y0 - 3 <= y <= extent.y1 + 3), \
                    (label.get_text(), x, y)
        labels += shifts
        assert axes.get_ylabel() == "total_time [ms]" and axes.get_xlabel() == "run time [UTC]"
    assert len(labels) == 4 and all(t.get_text().endswith("worse") for t in labels)
    assert_no_two_overlap(labels, renderer)
    assert_every_text_inside(figure, renderer)


def test_a_percentage_shift_is_labelled_in_points(screenshots):
    """MFU 20.4 % -> 19.3 % is -1.10pp, as ``history`` and ``regressions`` write it (the chart said -5.4 %)."""
    values = [0.204] * 30 + [0.193] * 30
    result = trends.History("mfu_estimated_percent", "fraction", (series(values, [30], "fraction", {}),))
    figure = store_plot.history_figure(result)
    drawn(figure)
    keep(figure, screenshots, "history-mfu")
    (label,) = [t.get_text() for t in figure.axes[0].texts]
    assert label == f"{(0.193 - 0.204) * 100:+.2f}pp worse" == "-1.10pp worse"
    assert figure.axes[0].get_ylabel() == "mfu_estimated_percent [%]"


def test_history_of_a_generated_store(tmp_path, screenshots):
    """The history PNG of a store filled by scripts/make_history.py (total_time +4 % from run 50)."""
    pytest.importorskip("duckdb")
    sys.path.insert(0, str(ROOT / "scripts"))
    import make_history

    make_history.generate(tmp_path / "runs", 80, seed=13, shifts={"total_time": (50, 0.04)})
    from neuroncmp.store import Store

    store = Store(tmp_path / "store")
    store.add_listing(tmp_path / "runs" / "runs.csv")
    figure = store_plot.history_figure(store.history("total_time"))
    renderer = drawn(figure)
    keep(figure, screenshots, "history-generated")
    (axes,) = figure.axes
    (label,) = axes.texts
    assert label.get_text().endswith("worse") and label.get_text().startswith("+")
    assert within(box(label, renderer), axes.get_window_extent(renderer), margin=1)
    assert_every_text_inside(figure, renderer)


# ---- comparison ---------------------------------------------------------------------------------

def test_seven_variants_fit_one_page_with_one_unit_per_axes(screenshots):
    """``cmp.plot()`` on the seven variants of the bundled sweep was one 7 x 42 inch axes mixing pp
    and %; now a panel per metric at most 12 x 10 inches, each panel in one unit (pp exactly for the
    percentage metrics), its bars the changes the profiles state, no text over another or off the figure."""
    comparison = nc.compare(SWEEP)
    assert len(comparison.variants) == 7
    figure = comparison.plot()
    renderer = drawn(figure)
    keep(figure, screenshots, "compare-7-variants")
    width, height = figure.get_size_inches()
    assert width <= 12 and height <= 10
    panels = [axes for axes in figure.axes if axes.axison]
    for axes in panels:
        assert axes.get_xlabel() in ("change [%]", "change [pp]"), axes.get_title()
        assert (axes.get_xlabel() == "change [pp]") == axes.get_title().endswith("_percent"), axes.get_title()
    by_title = {axes.get_title(): axes for axes in panels}
    mfu = by_title["mfu_estimated_percent"]
    widths = [bar.get_width() for bar in mfu.patches]
    batches = {"b2": 2, "b4": 4, "b16": 16, "b32": 32, "b32-cc-optim": 32, "b48": 48, "b64": 64}
    names = list(batches)
    baseline = profile_value("baseline", "mfu_estimated_percent")
    assert widths == pytest.approx([(profile_value(n, "mfu_estimated_percent") - baseline) * 100 for n in names])
    step = {n: profile_value(n, "total_time") / batch for n, batch in batches.items()}
    base_step = profile_value("baseline", "total_time") / 8
    total = by_title["total_time per sample"]
    assert [bar.get_width() for bar in total.patches] == pytest.approx(
        [(step[n] / base_step - 1) * 100 for n in names])
    for axes in panels:
        shown = {id(t) for t in texts(figure)}
        assert_no_two_overlap([t for t in axes.get_yticklabels() if id(t) in shown], renderer)
        assert_no_two_overlap([t for t in axes.get_xticklabels() if id(t) in shown], renderer)
    assert_no_two_overlap([axes.title for axes in panels], renderer)
    assert_every_text_inside(figure, renderer)


# --- huge finite values: every chart drawn, the values beyond an axis listed as not drawn ------------

def _huge(tmp_path: Path, case: str) -> Path:
    """The bundled sweep with one huge but finite value: a FLOP count of 1e300 (roofline: matplotlib's
    log ticks overflowed), a Trainer throughput of 1.7e308 (a singular matrix laying out the axes), or
    both with a batch size of 99999999999."""
    import shutil

    folder = tmp_path / "run"
    shutil.copytree(SWEEP, folder)
    if case in ("flops", "all"):
        document = json.loads((folder / "b48.json").read_text())
        next(iter(document.values()))["hardware_flops"] = 1e300
        (folder / "b48.json").write_text(json.dumps(document))
    if case in ("throughput", "all"):
        trainer = json.loads((folder / "b64.all_results.json").read_text())
        (folder / "b64.all_results.json").write_text(json.dumps(
            {k: 1.7e308 if k.endswith("per_second") else v for k, v in trainer.items()}))
    if case == "all":
        manifest = json.loads((folder / "manifest.json").read_text())
        next(e for e in manifest["profiles"] if e["label"] == "b16")["params"]["batch_size"] = 99_999_999_999
        (folder / "manifest.json").write_text(json.dumps(manifest))
    return folder


@pytest.mark.parametrize("case,chart,note", [("flops", "roofline", "b48"), ("all", "roofline", "b48"),
                                             ("throughput", "throughput", "b64 end to end")])
def test_huge_finite_values_are_left_out_of_the_chart_and_said(tmp_path, screenshots, case, chart, note):
    from click.testing import CliRunner

    from neuroncmp.cli import cli

    folder = _huge(tmp_path, case)
    for args in (["--charts", str(tmp_path / "charts")], ["--format", "html", "-o", str(tmp_path / "sweep.html")]):
        result = CliRunner().invoke(cli, ["sweep", str(folder), *args])
        assert result.exit_code == 0, (result.output, result.exception)
    assert (tmp_path / "charts" / f"{chart}.png").read_bytes()[:4] == b"\x89PNG"
    figure = charts.FIGURES[chart](nc.sweep(folder))
    figure.savefig(screenshots / f"huge-{case}-{chart}.png")
    notes = [t.get_text() for axes in figure.axes for t in axes.texts if t.get_text().startswith("not drawn")]
    assert len(notes) == 1 and notes[0].endswith(note)
