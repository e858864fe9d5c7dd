"""Regression tests for the 15 failure classes of issue 22, each from a minimal input.

Beyond one file: sets of inputs and options at their limits, the store's own files, the Python
API and capture. Expected values come from the inputs (a step of 5e-324 s makes ``batch /
total_time`` infinite, a misspelled choice is not among the accepted ones), not from the code.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import RUN, TRAIN

import neuroncmp as nc
from neuroncmp.cli import cli
from neuroncmp.errors import InputError, NeuroncmpError, UsageError
from neuroncmp.stats import linear_fit

B16, B32, B64 = (json.loads((RUN / f"{n}.json").read_text()) for n in ("b16", "b32", "b64"))


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


def one_line_error(result, code: int) -> str:
    """The command ended with ``code`` and one ``Error:`` line, never a traceback."""
    assert result.exit_code == code, (result.exit_code, result.output, result.exception)
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit), result.exception
    lines = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(lines) == 1, result.output
    return lines[0]


def profile(tmp_path: Path, name: str, base: dict, **changes: object) -> Path:
    """``base`` (a bundled summary-json) with some values changed, as ``tmp_path/name``."""
    key, values = next(iter(base.items()))
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({key: {**values, **changes}}))
    return path


def three(tmp_path: Path, **b32_changes: object) -> list[str]:
    return [str(profile(tmp_path, "b16.json", B16)), str(profile(tmp_path, "b32.json", B32, **b32_changes)),
            str(profile(tmp_path, "b64.json", B64))]


# ---- 1: every file a command writes follows the -o rules -------------------------------------

def test_charts_do_not_write_through_a_link_onto_an_input(tmp_path):
    files = three(tmp_path)
    before = Path(files[1]).read_bytes()
    charts = tmp_path / "charts"
    charts.mkdir()
    (charts / "throughput.png").symlink_to(files[1])
    line = one_line_error(run("sweep", *files, "--charts", str(charts)), 2)
    assert "throughput.png" in line and "input" in line
    assert Path(files[1]).read_bytes() == before  # the input is not PNG bytes now


def test_a_chart_that_fails_leaves_no_report_and_no_png(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    from neuroncmp.render import charts

    def broken(sweep):
        raise OverflowError("drawn too large")

    monkeypatch.setitem(charts.FIGURES, "memory", broken)  # the last chart fails
    report, folder = tmp_path / "out" / "report.json", tmp_path / "out" / "charts"
    result = run("sweep", *three(tmp_path), "--charts", str(folder), "-o", str(report))
    assert result.exit_code != 0
    assert not report.exists() and not list(folder.glob("*.png"))


@pytest.mark.parametrize("command", [["history", "total_time"], ["regressions"], ["store", "ls"],
                                     ["store", "check"], ["diff", str(RUN / "b32.json"), "--baseline-history"]])
def test_no_output_lands_inside_the_store_it_reads(tmp_path, command):
    root = tmp_path / "store"
    nc.Store(root).add(RUN / "b16.json")
    before = (root / "snapshot.json").read_bytes()
    line = one_line_error(run(*command, "--store", str(root), "-o", str(root / "snapshot.json")), 2)
    assert "inside the store" in line
    assert (root / "snapshot.json").read_bytes() == before


# ---- 2: derived values inherit doubt ------------------------------------------------------------

@pytest.mark.parametrize("step", [5e-324, 0])
def test_a_step_too_small_to_divide_by_makes_derived_throughput_suspect(tmp_path, step):
    files = three(tmp_path, total_time=step)
    (b32,) = nc.load(files[1])
    flagged = {(a.code, a.metric) for a in b32.anomalies}
    assert ("non-finite-value", "device_throughput") in flagged  # 32 / step is not finite
    assert ("out-of-range", "total_time") in flagged
    cmp = nc.compare(files[0], files[1])
    cell = next(c for r in cmp.rows if r.name == "device_throughput" for c in r.cells)
    assert cell.suspect is not None
    assert cell.step.verdict not in ("better", "worse")
    sweep = nc.sweep(files)
    assert all(p.reason != "no input anomaly in any profile" for p in sweep.passed)
    assert any(f.rule == "input-anomalies" or "anomal" in f.title for f in sweep.findings)
    row = next(r for r in sweep.table if r.batch_size == 32)
    assert row.get("efficiency") is None and row.get("speedup") is None  # no 4.9e-321 % scaling


# ---- 3: a profile and its Trainer sidecar given as two files -----------------------------------

def test_profile_and_its_sidecar_as_two_files_run_every_rule(tmp_path):
    b32 = profile(tmp_path, "b32.json", B32)
    sidecar = tmp_path / "b32.all_results.json"
    shutil.copy(RUN / "b32.all_results.json", sidecar)
    result = run("sweep", str(b32), str(sidecar))
    assert result.exit_code == 0, result.output
    b16 = profile(tmp_path, "b16.json", B16)
    shutil.copy(RUN / "b16.all_results.json", tmp_path / "b16.all_results.json")
    result = run("diff", str(b16), str(tmp_path / "b16.all_results.json"), str(b32), str(sidecar))
    assert result.exit_code == 0, result.output


def _derived_names() -> list[str]:
    from neuroncmp.catalog import derived_specs

    return [spec.name for spec in derived_specs()]


@pytest.mark.parametrize("missing", [[name] for name in _derived_names()] + [_derived_names()])
def test_every_rule_runs_when_a_derived_value_is_missing(monkeypatch, missing):
    """A side of two files (profile, sidecar) has each input but not the derived value needing
    both: no rule may take a derived value for granted (device_throughput alone broke one)."""
    from neuroncmp import model

    whole = model.Profile.derived_metrics
    monkeypatch.setattr(model.Profile, "derived_metrics",
                        lambda self: {k: v for k, v in whole(self).items() if k not in missing})
    assert nc.sweep(RUN).text()
    assert nc.compare(RUN).text()


# ---- 4: NaN options -------------------------------------------------------------------------------

@pytest.mark.parametrize("option", ["--peak-tflops", "--hbm-gbps", "--price-per-hour"])
@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "0", "-2", "1e308"])
def test_sweep_number_options_refuse_non_finite_and_out_of_range(tmp_path, option, value):
    result = run("sweep", *three(tmp_path), option, value)
    assert result.exit_code == 2, result.output
    assert option in result.output and "nan%" not in result.output


@pytest.mark.parametrize("size", ["1e308GiB", "nan", "0GiB", "-1GiB", "inf"])
def test_hbm_per_core_refuses_sizes_beyond_any_core(tmp_path, size):
    assert "--hbm-per-core" in one_line_error(run("sweep", *three(tmp_path), "--hbm-per-core", size), 2)


# ---- 5: finite values whose squares overflow -------------------------------------------------------

def test_least_squares_of_values_near_the_float_limit():
    fit = linear_fit([1e300, 2e300, 3e300], [2e307, 4e307, 6e307])  # y = 2e7 x exactly
    assert fit is not None
    assert fit.slope == pytest.approx(2e7) and fit.intercept == pytest.approx(0, abs=1e293)
    assert fit.r2 == pytest.approx(1.0)
    assert linear_fit([1.0, 2.0, 3.0], [1e308, -1e308, 1e308]) is not None  # residuals finite


@pytest.mark.parametrize("changes", [{"total_time": 1e308}, {"hardware_flops": 1e300},
                                     {"model_flops": 1e308, "hbm_read_bytes": 1e308}])
def test_sweep_of_values_near_the_float_limit_ends_cleanly(tmp_path, changes):
    out = tmp_path / "out"
    result = run("sweep", *three(tmp_path, **changes), "-o", str(out / "r.json"))
    assert result.exit_code == 0, (result.output, result.exception)
    assert json.loads((out / "r.json").read_text())  # strict JSON, whole


@pytest.mark.parametrize("value", [5e-324, 1.7e308])
def test_roofline_chart_of_intensities_at_the_ends_of_a_float(tmp_path, value):
    pytest.importorskip("matplotlib")
    from neuroncmp.render import charts

    folder = tmp_path / "run"
    shutil.copytree(RUN, folder)
    for name in ("b16.json", "b64.json"):
        document = json.loads((folder / name).read_text())
        next(iter(document.values()))["mm_arithmetic_intensity"] = value
        (folder / name).write_text(json.dumps(document))
    assert charts.png(charts.roofline_figure(nc.sweep(folder)))[:8] == b"\x89PNG\r\n\x1a\n"


def test_memory_forecast_over_a_huge_batch_size(tmp_path):
    folder = tmp_path / "run"
    shutil.copytree(RUN, folder)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["profiles"][-1]["params"]["batch_size"] = 99_999_999_999
    (folder / "manifest.json").write_text(json.dumps(manifest))
    result = run("sweep", str(folder), "--format", "json")
    assert result.exit_code == 0, (result.output, result.exception)


# ---- 6: the store's own files -------------------------------------------------------------------

@pytest.fixture()
def store(tmp_path):
    files = three(tmp_path / "in")
    root = tmp_path / "store"
    nc.Store(root).add(*files, tags={"model": "m"})
    return root


def _part(root: Path, table: str) -> Path:
    (found,) = (root / "tables" / table).glob("*.parquet")
    return found


DAMAGE = {
    "truncated part": lambda root: _part(root, "metrics").write_bytes(_part(root, "metrics").read_bytes()[:100]),
    "snapshot not JSON": lambda root: (root / "snapshot.json").write_text("{x"),
    "snapshot without parts": lambda root: (root / "snapshot.json").write_text("{}"),
    "parts null": lambda root: (root / "snapshot.json").write_text('{"parts": null}'),
    "part id leading out": lambda root: (root / "snapshot.json").write_text(
        (root / "snapshot.json").read_text().replace(_part(root, "runs").stem, "../../x")),
}


@pytest.mark.parametrize("damage", list(DAMAGE))
@pytest.mark.parametrize("command", [["store", "ls"], ["history", "total_time"], ["regressions"],
                                     ["store", "compact"]])
def test_a_damaged_store_gives_one_line_naming_the_file(store, damage, command):
    DAMAGE[damage](store)
    line = one_line_error(run(*command, "--store", str(store)), 1)
    assert "store check" in line
    assert ".parquet" in line or "snapshot.json" in line


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_store_check_reports_damage_and_no_intact_copy_as_leftover(store, damage):
    DAMAGE[damage](store)
    result = run("store", "check", "--store", str(store))
    assert result.exit_code == 1
    assert "problem:" in result.output
    assert "  leftover:" not in result.output and "leftover files" not in result.output
    assert nc.Store(store).check().leftovers == ()


def test_store_compact_refuses_over_a_damaged_single_part(store):
    part = _part(store, "metrics")
    part.write_bytes(part.read_bytes()[:100])
    before = sorted(p.name for p in store.rglob("*"))
    one_line_error(run("store", "compact", "--store", str(store)), 1)
    assert sorted(p.name for p in store.rglob("*")) == before  # nothing merged, nothing removed


def test_a_part_id_is_never_a_path_outside_the_store(store, tmp_path):
    outside = tmp_path / "x.parquet"
    outside.write_bytes(_part(store, "runs").read_bytes())  # a readable part, outside the store
    (store / "snapshot.json").write_text((store / "snapshot.json").read_text().replace(
        _part(store, "runs").stem, "../../x"))
    with pytest.raises(InputError, match=r"snapshot\.json.*part id"):
        nc.Store(store).runs()


# ---- 7: non-finite stored values in history ------------------------------------------------------

def test_history_with_an_infinite_stored_value(tmp_path):
    root = tmp_path / "store"
    for day, step in enumerate([0.1147, float("inf"), 0.115]):
        nc.Store(root).add(profile(tmp_path / str(day), "b32.json", B32, total_time=step),
                           at=f"2024-01-0{day + 1}", tags={"model": "m"})
    text = run("history", "total_time", "--store", str(root))
    assert text.exit_code == 0, (text.output, text.exception)
    document = run("history", "total_time", "--store", str(root), "--format", "json")
    points = json.loads(document.output)["series"][0]["points"]
    assert points[1]["value"] is None and points[1]["non_finite"] == {"value": "Infinity"}


# ---- 8: the ends of the calendar ---------------------------------------------------------------

@pytest.mark.parametrize("moment", ["9999-12-31T23:59:59-01:00", "0001-01-01T00:00:00+01:00"])
def test_times_whose_utc_is_outside_the_calendar(store, tmp_path, moment):
    assert "--at" in one_line_error(run("store", "add", "--store", str(store), "--at", moment,
                                        three(tmp_path / "more")[0]), 2)
    assert "--since" in one_line_error(run("regressions", "--store", str(store), "--since", moment), 2)
    listing = tmp_path / "runs.csv"
    listing.write_text(f"path,time\n{three(tmp_path / 'l')[0]},{moment}\n")
    assert "line 2" in one_line_error(run("store", "add", "--store", str(store), "--runs", str(listing)), 1)


# ---- 9, 10: plain folders ------------------------------------------------------------------------

def test_skip_bad_adds_the_rest_of_a_folder(tmp_path):
    folder = tmp_path / "runs"
    three(folder)
    (folder / "notes.txt").write_text("not a profile\n")
    report = nc.Store(tmp_path / "store").add(folder, skip_bad=True)
    assert len(report.added) == 3
    assert [p.where for p in report.skipped] == [f"{folder} ({folder / 'notes.txt'})"]


def test_a_symlink_leading_out_of_a_plain_folder_is_not_followed(tmp_path):
    folder = tmp_path / "runs"
    three(folder)
    secret = profile(tmp_path / "elsewhere", "b8.json", B16, total_time=0.05)
    (folder / "b8.json").symlink_to(secret)
    with pytest.raises(InputError, match=r"b8\.json.*symlink leading out"):
        nc.Store(tmp_path / "store").add(folder)
    report = nc.Store(tmp_path / "store").add(folder, skip_bad=True)
    assert len(report.added) == 3
    copies = [p.read_bytes() for p in (tmp_path / "store" / "objects").rglob("*.json")]
    assert secret.read_bytes() not in copies


# ---- 11, 12, 13: the Python API ------------------------------------------------------------------

@pytest.mark.parametrize("call, named", [
    (lambda: nc.compare(RUN, basis="smaple"), "basis"),
    (lambda: nc.compare(RUN, sort="chnage"), "sort"),
    (lambda: nc.compare(RUN, order="batchsize"), "order"),
    (lambda: nc.compare(RUN).select(sort="chnage"), "sort"),
    (lambda: nc.compare(RUN).plot(metrics=["nope"]), "nope"),
    (lambda: nc.sweep(RUN).plot("thruput"), "kind"),
])
def test_misspelled_choices_are_usage_errors(call, named):
    with pytest.raises(UsageError, match=named):
        call()


@pytest.mark.parametrize("argument", ["peak_flops", "hbm_bandwidth", "hbm_per_core", "price_per_hour"])
@pytest.mark.parametrize("value", [0, -1.0, float("nan"), float("inf"), 1e308, 10**400, "3", True])
def test_sweep_overrides_must_be_finite_positive_numbers(argument, value):
    with pytest.raises(UsageError, match=argument):
        nc.sweep(RUN, **{argument: value})


def test_wrong_types_are_usage_errors_before_anything_is_written(tmp_path):
    root = tmp_path / "store"
    file = three(tmp_path)[0]
    for bad in ({"tags": {"k": 1}}, {"at": 12345}, {"commit": 7}, {"tags": ["k=v"]}):
        with pytest.raises(UsageError):
            nc.Store(root).add(file, **bad)
        assert not root.exists()  # no copy, no part, no store
    nc.Store(root).add(file)
    for bad in ({"since": 5}, {"min_change": "2"}, {"min_change": float("nan")}):
        with pytest.raises(UsageError):
            nc.Store(root).regressions(**bad)
    calls = [lambda: nc.compare(RUN, thresholds=[5]), lambda: nc.compare(RUN).text(width="80"),
             lambda: nc.sweep(RUN).text(width=10**9), lambda: nc.sweep(RUN, price_per_hour="3"),
             lambda: nc.compare(RUN, groups="tensor_engine", metrics=[3]), lambda: nc.compare(5),
             lambda: nc.sweep({"b8": 1}), lambda: nc.load(5), lambda: nc.Store(5)]
    for call in calls:
        with pytest.raises(UsageError):
            call()


# ---- 14, 15: capture -----------------------------------------------------------------------------



@pytest.fixture()
def captured(standin_path, tmp_path):
    out = tmp_path / "run"
    result = run("capture", "--batch", "2,64", "--out", str(out), "--", *TRAIN)
    assert result.exit_code == 0, result.output
    return out


@pytest.mark.parametrize("edit, where", [
    (lambda m: m["failed"][0].update(reason=None), "failed[0].reason"),
    (lambda m: m.update(failed=True), "failed"),
    (lambda m: m.update(failed=[["b64", "oom"]]), "failed[0]"),
    (lambda m: m["failed"][0].update(batch_size="64"), "failed[0].batch_size"),
    (lambda m: m["profiles"][0].update(params=[]), "profiles[0].params"),
])
def test_resume_over_an_edited_manifest_names_the_field(captured, edit, where):
    manifest = json.loads((captured / "manifest.json").read_text())
    assert manifest["failed"], "the stand-in runs b64 out of device memory"
    edit(manifest)
    (captured / "manifest.json").write_text(json.dumps(manifest))
    line = one_line_error(run("capture", "--batch", "2,4,64", "--out", str(captured), "--resume", "--",
                              *TRAIN), 1)
    assert where in line and "manifest.json" in line


@pytest.mark.parametrize("amounts", [1.5, ["tensors", 1], {"tensors": "1 GB", "io": True}])
def test_resume_over_an_edited_memory_breakdown_ends_cleanly(captured, amounts):
    """The out-of-memory breakdown a resumed manifest holds is shown only as names and whole byte
    counts (found by the capture surface on the merged code: a float raised AttributeError)."""
    manifest = json.loads((captured / "manifest.json").read_text())
    manifest["failed"][0].setdefault("oom", {})["bytes_by_type"] = amounts
    (captured / "manifest.json").write_text(json.dumps(manifest))
    result = run("capture", "--batch", "64", "--out", str(captured), "--resume", "--", *TRAIN)
    assert result.exit_code in (0, 1) and isinstance(result.exception, (SystemExit, type(None))), result.output


def test_resume_over_a_manifest_holding_a_huge_integer_ends_cleanly(captured):
    """The capture's summary reads the manifest it wrote back within the input limits (a plain
    ``json.loads`` raised ValueError on a 5,000-digit integer a resumed manifest kept)."""
    text = (captured / "manifest.json").read_text()
    (captured / "manifest.json").write_text(text.replace("{", '{"kept": ' + "7" * 5000 + ", ", 1))
    result = run("capture", "--batch", "64", "--out", str(captured), "--resume", "--", *TRAIN)
    assert result.exit_code in (0, 1) and not isinstance(result.exception, ValueError), result.output


@pytest.mark.parametrize("batches", ["²", "2,³", "٣", "4,1" + "0" * 5000, "0", "2,2"])
def test_batch_lists_take_ascii_digits_only(tmp_path, batches):
    assert "--batch" in one_line_error(run("capture", "--batch", batches, "--out", str(tmp_path / "o"),
                                           "--", "true"), 2)


def test_no_check_escapes_as_anything_but_a_neuroncmp_error():
    """Every refusal above is a ``NeuroncmpError`` (the CLI's one boundary maps it to an exit code)."""
    with pytest.raises(NeuroncmpError):
        nc.compare(RUN, basis=None)
