"""Fuzzing neuroncmp: seed inputs per format, mutations, and the checks every input must pass.

Shared by the test suite (``tests/test_fuzz.py``: hypothesis drives ``random.Random`` seeds
through these mutators, a few dozen examples per format) and ``scripts/fuzz.py`` (long runs,
thousands of inputs per format, a table of what failed).

An input is a bundled profile or fixture, mutated: byte flips, truncation, deleted, duplicated
or swapped lines, numbers swapped for strings, null, NaN, Infinity, 1e400, 5,000-digit
integers, negatives, nested objects, duplicate keys, Unicode, BOM, UTF-16, CRLF, NUL bytes,
wrong column counts, long lines; or a generated structure. Every input goes through the
library (load, every renderer of ``show`` and ``diff`` against a reference profile, gates) and
some through the CLI. What must hold, whatever the input:

- only neuroncmp errors (``NeuroncmpError``), never another exception; no hang;
- no ``NaN`` or ``Infinity`` token in any JSON output;
- no non-finite value, and no negative value of a kind that cannot be negative, without an
  anomaly naming its metric; batch sizes whole numbers >= 1;
- the CLI exits 0, 1 or 3 (never a traceback), an error is one line.
"""

from __future__ import annotations

import io
import json
import math
import os
import random
import re
import shutil
import signal
import sys
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager, redirect_stdout
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parent.parent
RUN = ROOT / "profiles" / "trn1-2xlarge-bs-sweep"
FIXTURES = ROOT / "tests" / "fixtures"
FORMATS = ("summary-json", "summary-text", "ui-markdown", "trainer-json", "trainer-text",
           "neuron-monitor", "explorer-parquet", "run-folder", "view-json", "text-around")
THIRD_PARTY = ROOT / "tests" / "data" / "third_party"
# The kinds whose values cannot be negative (docs/limits.md; catalog.KIND_RANGES).
NON_NEGATIVE = {"time", "bytes", "count", "cycles", "flop", "rate", "intensity", "index", "fraction"}
LIBRARY_SECONDS, CLI_SECONDS = 5.0, 5.0


# ---- seeds ------------------------------------------------------------------------------------

def _b32_block() -> dict[str, Any]:
    return next(iter(json.loads((RUN / "b32.json").read_text()).values()))


def _seed_sections() -> list[str]:
    text = (RUN / "003_a8d02f199ef107f4.txt").read_text()
    parts = re.split(r"(?m)^(?=# )", text)
    return [part for part in parts if part.startswith("# ")]


def seeds() -> dict[str, list[tuple[str, bytes]]]:
    """Seed files per text or JSON format: (file name, content)."""
    block = _b32_block()
    sections = _seed_sections()
    trainer_block = (RUN / "003_a8d02f199ef107f4.txt").read_text().split("```")[1]
    monitor = (FIXTURES / "neuron-monitor-report.json").read_text().strip()
    return {
        "summary-json": [("b32.json", (RUN / "b32.json").read_bytes()),
                         ("baseline.json", (RUN / "baseline.json").read_bytes()),
                         ("trimmed.json", next(FIXTURES.glob("summary-json_*.json")).read_bytes()),
                         ("full_bs16.json", json.dumps({"summary": [block], "instruction": [
                             {"timestamp": 1, "duration": 2, "opcode": "MATMUL"}]}).encode())],
        "summary-text": [("b32.txt", "".join(f"{k}  {v}\n" for k, v in block.items()).encode())],
        "ui-markdown": [("export.md", "".join(sections[i] for i in (0, 2)).encode()),
                        ("b32.memory.md", (RUN / "b32.memory.md").read_bytes()),
                        ("batch4.md", sections[6].encode())],
        "trainer-json": [("b32.all_results.json", (RUN / "b32.all_results.json").read_bytes())],
        "trainer-text": [("train_b32.log", trainer_block.encode())],
        "neuron-monitor": [("monitor.json", monitor.encode()),
                           ("monitor.jsonl", (monitor + "\n" + monitor + "\n").encode())],
        # the full view JSON (a real inf2 document) and profiles inside other text (tool log lines,
        # runner sections): mutated as text, so the surrounding lines and the JSON both break
        "view-json": [("view.json", (THIRD_PARTY / "view-json" /
                                     "inf2.xlarge_profiler-2.27_matmul_128x128x136.json").read_bytes())],
        "text-around": [(path.name, path.read_bytes()) for path in sorted((THIRD_PARTY / "derived").glob(
            "trn2.3xlarge_*summary-json*")) if path.is_file()],
    }


