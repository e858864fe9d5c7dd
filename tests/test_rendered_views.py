"""What a reader sees in the rendered outputs: the diff's HTML full table narrow enough to read (the unit once,
in the metric column; a version every side shares written once), the sweep page's roofline table, and a
trend sparkline drawn flat when its whole range is noise."""

from __future__ import annotations

import json

import pytest
from conftest import RUN, VARIANT_FILES
from html_tables import tables_in

import neuroncmp
from neuroncmp.comparison.differ import compare
from neuroncmp.comparison.view import select
from neuroncmp.render import registry
from neuroncmp.render.base import DiffReport


def raw(name: str) -> dict[str, object]:
    """A bundled profile's metrics as the file holds them (one graph per file)."""
    return dict(next(iter(json.loads((RUN / name).read_text()).values())))


@pytest.fixture(scope="module")
def sweep_diff_html() -> str:
    profiles = [neuroncmp.load(RUN / name)[0] for name in VARIANT_FILES]
    comparison = compare(profiles)
    return registry.by_name("html").diff(DiffReport(comparison, select(comparison)))


def test_the_full_table_writes_the_unit_once_in_the_metric_column(sweep_diff_html):
    found = tables_in(sweep_diff_html)
    full = next(table for table, folded in zip(found.tables, found.folded, strict=True) if folded)
    rows = {row[0]: row for row in full}
    # total_time per sample: 0.05378 s / 8 (batch size inferred) = 6.7225 ms; b32: 0.1147 s / 32 = 3.584 ms
    baseline, *variants = rows["total_time/sample [ms]"][1:]
    assert baseline == "6.723"
    b32 = variants[VARIANT_FILES.index("b32.json") - 1].split("\n")
    assert b32[0] == "3.584" and b32[1].startswith("-46.7%")
    values = [cell.split("\n")[0] for row in full for cell in row[1:]]
    assert not any(value.endswith((" ms", " s", " GiB", " MiB", " %")) for value in values)


def test_a_version_every_side_shares_is_written_once(sweep_diff_html):
    found = tables_in(sweep_diff_html)
    full = next(table for table, folded in zip(found.tables, found.folded, strict=True) if folded)
    rows = {row[0]: row for row in full}
    # every bundled file states compiler_version 2.21.18209.0+043b1bf7: one cell across the sides
    (version,) = {raw(name)["compiler_version"] for name in VARIANT_FILES}
    assert rows["compiler_version"] == ["compiler_version", f"{version} (every side)"]
    # no value column is set wide by a long text: numbers and their changes only
    widest = max(len(line) for row in full if len(row) > 2 for cell in row[1:] for line in cell.split("\n"))
    assert widest <= 16


def test_the_sweep_page_has_the_roofline_table_the_terminal_prints():
    sweep = neuroncmp.sweep([neuroncmp.load(RUN / name)[0] for name in VARIANT_FILES])
    found = tables_in(registry.by_name("html").sweep(sweep))
    roof = next(table for table in found.tables if table[0][:2] == ["batch", "FLOP/B"])
    rows = {row[0]: row for row in roof[1:]}
    assert set(rows) == {"2", "4", "8", "16", "32", "48", "64"}
    # the intensity is the profiler's own matmul arithmetic intensity of each capture
    assert rows["32"][1] == f"{raw('b32.json')['mm_arithmetic_intensity']:.4g}"
    assert rows["64"][1] == f"{raw('b64.json')['mm_arithmetic_intensity']:.4g}"


