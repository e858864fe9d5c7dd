"""Fuzzing beyond one file (issue 22): sets of inputs, options at their limits, a tampered store,
the Python API with wrong types and values, and capture over hostile manifests and batch lists.

Each surface makes one case from a ``random.Random`` and checks it (``run_case``), returning an
``fuzzing.Outcome``: ``ok`` or ``error`` (a neuroncmp error, an expected refusal) are clean;
``crash`` (a traceback, a wrong exit code, an error of more than one line, a write outside the
output), ``hang`` and ``silent`` (a NaN/Infinity token in JSON) are counted by
``scripts/fuzz.py`` and fail ``tests/test_fuzz.py``. What each surface expects:

- ``sets``: 1-10 inputs drawn from profiles (some mutated), Trainer and memory sidecars, run
  folders and their manifests (some hostile), through ``diff`` or ``sweep`` with valid options:
  exit 0, 1 or 3, no file changed but the output.
- ``options``: ``diff``/``sweep``/``history``/``regressions`` with options drawn from good values
  and bad ones (0, negatives, NaN, infinities, 1e308, huge integers, misspellings, wrong units):
  exit 2 exactly when a bad value was drawn (else 0), no file written on a refusal.
- ``store``: a store tampered with (truncated or flipped parts, an edited snapshot, changed or
  missing copies, strays), then a store command: exit 0, 1 or 3, one error line, nothing
  written outside the store.
- ``api``: ``compare``/``sweep``/``select``/``text``/``Store`` calls with wrong types and values:
  a result or a neuroncmp error, and a refused ``Store.add`` leaves no store behind.
- ``capture``: ``--batch`` lists (Unicode digits, signs, huge, repeats) against an independent
  strict parse, and ``--resume`` over an edited manifest (stand-in tools): exit 0, 1 or 2, one line.
- ``ops``: mutated view JSONs and Explorer op tables with ``ops``'s options (``fuzzing_ops.py``): exit
  2 exactly on a bad option, else 0 or 1; on 0 no non-finite or negative time and no suspect value
  scored.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import shutil
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import fuzzing
from fuzzing import RUN, Hang, Outcome, mutate_bytes, mutate_json, strict_json, time_limit

SURFACES = ("sets", "options", "store", "api", "capture", "ops")
SECONDS = 60.0
STANDINS = Path(__file__).resolve().parent / "standins"
TRAIN = [sys.executable, str(STANDINS / "fake_train.py"), "--per_device_train_batch_size", "{batch}",
         "--output_dir", "{out}"]
PROFILES = ["baseline.json", "b16.json", "b32.json", "b48.json", "b64.json", "b2.json", "b4.json",
            "b32-cc-optim.json"]
SIDECARS = ["b16.all_results.json", "b32.all_results.json", "b64.all_results.json", "b32.memory.md",
            "b64.memory.md", "baseline.memory.md"]
NUMBERS_BAD = ["0", "-1", "nan", "inf", "-inf", "1e308", "1" + "0" * 30, "abc", "²", "", " ", "1e-400"]


def run_case(surface: str, rnd: random.Random, workdir: Path) -> tuple[Outcome, str]:
    """Make and check one case of ``surface`` under ``workdir`` (emptied first); (outcome, how)."""
    if workdir.exists():
        fuzzing._clear(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    from fuzzing_ops import ops_case

    make = {"sets": _sets, "options": _options, "store": _store, "api": _api, "capture": _capture,
            "ops": ops_case}[surface]
    how = "?"
    try:
        with time_limit(SECONDS):
            outcome, how = make(rnd, workdir)
    except Hang as exc:
        return Outcome("hang", str(exc)), how
    except Exception:  # the harness's own checks raise nothing; anything here is neuroncmp's
        return Outcome("crash", fuzzing._last_frame()), how
    return outcome, how


# ---- the CLI, watched ----------------------------------------------------------------------------

def _snapshot(folder: Path, skip: Path | None = None) -> dict[str, str]:
    """Every file under ``folder`` (but ``skip``) with a hash of its bytes (or link target)."""
    out = {}
    for path in folder.rglob("*"):
        if skip is not None and (path == skip or skip in path.parents):
            continue
        if path.is_symlink():
            out[str(path)] = "link:" + os.readlink(path)
        elif path.is_file() and not path.name.startswith("fifo"):
            out[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def cli(args: list[str], workdir: Path, allowed: Path | None, codes: tuple[int, ...]) -> Outcome:
    """Run the CLI: exit code among ``codes``, no traceback, an error on one line, strict JSON
    from ``--format json``, and no file under ``workdir`` changed but under ``allowed``."""
    from click.testing import CliRunner

    from neuroncmp.cli import cli as command

    before = _snapshot(workdir, allowed)
    result = CliRunner().invoke(command, args)
    after = _snapshot(workdir, allowed)
    what = " ".join(args[:2])
    if before != after:
        changed = sorted(set(before.items()) ^ set(after.items()))[:2]
        return Outcome("crash", f"{what}: wrote outside its output: {changed}")
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        exc = result.exception
        frames = traceback.extract_tb(exc.__traceback__)
        last = ([f for f in frames if "neuroncmp" in f.filename] or frames)[-1]
        return Outcome("crash", f"{what}: {type(exc).__name__} at {Path(last.filename).name}:"
                                f"{last.lineno}: {str(exc)[:100]}")
    if result.exit_code not in codes:
        return Outcome("crash", f"{what}: exit {result.exit_code}, expected {codes}: {result.output[-200:]!r}")
    if result.exit_code in (1, 2):
        errors = [line for line in result.output.splitlines() if line.startswith("Error")]
        # standard error holds the one error line; notes and warnings (what the set was read as)
        # may come before it, each a line of its own
        said = [line for line in result.stderr.splitlines() if not line.startswith(("note: ", "warning: "))]
        if len(errors) != 1 or (result.exit_code == 1 and len(said) != 1 and "store check" not in what):
            return Outcome("crash", f"{what}: error not one line: {result.output[:200]!r}")
        return Outcome("error", errors[0])
    written = Path(args[args.index("-o") + 1]) if "-o" in args else None
    if written is not None and written.suffix == ".json" and written.is_file():
        text: str | None = written.read_text()
    else:
        json_out = "--format" in args and args[args.index("--format") + 1] == "json"
        text = result.stdout if json_out and written is None else None  # notes go to stderr
    if text is not None:
        try:
            strict_json(text)
        except ValueError as exc:
            return Outcome("silent", f"{what} JSON: {exc}")
    return Outcome("ok")


# ---- sets -----------------------------------------------------------------------------------------

def _input(rnd: random.Random, workdir: Path, index: int) -> tuple[str, str]:
    """One input of a set: a profile (maybe mutated), a sidecar, or a run folder (maybe hostile)."""
    kind = rnd.choices(["profile", "mutated", "sidecar", "folder", "hostile folder"], [5, 2, 3, 1, 1])[0]
    place = workdir / f"in{index}"
    place.mkdir()
    if kind == "profile" or kind == "sidecar":
        name = rnd.choice(PROFILES if kind == "profile" else SIDECARS)
        shutil.copyfile(RUN / name, place / name)
        return str(place / name), name
    if kind == "mutated":
        case = fuzzing.make_case(rnd.choice(["summary-json", "trainer-json", "ui-markdown"]), rnd, place)
        return str(case.path), f"mutated {case.how}"
    if kind == "folder":
        shutil.copytree(RUN, place / "run")
        return str(place / "run" if rnd.random() < 0.7 else place / "run" / "manifest.json"), "run folder"
    case = fuzzing._run_folder_case(rnd, place)
    return str(case.path), f"hostile folder ({case.how})"


def _sets(rnd: random.Random, workdir: Path) -> tuple[Outcome, str]:
    chosen = [_input(rnd, workdir, i) for i in range(rnd.randint(1, 10))]
    paths, hows = [p for p, _ in chosen], [h for _, h in chosen]
    out = workdir / "out"
    command = rnd.choice(["diff", "sweep", "show"])
    extra = rnd.choice([[], ["--format", "json"], ["-o", str(out / "report.json")], ["--format", "md"],
                        ["--sort", "change", "--basis", "step"] if command == "diff" else ["--width", "60"]])
    if command == "show" and extra[:1] != ["--format"]:
        extra = []
    if command == "show" and extra:
        extra = ["--format", "json"]
    return cli([command, *paths, *extra], workdir, out, (0, 1, 3)), f"{command} of {len(paths)}: {', '.join(hows)}"


# ---- options at their limits -------------------------------------------------------------------

def _good_or_bad(rnd: random.Random, good: list[str], bad: list[str]) -> tuple[str, bool]:
    return (rnd.choice(bad), True) if rnd.random() < 0.35 else (rnd.choice(good), False)


SWEEP_NUMBERS = {"--peak-tflops": ["90", "190.5", "1e6"], "--hbm-gbps": ["410", "2900", "1"],
                 "--price-per-hour": ["1.34", "21.5", "1e6"]}
DIFF_CHOICES = {"--sort": (["group", "change", "name"], ["chnage", "Group", "", "names"]),
                "--basis": (["auto", "step", "sample"], ["smaple", "steps", "AUTO"]),
                "--order": (["batch", "given"], ["batches", "givn"])}
WIDTHS = (["40", "100", "400"], ["39", "401", "0", "-5", "1" + "0" * 30, "abc", "nan", "²"])


def _options(rnd: random.Random, workdir: Path) -> tuple[Outcome, str]:
    command = rnd.choice(["diff", "sweep", "sweep", "history", "regressions"])
    args, bad = [command], False
    out = workdir / "out"
    if command in ("diff", "sweep"):
        shutil.copytree(RUN, workdir / "run")
        args.append(str(workdir / "run"))
    else:
        args += ["--store", str(_base_store(workdir)), *(["total_time"] if command == "history" else [])]
    for option, values in (SWEEP_NUMBERS.items() if command == "sweep" else []):
        if rnd.random() < 0.4:
            value, wrong = _good_or_bad(rnd, values, NUMBERS_BAD)
            args += [option, value]
            bad |= wrong
    if command == "sweep" and rnd.random() < 0.3:
        value, wrong = _good_or_bad(rnd, ["16GiB", "24", "512MiB"], ["1e308GiB", "0GiB", "-1GiB", "nan", "x", "inf"])
        args += ["--hbm-per-core", value]
        bad |= wrong
    for option, (good, wrongs) in (DIFF_CHOICES.items() if command == "diff" else []):
        if rnd.random() < 0.4:
            value, wrong = _good_or_bad(rnd, good, wrongs)
            args += [option, value]
            bad |= wrong
    if command == "diff" and rnd.random() < 0.3:
        value, wrong = _good_or_bad(rnd, ["5%", "time=2%", "bytes=1MiB", "10000%", "fraction=1pp", "time=5ns"],
                                    ["nan%", "-5%", "inf%", "x", "time=nanus", "tme=5%", "time=5pp", "1e308%",
                                     "1e400%", "time=1e400s", "1" * 400 + "%", "fraction=101pp"])
        args += ["--threshold", value]
        bad |= wrong
    gated = command == "diff" and rnd.random() < 0.2
    if gated:  # a gate may trip (exit 3); its threshold bounded as --threshold's is
        value, wrong = _good_or_bad(rnd, ["total_time>+5%", "mfu_estimated_percent<-2pp", "memory.*>=2x",
                                          "total_time>+10000%"],
                                    ["total_time>+" + "9" * 400 + "%", "total_time>+10001%",
                                     "memory.*>=" + "1" * 330 + "x", "mfu_estimated_percent<-101pp"])
        args += ["--fail-on", value]
        bad |= wrong
    if command == "sweep" and rnd.random() < 0.1:
        charts = out / "charts"
        charts.mkdir(parents=True)
        if rnd.random() < 0.5:  # a link there onto an input: refused like -o onto an input
            (charts / rnd.choice(["throughput.png", "roofline.png", "memory.png"])).symlink_to(
                workdir / "run" / rnd.choice(["b32.json", "manifest.json"]))
            bad = True
        args += ["--charts", str(charts)]
    if command in ("diff", "sweep", "history") and rnd.random() < 0.4:
        value, wrong = _good_or_bad(rnd, *WIDTHS)
        args += ["--width", value]
        bad |= wrong
    if command == "regressions" and rnd.random() < 0.5:
        value, wrong = _good_or_bad(rnd, ["0", "2", "50"], ["nan", "-1", "inf", "abc", "1e308"])
        args += ["--min-change", value]
        bad |= wrong
    if command == "regressions" and rnd.random() < 0.4:
        value, wrong = _good_or_bad(rnd, ["2024-01-01", "2024-05-01T02:00:00Z"],
                                    ["9999-12-31T23:59:59-01:00", "0001-01-01T00:00:00+01:00", "yesterday", "5"])
        args += ["--since", value]
        bad |= wrong
    if rnd.random() < 0.3:
        target, wrong = (str(out / "report.json"), False) if rnd.random() < 0.6 else \
            (rnd.choice(_inputs_of(args, workdir)), True)
        args += ["-o", target]
        bad |= wrong
    outcome = cli(args, workdir, out, (2,) if bad else (0, 3) if gated else (0,))
    return outcome, " ".join(a[:40] for a in args[:1] + args[2:])


def _inputs_of(args: list[str], workdir: Path) -> list[str]:
    """Files this run reads, as ``-o`` must never name them (or the store's own files)."""
    if (workdir / "run").is_dir():
        return [str(workdir / "run" / name) for name in ("b32.json", "manifest.json", "b64.memory.md")]
    return [str(workdir / "store" / "snapshot.json"), str(workdir / "store" / "STORE.json")]


_BASE: dict[str, Path] = {}


def _base_store(workdir: Path) -> Path:
    """A small store with three runs of one series, built once per process and copied."""
    if "store" not in _BASE:
        import tempfile

        import neuroncmp

        root = Path(tempfile.mkdtemp(prefix="neuroncmp-fuzz-store-")) / "store"
        for day, name in enumerate(["b16.json", "b32.json", "b48.json", "b64.json"]):
            neuroncmp.Store(root).add(RUN / name, at=f"2024-01-0{day + 1}", tags={"model": "m"})
        _BASE["store"] = root
    target = workdir / "store"
    shutil.copytree(_BASE["store"], target)
    return target


# ---- a tampered store ----------------------------------------------------------------------------

def _tamper(rnd: random.Random, root: Path) -> str:
    parts = sorted((root / "tables").rglob("*.parquet"))
    copies = sorted(p for p in (root / "objects").rglob("*") if p.is_file())
    snapshot = root / "snapshot.json"
    how = rnd.choice(["truncate part", "flip part", "delete part", "edit snapshot", "mutate snapshot",
                      "part id", "change copy", "delete copy", "stray files", "empty snapshot", "marker"])
    if how in ("truncate part", "flip part", "delete part"):
        part = rnd.choice(parts)
        data = part.read_bytes()
        if how == "delete part":
            part.unlink()
        else:
            part.write_bytes(data[:rnd.randrange(len(data))] if how == "truncate part" else mutate_bytes(data, rnd))
    elif how in ("edit snapshot", "mutate snapshot") and not _json_object(snapshot):
        snapshot.write_text('{"parts": [')  # damaged already: damage it the plain way
    elif how == "edit snapshot":
        document = json.loads(snapshot.read_text())
        target = rnd.choice(document["parts"])
        key = rnd.choice(["id", "runs", "hashes", "files", "parts"])
        value = rnd.choice(fuzzing._BAD_VALUES + ["../../x", "/etc/passwd", {"runs": ["../../x.parquet"]}])
        if key == "parts":
            document["parts"] = value
        else:
            target[key] = value
        snapshot.write_text(json.dumps(document, allow_nan=True))
        how += f" {key}={value!r:.30}"
    elif how == "mutate snapshot":
        snapshot.write_text(mutate_json(json.loads(snapshot.read_text()), rnd))
    elif how == "part id":
        snapshot.write_text(snapshot.read_text().replace(parts[0].stem, rnd.choice(["../../x", "..", "a/b", ""])))
    elif how in ("change copy", "delete copy"):
        copy = rnd.choice(copies)
        copy.unlink() if how == "delete copy" else copy.write_bytes(mutate_bytes(copy.read_bytes(), rnd))
    elif how == "stray files":
        (root / "tables" / "runs" / "stray.parquet").write_bytes(b"PAR1junk")
        (root / "objects" / "zz").mkdir(exist_ok=True)
        (root / "objects" / "zz" / "stray.json").write_text("{}")
    elif how == "empty snapshot":
        snapshot.write_bytes(b"")
    else:
        (root / "STORE.json").write_text(rnd.choice(["{}", "x", '{"schema": "neuroncmp.store/9"}']))
    return how


def _json_object(path: Path) -> bool:
    """Whether ``path`` holds the snapshot's shape an edit needs (an earlier tamper may have broken it)."""
    try:
        document = json.loads(path.read_text())
    except (OSError, ValueError):
        return False
    return isinstance(document, dict) and isinstance(document.get("parts"), list) and bool(document["parts"]) \
        and all(isinstance(part, dict) for part in document["parts"])


STORE_COMMANDS: list[Callable[[Path, Path], list[str]]] = [
    lambda root, out: ["store", "ls", "--store", str(root)],
    lambda root, out: ["store", "check", "--store", str(root)],
    lambda root, out: ["store", "compact", "--store", str(root)],
    lambda root, out: ["history", "total_time", "--store", str(root)],
    lambda root, out: ["history", "total_time", "--store", str(root), "--format", "json"],
    lambda root, out: ["regressions", "--store", str(root), "--all-changes"],
    lambda root, out: ["regressions", "--store", str(root), "-o", str(out / "r.json")],
    lambda root, out: ["store", "add", "--store", str(root), str(RUN / "b48.json")],
    lambda root, out: ["diff", str(RUN / "b32.json"), "--baseline-history", "--history-runs", "5",
                       "--store", str(root)],
]


def _store(rnd: random.Random, workdir: Path) -> tuple[Outcome, str]:
    root = _base_store(workdir)
    hows = [_tamper(rnd, root) for _ in range(rnd.randint(1, 2))]
    args = rnd.choice(STORE_COMMANDS)(root, workdir / "out")
    return cli(args, workdir, root if args[0] in ("store",) else workdir / "out", (0, 1, 3)), \
        f"{' '.join(args[:2])} after {', '.join(hows)}"


# ---- the Python API ------------------------------------------------------------------------------

WRONG: list[Any] = [None, 0, -1, 1e308, float("nan"), float("inf"), 10**400, True, "3", "", "smaple",
                    "chnage", [5], [None], {"k": 1}, {"k": "v"}, ("x",), b"bytes", object(), 12345,
                    -0.0, 5e-324, ["nope"], "9999-12-31T23:59:59-01:00"]


def _api(rnd: random.Random, workdir: Path) -> tuple[Outcome, str]:
    import neuroncmp as nc
    from neuroncmp.errors import NeuroncmpError

    def value() -> Any:
        return rnd.choice(WRONG)

    def profiles() -> Any:
        return [str(RUN / name) for name in rnd.sample(PROFILES[:5], rnd.randint(2, 4))]

    root = workdir / "api-store"
    calls: list[tuple[str, Callable[[], Any]]] = [
        ("compare", lambda: nc.compare(profiles(), **{rnd.choice(["basis", "sort", "order", "thresholds",
                                                                 "groups", "metrics", "only_changed",
                                                                 "baseline"]): value()})),
        ("sweep", lambda: nc.sweep(profiles(), **{rnd.choice(["peak_flops", "hbm_bandwidth", "hbm_per_core",
                                                             "price_per_hour"]): value()})),
        ("select", lambda: nc.compare(profiles()).select(**{rnd.choice(["sort", "groups", "metrics",
                                                                        "only_changed"]): value()})),
        ("text", lambda: rnd.choice([nc.compare, nc.sweep])(profiles()).text(width=value())),
        ("Store.add", lambda: nc.Store(root).add(str(RUN / "b16.json"),
                                                 **{rnd.choice(["tags", "at", "commit", "skip_bad"]): value()})),
        ("Store.regressions", lambda: nc.Store(_base_store(workdir)).regressions(
            **{rnd.choice(["since", "min_change", "all_changes", "where"]): value()})),
        ("Store.history", lambda: nc.Store(_base_store(workdir)).history(value())),
        ("inputs", lambda: rnd.choice([nc.compare, nc.sweep, nc.load, nc.load_many, nc.Store, nc.ops])(value())),
        ("ops", lambda: nc.ops(*_views(rnd), **{rnd.choice(["level", "top", "baseline", "basis", "thresholds",
                                                           "order"]): value()})),
        ("ops inputs", lambda: nc.ops(rnd.choice([iter(_views(rnd)), _views(rnd), nc.load(_views(rnd)[0])]),
                                      rnd.choice([value(), str(_views(rnd)[1])]))),
        ("Store.runs", lambda: nc.Store(_base_store(workdir)).runs(
            **{rnd.choice(["model", "batch_size", "", "x", "series_by"]): value()})),
    ]
    name, call = rnd.choice(calls)
    try:
        call()
    except NeuroncmpError as exc:
        if name == "Store.add" and root.exists():
            return Outcome("crash", f"{name} refused ({exc}) but left {root.name} behind"), name
        return Outcome("error", str(exc)), name
    return Outcome("ok"), name


def _views(rnd: random.Random) -> list[str]:
    """Two real view JSONs (op tables), for ``nc.ops``."""
    from fuzzing_ops import SEED_VIEWS

    return [str(path) for path in rnd.sample(SEED_VIEWS, 2)]


# ---- capture -------------------------------------------------------------------------------------

def _strict_batches(text: str) -> tuple[int, ...] | None:
    """The batch list as the docs say it reads, written independently: ASCII digits, 1 to
    2^31 - 1, no repeats; None when it must be refused."""
    out: list[int] = []
    for part in (p.strip() for p in text.split(",")):
        if not re.fullmatch(r"[0-9]{1,10}", part) or not 1 <= int(part) <= 2**31 - 1 or int(part) in out:
            return None
        out.append(int(part))
    return tuple(out)


BATCH_PIECES = ["2", "4", "8", "16", "0", "-4", "+4", "²", "٣", "4.0", " 8 ", "", "1" + "0" * 12,
                "2147483647", "2147483648", "x", "8", "1e3", "０", "1_000"]


def _capture(rnd: random.Random, workdir: Path) -> tuple[Outcome, str]:
    from neuroncmp.capture.plan import parse_batches
    from neuroncmp.errors import UsageError

    if rnd.random() < 0.6:
        text = ",".join(rnd.choice(BATCH_PIECES) for _ in range(rnd.randint(1, 6)))
        expected = _strict_batches(text)
        try:
            found: tuple[int, ...] | None = parse_batches(text)
        except UsageError:
            found = None
        if found != expected:
            return Outcome("crash", f"--batch {text!r}: read as {found}, expected {expected}"), text
        if expected is None:
            return cli(["capture", "--batch", text, "--out", str(workdir / "o"), "--", "true"], workdir,
                       workdir / "o", (2,)), f"--batch {text!r}"
        return Outcome("ok"), f"--batch {text!r}"
    return _resume(rnd, workdir)


def _resume(rnd: random.Random, workdir: Path) -> tuple[Outcome, str]:
    run = _captured(workdir)
    manifest = json.loads((run / "manifest.json").read_text())
    key = rnd.choice(["failed", "failed", "profiles", "command", "whole"])
    if key == "whole":
        text = mutate_json(manifest, rnd)
    else:
        entries = manifest.get(key)
        if isinstance(entries, list) and entries and isinstance(entries[0], dict) and rnd.random() < 0.7:
            entry = entries[0]
            field = rnd.choice(["reason", "status", "label", "batch_size", "file", "params", "oom", "raw"])
            entry[field] = rnd.choice(fuzzing._BAD_VALUES)
            key += f".{field}"
        else:
            manifest[key] = rnd.choice(fuzzing._BAD_VALUES + [[["b64", "oom"]], [5]])
        text = json.dumps(manifest, allow_nan=True)
    (run / "manifest.json").write_text(text)
    args = ["capture", "--batch", "2,64", "--out", str(run), "--resume", "--", *TRAIN]
    return cli(args, workdir, run, (0, 1, 2)), f"--resume after editing {key}"


def _captured(workdir: Path) -> Path:
    """A run folder captured with the stand-in tools (b2 captured, b64 out of memory), copied."""
    if "capture" not in _BASE:
        import tempfile

        from click.testing import CliRunner

        from neuroncmp.capture import tools
        from neuroncmp.cli import cli as command

        os.environ["PATH"] = os.pathsep.join([str(STANDINS), str(Path(sys.executable).parent),
                                              os.environ.get("PATH", "")])
        tools.NEURON_BIN = Path(tempfile.mkdtemp()) / "no-neuron-bin"
        run = Path(tempfile.mkdtemp(prefix="neuroncmp-fuzz-capture-")) / "run"
        result = CliRunner().invoke(command, ["capture", "--batch", "2,64", "--out", str(run), "--", *TRAIN])
        assert result.exit_code == 0, result.output
        _BASE["capture"] = run
    target = workdir / "run"
    shutil.copytree(_BASE["capture"], target, symlinks=True)
    return target