# ---- mutations --------------------------------------------------------------------------------

SPECIAL_JSON = ['"x"', '""', "null", "NaN", "Infinity", "-Infinity", "1e400", "-1e400", "1" * 5000,
                "-" + "9" * 400, "-1", "-0.5", "0", "5e-324", "1e308", "-1e308", "true", '{"a": 1}',
                "[1, 2]", "[]", "{}", '"\\u001b[31mred"', '"=HYPERLINK(\\"x\\")"', '"<script>"',
                '"a\\nb"', '"\\ud800"', "2.5", "1.0000000001e-300"]
SPECIAL_TEXT = ["x", "", "nan", "inf", "-inf", "1e400", "-1e400", "1" * 5000, "-5", "-0.5", "0",
                "5e-324", "1e308", "²", "١٢", "１２", "1_000", "1.2.3", "\x1b[31m", "=HYPERLINK(\"x\")",
                "<script>", "\u202e", "\ud7ff", "9" * 30, "-" + "9" * 400, " " * 3000 + "x",
                "1e999990 KiB", "-3 GiB", "12 34", "3 **PB**"]
JUNK = ["\x00", "\r", "\x0b", "\x1b", "\u2028", "\u202e", "\ufeff", "é", "😀", "̈", "²", "|", "**",
        "#", "# ", "```", "*****", ":", "=", "{", "}", "[", "]", '"', "\\", "\t", "(", ")"]
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def _lines_mutation(text: str, rnd: random.Random) -> str:
    lines = text.splitlines(keepends=True)
    if not lines:
        return text
    i = rnd.randrange(len(lines))
    choice = rnd.randrange(5)
    if choice == 0:
        del lines[i]
    elif choice == 1:
        lines.insert(i, lines[i])
    elif choice == 2:
        j = rnd.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    elif choice == 3:  # a cell more or fewer in a table row
        lines[i] = lines[i].replace("|", "| x |", 1) if rnd.random() < 0.5 else lines[i].replace("|", "", 1)
    else:  # a long run inside a line: what makes a backtracking pattern quadratic
        run = rnd.choice([" ", "1", "a", ".", "(", "*", "|", "nc1", "util_limit", "\t", ": 1", " a", "1 ",
                          "**", "# ", "=", "batch", "_", "a ", "A.", "1.", " :"])
        line = lines[i]
        at = rnd.randrange(len(line) + 1)
        lines[i] = line[:at] + run * rnd.randint(1000, 20000) + rnd.choice(["x", "", " y"]) + line[at:]
    return "".join(lines)


def _number_mutation(text: str, rnd: random.Random, special: list[str]) -> str:
    matches = list(_NUMBER.finditer(text))
    if not matches:
        return text
    for match in rnd.sample(matches, min(len(matches), rnd.randint(1, 3))):
        text = text[:match.start()] + rnd.choice(special) + text[match.end():]
        break  # offsets move after a replacement
    return text


def _junk_mutation(text: str, rnd: random.Random) -> str:
    position = rnd.randrange(len(text) + 1)
    return text[:position] + "".join(rnd.choice(JUNK) for _ in range(rnd.randint(1, 8))) + text[position:]


def mutate_text(text: str, rnd: random.Random, special: list[str]) -> str:
    """One to three text-level mutations."""
    for _ in range(rnd.randint(1, 3)):
        kind = rnd.randrange(5)
        if kind == 0:
            text = _lines_mutation(text, rnd)
        elif kind in (1, 2):
            text = _number_mutation(text, rnd, special)
        elif kind == 3:
            text = _junk_mutation(text, rnd)
        else:
            text = text[:rnd.randrange(len(text) + 1)]  # truncated
    return text