def test_a_trend_inside_its_noise_band_is_drawn_flat():
    """model_flops per sample is 67.03..67.06 GFLOP across the sweep (the files: model_flops / batch),
    a 0.05 % spread inside the 2 % time-and-count band: a min-max scale drew it as a full swing."""
    from neuroncmp.render.changes import FLAT, SPARKS
    from neuroncmp.render.rows import line, trend_order

    profiles = [neuroncmp.load(RUN / name)[0] for name in VARIANT_FILES]
    comparison = compare(profiles)
    per_sample = [raw(name)["model_flops"] / side.batch_size
                  for name, side in zip(VARIANT_FILES, comparison.sides, strict=True)]
    assert (max(per_sample) - min(per_sample)) / min(per_sample) < 0.001
    row = next(r for r in comparison.rows if r.name == "model_flops")
    assert line(row, "sample").trend(trend_order(comparison)) == FLAT * len(VARIANT_FILES)
    # a row that moves beyond its band keeps its sparkline: total_time per sample, 3.07 to 19.9 ms
    row = next(r for r in comparison.rows if r.name == "total_time")
    trend = line(row, "sample").trend(trend_order(comparison))
    assert set(trend) <= set(SPARKS) and SPARKS[0] in trend and SPARKS[-1] in trend


@pytest.fixture(scope="module")
def sweep_text_lines() -> list[str]:
    from click.testing import CliRunner

    from neuroncmp.cli import cli

    result = CliRunner().invoke(cli, ["sweep", str(RUN), "--width", "200", "--no-color"])
    assert result.exit_code == 0, result.output
    return result.output.splitlines()


def test_a_lower_bound_impact_makes_one_claim(sweep_text_lines):
    """Transposes at peak rate take at least transpose_flops / peak: "at least", not "up to ... (a lower bound)"."""
    at = next(i for i, text in enumerate(sweep_text_lines) if "transposes are" in text)
    impact = sweep_text_lines[at + 1]
    assert impact.strip().startswith("impact: at least ")
    assert "up to" not in impact and "lower bound" not in impact


def test_fires_at_says_why_a_batch_past_the_threshold_is_left_out(sweep_text_lines):
    """The baseline is throttled for 3.15 ms of its 53.78 ms step (5.86 %, past the 5 % threshold),
    but its utilization cap reads 109.7 % (suspect): it is named, with why, not silently dropped."""
    baseline = raw("baseline.json")
    assert baseline["throttle_active_nc0_time_ns"] * 1e-9 / baseline["total_time"] >= 0.05
    at = next(i for i, text in enumerate(sweep_text_lines) if "throttled for" in text)
    fires = next(text for text in sweep_text_lines[at:] if text.strip().startswith("fires at:"))
    counted, _, aside = fires.partition(";")
    assert "baseline" not in counted and "b64" in counted
    assert "suspect" in aside and "baseline" in aside
    share = baseline["throttle_avg_util_limit_nc0_percent"] * 100
    assert f"throttle_avg_util_limit_nc0_percent is {share:.1f} %" in aside


def test_the_full_table_fits_a_laptop_screen_in_chromium(sweep_diff_html, tmp_path):
    """Measured where people read it: headless Chromium lays the page out (the fold opened) and
    reports each table's width; the eight-profile full table was 1,819 px (unit in every cell, a
    34-character version in each column). A screenshot is kept beside it for review."""
    import re
    import shutil
    import subprocess

    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("no chromium (Debian's package; .ci/run installs it)")
    measure = ("<script>window.onload=()=>{document.title=[...document.querySelectorAll('table')]"
               ".map(t=>Math.round(t.getBoundingClientRect().width)).join(',')}</script>")
    page = tmp_path / "diff.html"
    page.write_text(sweep_diff_html.replace("<details>", "<details open>").replace("</body>", measure + "</body>"))
    flags = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000"]
    dom = subprocess.run([*flags, "--virtual-time-budget=3000", "--dump-dom", page.as_uri()],
                         capture_output=True, text=True, timeout=120).stdout
    found = re.search(r"<title>([\d,]+)</title>", dom)
    assert found, "chromium did not lay the page out"
    widths = [int(w) for w in found.group(1).split(",")]
    subprocess.run([*flags, f"--screenshot={tmp_path / 'diff.png'}", page.as_uri()], capture_output=True, timeout=120)
    print(f"widths {widths}; screenshot {tmp_path / 'diff.png'}")
    assert len(widths) == 2 and max(widths) <= 1200, widths