def mutate_bytes(data: bytes, rnd: random.Random) -> bytes:
    """Encoding and byte-level damage: flips, BOMs, UTF-16, CRLF, NUL bytes."""
    kind = rnd.randrange(7)
    if kind == 0 and data:
        buffer = bytearray(data)
        for _ in range(rnd.randint(1, 8)):
            buffer[rnd.randrange(len(buffer))] = rnd.randrange(256)
        return bytes(buffer)
    if kind == 1:
        return b"\xef\xbb\xbf" + data
    if kind == 2:
        text = data.decode("utf-8", errors="replace")
        return text.encode(rnd.choice(["utf-16", "utf-16-le", "utf-16-be", "utf-32"]))
    if kind == 3:
        return data.replace(b"\n", b"\r\n")
    if kind == 4:
        position = rnd.randrange(len(data) + 1)
        return data[:position] + b"\x00" * rnd.randint(1, 3) + data[position:]
    if kind == 5:
        return data.decode("utf-8", errors="replace").encode("latin-1", errors="replace")
    return data.replace(b"\n", b"\r")


class Raw(str):
    """A JSON token written as is (``NaN``, a 5,000-digit integer, ...)."""


class Pairs(list):  # type: ignore[type-arg]
    """A JSON object written from (key, value) pairs, so a key can be given twice."""


def dump(value: Any) -> str:
    """JSON text of ``value``, with ``Raw`` tokens and ``Pairs`` objects as they are."""
    if isinstance(value, Raw):
        return str(value)
    if isinstance(value, Pairs):
        return "{" + ", ".join(f"{json.dumps(k)}: {dump(v)}" for k, v in value) + "}"
    if isinstance(value, dict):
        return dump(Pairs(value.items()))
    if isinstance(value, list):
        return "[" + ", ".join(dump(v) for v in value) + "]"
    return json.dumps(value)


def _containers(value: Any, out: list[Any]) -> list[Any]:
    if isinstance(value, Pairs) or (isinstance(value, dict) and "__pairs__" in value):
        return out  # already holds a duplicate key: left as it is
    if isinstance(value, (dict, list)):
        out.append(value)
        for child in (value.values() if isinstance(value, dict) else value):
            _containers(child, out)
    return out


def _special_value(rnd: random.Random) -> Any:
    if rnd.random() < 0.1:
        depth = rnd.choice([3, 70, 500, 1100, 5000])
        return Raw("[" * depth + "1" + "]" * depth)
    return Raw(rnd.choice(SPECIAL_JSON))


def mutate_json(data: Any, rnd: random.Random) -> str:
    """Structural mutations of decoded JSON, written back with ``dump``."""
    for _ in range(rnd.randint(1, 4)):
        containers = _containers(data, [])
        if not containers:
            break
        node = rnd.choice(containers)
        kind = rnd.randrange(6)
        if isinstance(node, list):
            if node and kind < 3:
                node[rnd.randrange(len(node))] = _special_value(rnd)
            elif kind < 5:
                node.append(_special_value(rnd))
            elif node:
                node.pop(rnd.randrange(len(node)))
            continue
        keys = list(node)
        if not keys:
            node[rnd.choice(["x", "total_time", ""])] = _special_value(rnd)
            continue
        key = rnd.choice(keys)
        if kind <= 2:
            node[key] = _special_value(rnd)
        elif kind == 3:
            del node[key]
        elif kind == 4:  # the same key twice, the second value different
            pairs = Pairs(node.items())
            pairs.insert(rnd.randrange(len(pairs) + 1), (key, _special_value(rnd)))
            node.clear()
            node["__pairs__"] = pairs
        else:
            node[key + rnd.choice(["x", "_nc0", "\u202e", "\x1b", " ", "|"])] = node.pop(key)
    return dump(_unwrap(data))


def _unwrap(value: Any) -> Any:
    if isinstance(value, dict):
        if list(value) == ["__pairs__"]:
            return Pairs((k, _unwrap(v)) for k, v in value["__pairs__"])
        return {k: _unwrap(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_unwrap(v) for v in value]
    return value


def generated_json(rnd: random.Random, catalogued: list[str]) -> str:
    """A generated document: an object of catalogued and made-up names with random values."""
    def scalar() -> Any:
        return rnd.choice([Raw(rnd.choice(SPECIAL_JSON)), rnd.random() * 10 ** rnd.randint(-12, 15),
                           rnd.randint(-10**6, 10**15), "v" * rnd.randint(0, 5)])
    names = rnd.sample(catalogued, min(len(catalogued), rnd.randint(1, 30)))
    names += ["".join(rnd.choice("abc_%nc0|é\x1b") for _ in range(rnd.randint(0, 12))) for _ in range(3)]
    body = Pairs((name, scalar()) for name in names)
    return dump(rnd.choice([body, {"n_gen": body}, {"summary": [body]}, [body], body]))


# ---- inputs, one per call -------------------------------------------------------------------------

class Case(NamedTuple):
    format: str
    path: Path
    how: str  # what was done to the seed, for a report


def make_case(fmt: str, rnd: random.Random, workdir: Path) -> Case:
    """Write one mutated input of ``fmt`` under ``workdir`` (emptied first)."""
    if workdir.exists():
        _clear(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    if fmt == "explorer-parquet":
        return _parquet_case(rnd, workdir)
    if fmt == "run-folder":
        return _run_folder_case(rnd, workdir)
    name, data = rnd.choice(seeds_cached()[fmt])
    data, how = _mutated(fmt, data, rnd)
    if rnd.random() < 0.05:
        name = Path(name).stem + rnd.choice([".json", ".txt", ".md", ".log", ".jsonl", ""])
    path = workdir / name
    path.write_bytes(data)
    return Case(fmt, path, how)


_SEEDS: dict[str, list[tuple[str, bytes]]] = {}
_CATALOGUED: list[str] = []


def seeds_cached() -> dict[str, list[tuple[str, bytes]]]:
    if not _SEEDS:
        _SEEDS.update(seeds())
    return _SEEDS


def _catalogued() -> list[str]:
    if not _CATALOGUED:
        from neuroncmp.catalog import catalog

        _CATALOGUED.extend(catalog())
    return _CATALOGUED


def _mutated(fmt: str, data: bytes, rnd: random.Random) -> tuple[bytes, str]:
    text = data.decode("utf-8")
    roll = rnd.random()
    if fmt.endswith("json") or fmt == "neuron-monitor":
        if roll < 0.45:
            lines = text.splitlines()
            if fmt == "neuron-monitor" and len(lines) > 1:
                i = rnd.randrange(len(lines))
                lines[i] = mutate_json(json.loads(lines[i]), rnd)
                return "\n".join(lines).encode(), "json structure (one line)"
            return mutate_json(json.loads(text), rnd).encode(), "json structure"
        if roll < 0.55 and fmt != "neuron-monitor":
            return generated_json(rnd, _catalogued()).encode(), "generated"
        special = SPECIAL_JSON
    else:
        special = SPECIAL_TEXT
    if roll < 0.85:
        return mutate_text(text, rnd, special).encode("utf-8", errors="surrogatepass"), "text"
    return mutate_bytes(data, rnd), "bytes"


def _clear(folder: Path) -> None:
    for child in folder.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()


def _parquet_case(rnd: random.Random, workdir: Path) -> Case:
    import pyarrow as pa
    import pyarrow.parquet as pq

    block = _b32_block()
    summary = {k: v for k, v in block.items() if not isinstance(v, str) and "throttle" not in k}
    summary.update(neuroncore_idx=0, neuron_device_idx=0)
    tables: dict[str, list[dict[str, Any]]] = {
        "Summary": [summary],
        "Metadata": [{"instance_type": "trn1.2xlarge", "explorer_version": "2.31.0",
                      "num_physical_cores": 2, "hbm_ddr_bandwidth": 410_000_000_000}],
        "ThrottleSummary": [{"nc_idx": 0, "throttle_type": "all", "throttle_active_time_ns": 16_240_000,
                             "throttle_active_time_percent": 0.1416,
                             "max_achievable_util_with_throttling_percent": 0.9814}],
        "HbmUsageSummaryByType": [{"neuron_device_idx": 0, "neuroncore_idx": 0, "usage_type": label,
                                   "usage_bytes": amount} for label, amount in
                                  (("Shared Scratchpad", 3 * 2**30), ("DRAM Spill", 0), ("Tensors", 1315333734))],
    }
    hows = []
    for _ in range(rnd.randint(1, 3)):
        table = rnd.choice(list(tables))
        rows = tables[table]
        row = rnd.choice(rows)
        column = rnd.choice(list(row))
        value = rnd.choice(["x", None, math.nan, math.inf, -math.inf, -5, 2**63 - 1, -2**63, 5e-324,
                            1e308, b"\xff\xfebytes", True, [1, 2], 2.5, "\x1b[31m", "=1+1", 0])
        row[column] = value
        hows.append(f"{table}.{column}={value!r:.20}")
        if rnd.random() < 0.2:
            rows.append(dict(row))
    folder = workdir / rnd.choice(["b32@latest", "explorer", "bs_0"])
    folder.mkdir()
    for table, rows in tables.items():
        if rnd.random() < 0.07 and table != "Summary":
            continue  # a table missing
        try:
            arrow = pa.Table.from_pylist(rows)
        except (pa.ArrowException, TypeError, ValueError, OverflowError):  # mixed types: as text
            arrow = pa.Table.from_pylist([{k: repr(v) for k, v in r.items()} for r in rows])
        pq.write_table(arrow, folder / f"{table}.parquet")
    if rnd.random() < 0.1:
        victim = folder / f"{rnd.choice(list(tables))}.parquet"
        if victim.exists():
            data = bytearray(victim.read_bytes())
            for _ in range(rnd.randint(1, 20)):
                data[rnd.randrange(len(data))] = rnd.randrange(256)
            victim.write_bytes(bytes(data[: rnd.randrange(len(data) + 1)] if rnd.random() < 0.3 else data))
            hows.append(f"damaged {victim.name}")
    return Case("explorer-parquet", folder, "; ".join(hows))


_MANIFEST_FILES = ["b32.json", "b64.json", "baseline.json"]
_BAD_NAMES = [".", "..", "/etc/passwd", "../outside.json", "sub", "sub/", "manifest.json", "fifo.json",
              "zero.json", "link-out.json", "missing.json", "loop", "nested", "", " ", 5, None, ["b32.json"],
              {"file": "x"}, "b32.json\x00", "a\nb.json", "b32.memory.md", "../" * 30 + "etc/passwd"]
_BAD_VALUES: list[Any] = [None, 0, -1, 2.5, "8", True, 10**30, [], {}, [1], {"a": 1}, "", "x" * 300,
                          "\x1b[31m", "../../x", "/tmp/x", float("nan")]


def _run_folder_case(rnd: random.Random, workdir: Path) -> Case:
    folder = workdir / "run"
    folder.mkdir()
    manifest = json.loads((RUN / "manifest.json").read_text())
    entries = [e for e in manifest["profiles"] if e["file"] in _MANIFEST_FILES]
    for entry in entries:
        for key in ("file", "memory", "training"):
            if entry.get(key):
                shutil.copyfile(RUN / entry[key], folder / entry[key])
    _traps(folder, workdir)
    manifest["profiles"] = entries
    hows = []
    for _ in range(rnd.randint(1, 3)):
        entry = rnd.choice(entries) if entries else {}
        key = rnd.choice(["file", "file", "memory", "training", "label", "notes", "params", "metadata",
                          "section", "params.batch_size", "profiles", "schema"])
        if key in ("file", "memory", "training"):
            entry[key] = rnd.choice(_BAD_NAMES)
        elif key == "params.batch_size":
            if not isinstance(entry.get("params"), dict):
                entry["params"] = {}
            entry["params"]["batch_size"] = rnd.choice(_BAD_VALUES)
        elif key == "profiles":
            manifest["profiles"] = rnd.choice(_BAD_VALUES + [entries * 2, [entries[0], 5]])
        elif key == "schema":
            manifest["schema"] = rnd.choice(_BAD_VALUES)
        else:
            entry[key] = rnd.choice(_BAD_VALUES)
        hows.append(f"{key}")
    text = json.dumps(manifest, allow_nan=True)
    if rnd.random() < 0.2:
        text = mutate_json(json.loads(text), rnd)
        hows.append("json structure")
    (folder / "manifest.json").write_text(text)
    target = folder if rnd.random() < 0.8 else folder / rnd.choice(_MANIFEST_FILES)
    return Case("run-folder", target, ", ".join(hows))


def _traps(folder: Path, workdir: Path) -> None:
    """Things a manifest may name and must not be read through: a FIFO, a device, links out."""
    (workdir / "outside.json").write_text(json.dumps({"n_x": {"total_time": 1.0}}))
    os.mkfifo(folder / "fifo.json")
    (folder / "zero.json").symlink_to("/dev/zero")
    (folder / "link-out.json").symlink_to(workdir / "outside.json")
    (folder / "loop").symlink_to(folder / "loop")
    (folder / "sub").mkdir()
    (folder / "nested").mkdir()
    (folder / "nested" / "manifest.json").write_text(json.dumps(
        {"schema": "neuroncmp.manifest/1", "profiles": [{"file": ".."}]}))


# ---- the checks -------------------------------------------------------------------------------

class Hang(BaseException):
    """Raised by the timer: an input took longer than its time limit."""


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise ``Hang`` after ``seconds`` of this process's CPU time (ITIMER_PROF), not wall time: a
    loop that hangs spends CPU, while a loaded machine (other jobs on 2 cores) only stretches the
    wall clock, which made the wall-clock limit fail healthy inputs."""
    def expire(signum: int, frame: Any) -> None:
        raise Hang(f"over {seconds:g} s of CPU")
    previous = signal.signal(signal.SIGPROF, expire)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


class Outcome(NamedTuple):
    kind: str      # "ok", "error" (a neuroncmp error), "crash", "hang", "silent"
    detail: str = ""


def strict_json(text: str) -> Any:
    """Parse as JSON with no NaN or Infinity tokens (Python's parser accepts them by default)."""
    def refuse(token: str) -> Any:
        raise ValueError(f"non-JSON token {token}")
    return json.loads(text, parse_constant=refuse)


def silent_values(profiles: list[Any]) -> list[str]:
    """Values no anomaly names: non-finite, or negative where the kind cannot be; bad batch sizes."""
    from neuroncmp.catalog import MetricSpec, lookup

    problems = []
    for profile in profiles:
        flagged = {a.metric for a in profile.anomalies if a.metric is not None}
        for metric in (*profile.metrics.values(), *profile.training.values()):
            value = metric.value
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                if not isinstance(value, str):
                    problems.append(f"{metric.name}: a {type(value).__name__} value")
                continue
            spec = lookup(metric.name)
            kind = spec.kind if metric.unit == spec.unit else MetricSpec(metric.name, "", metric.unit).kind
            suspect = (isinstance(value, float) and not math.isfinite(value)) or (
                value < 0 and kind in NON_NEGATIVE) or abs(value) > 1.8e308
            if suspect and metric.name not in flagged:
                problems.append(f"{metric.name}={value!r:.30} ({kind}) without an anomaly")
        for row in profile.memory:
            name = "device_memory_total" if row.usage_type == "total" else f"memory.{row.usage_type}"
            if row.bytes < 0 and name not in flagged:
                problems.append(f"memory row {row.label!r:.30}={row.bytes} without an anomaly")
        size = profile.batch_size
        if size is not None and (type(size) is not int or size < 1):
            problems.append(f"batch size {size!r}")
    return problems


def _reference() -> Any:
    import neuroncmp

    (profile,) = neuroncmp.load(RUN / "b32.json")
    return profile.replace(label="reference-b32")


def check_library(path: Path, draw_charts: bool = True) -> Outcome:
    """Load ``path`` and render it every way; the outcome says what, if anything, went wrong.

    ``draw_charts=False`` still builds the sweep's chart figures but does not draw them to PNG
    (drawing is nine tenths of an input's time; long runs draw a sample of the inputs).
    """
    import neuroncmp
    from neuroncmp.errors import NeuroncmpError

    try:
        with time_limit(LIBRARY_SECONDS):
            try:
                profiles = neuroncmp.load(path)
            except NeuroncmpError as exc:
                return Outcome("error", str(exc))
            problems = silent_values(profiles) + _render_all(profiles, draw_charts)
    except Hang as exc:
        return Outcome("hang", str(exc))
    except Exception:  # anything but a neuroncmp error is a crash: that is what is counted
        return Outcome("crash", _last_frame())
    return Outcome("silent", "; ".join(problems)) if problems else Outcome("ok")


def _render_all(profiles: list[Any], draw_charts: bool = True) -> list[str]:
    from neuroncmp.comparison.differ import compare
    from neuroncmp.comparison.gates import evaluate, parse_rule
    from neuroncmp.comparison.view import select
    from neuroncmp.errors import NeuroncmpError
    from neuroncmp.render.base import DiffReport
    from neuroncmp.render.registry import renderers

    problems: list[str] = []
    by_name = {r.name: r for r in renderers()}
    _plain_ok(by_name["term"].render("profiles", profiles, 100), "show", problems)
    by_name["term"].render("profiles", profiles, 80)
    _json_ok(by_name["json"].profiles(profiles, 100), "show --format json", problems)
    try:
        comparison = compare(_reference(), profiles)
    except NeuroncmpError:
        return problems
    rules = [parse_rule("total_time/step>+5%"), parse_rule("*_percent<-1pp"), parse_rule("memory.*>=2x")]
    try:
        gates = evaluate(comparison, rules)
    except NeuroncmpError:
        gates = ()
    for sort in ("group", "change"):
        report = DiffReport(comparison, select(comparison, sort=sort, only_changed=sort == "change"), gates)
        _render_every_way("diff", report, problems)
        by_name["term"].render("diff", report, 60)
    _render_sweep(profiles, problems, draw_charts)
    return problems


def _render_sweep(profiles: list[Any], problems: list[str], draw_charts: bool) -> None:
    """The sweep analysis (fits, roofline, findings) of the reference with the mutated profiles."""
    from neuroncmp.analysis.sweep import sweep
    from neuroncmp.errors import NeuroncmpError
    from neuroncmp.render import charts
    from neuroncmp.render.formats import html

    try:
        result = sweep(_reference(), *profiles)
    except NeuroncmpError:
        return
    if draw_charts or not charts.available():
        _render_every_way("sweep", result, problems)
        return
    _render_every_way("sweep", result, problems, skip="html")
    html.sweep_fragment(result, with_charts=False)
    for build in charts.FIGURES.values():
        build(result)  # the figures' data and axes, without the costly drawing


def _render_every_way(document: str, value: Any, problems: list[str], skip: str = "") -> None:
    """``document`` (diff, sweep) in every format that has it but ``skip``, each output checked its way."""
    from neuroncmp.render.registry import renderers

    for renderer in renderers():
        if renderer.supports(document) and renderer.name != skip:
            text = renderer.render(document, value, 100)
            if renderer.name == "json":
                _json_ok(text, f"{document} --format json", problems)
            elif renderer.name == "term":
                _plain_ok(text, document, problems)
            elif renderer.name == "csv":
                _csv_ok(text, problems)


_CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _plain_ok(text: str, what: str, problems: list[str]) -> None:
    """Terminal text holds no control or bidi character (only newlines)."""
    found = _CONTROL.search(text)
    if found:
        problems.append(f"{what}: raw control character {found.group()!r} in terminal output")


def _csv_ok(text: str, problems: list[str]) -> None:
    """No CSV cell a spreadsheet would run as a formula (numbers excepted)."""
    import csv

    csv.field_size_limit(2**31 - 1)  # cells with megabyte names are fine here
    for row in csv.reader(io.StringIO(text)):
        for cell in row:
            if cell[:1] in ("=", "+", "-", "@", "\t", "\r") and not _is_number(cell):
                problems.append(f"csv: formula cell {cell[:30]!r}")
                return


def _is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def _json_ok(text: str, what: str, problems: list[str]) -> None:
    try:
        strict_json(text)
    except ValueError as exc:
        problems.append(f"{what}: {exc}")


def _last_frame() -> str:
    frames = traceback.extract_tb(sys.exc_info()[2])
    own = [f for f in frames if "neuroncmp" in f.filename] or frames
    exc = sys.exc_info()[1]
    last = own[-1]
    return f"{type(exc).__name__} at {Path(last.filename).name}:{last.lineno}: {str(exc)[:80]}"


CLI_ARGS: list[Callable[[str, str, str], list[str]]] = [
    lambda path, ref, out: ["show", path, "--no-color"],
    lambda path, ref, out: ["show", path, "--format", "json"],
    lambda path, ref, out: ["diff", ref, path, "--no-color", "--width", "80"],
    lambda path, ref, out: ["diff", ref, path, "--format", "csv"],
    # a mutated kernel against the training step is another workload: its gates are judged when told to
    lambda path, ref, out: ["diff", path, ref, "--format", "md", "--fail-on", "total_time>+1%", "--allow-incomparable"],
    lambda path, ref, out: ["diff", ref, path, "-o", out],
    lambda path, ref, out: ["diff", ref, path, "--format", "html", "--sort", "change"],
    lambda path, ref, out: ["convert", path, "-o", str(Path(out).parent / "converted")],
    lambda path, ref, out: ["sweep", ref, path, "--no-color", "--width", "70"],
    lambda path, ref, out: ["sweep", ref, path, "--format", "json"],
    lambda path, ref, out: ["diff", ref, path, "--summary", "--format", "md"],
]


def check_cli(path: Path, rnd: random.Random, workdir: Path) -> Outcome:
    """One CLI command on ``path``: exit 0, 1 or 3, no traceback, errors on one line, strict JSON."""
    from click.testing import CliRunner

    from neuroncmp.cli import cli

    out = workdir / "out" / "report.json"
    if out.parent.exists():
        shutil.rmtree(out.parent)
    args = rnd.choice(CLI_ARGS)(str(path), str(RUN / "b32.json"), str(out))
    before = _files(workdir)
    try:
        with time_limit(CLI_SECONDS):
            result = CliRunner().invoke(cli, args)
    except Hang as exc:
        return Outcome("hang", f"{args[0]}: {exc}")
    strays = [p for p in _files(workdir) - before if out.parent not in p.parents]
    if strays:
        return Outcome("crash", f"{args[0]} wrote outside its output: {sorted(map(str, strays))[:3]}")
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        exc = result.exception
        frames = traceback.extract_tb(exc.__traceback__)
        last = ([f for f in frames if "neuroncmp" in f.filename] or frames)[-1]
        return Outcome("crash", f"{args[0]}: {type(exc).__name__} at {Path(last.filename).name}:"
                                f"{last.lineno}: {str(exc)[:80]}")
    if result.exit_code not in (0, 1, 3):
        return Outcome("crash", f"{' '.join(args[:1])}: exit {result.exit_code}: {result.output[:120]!r}")
    if result.exit_code == 1:
        # the error is one line; notes and warnings (what the set was read as: a copy read once) may
        # come before it, each a line of its own, as fuzzing_surfaces.cli allows
        lines = [line for line in result.output.strip().splitlines() if not line.startswith(("note: ", "warning: "))]
        if len(lines) != 1 or not lines[0].startswith("Error: "):
            return Outcome("crash", f"{args[0]}: error not one line: {result.output[:160]!r}")
        return Outcome("error", lines[0])
    if args[0] == "convert":
        return _converted(out.parent / "converted", path.name)
    text = out.read_text() if "-o" in args else result.output if "json" in args else None
    if text is not None:
        try:
            strict_json(text)
        except ValueError as exc:
            return Outcome("silent", f"{args[0]} JSON: {exc}")
    return Outcome("ok")


def _files(folder: Path) -> set[Path]:
    return {p for p in folder.rglob("*") if not p.is_dir() or p.is_symlink()}


def _converted(folder: Path, report: str) -> Outcome:
    """What ``convert`` wrote is strict JSON (the copy of the report it converted is as it was)."""
    for file in folder.glob("*.json"):
        if file.name == report:
            continue
        try:
            strict_json(file.read_text())
        except ValueError as exc:
            return Outcome("silent", f"convert wrote non-JSON {file.name}: {exc}")
    return Outcome("ok")


def quietly(function: Callable[..., Outcome], *args: Any) -> Outcome:
    with redirect_stdout(io.StringIO()):
        return function(*args)
