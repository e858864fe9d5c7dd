"""Fuzzing ``neuroncmp ops`` (issue 33): mutated op tables and options, through the CLI and the library.

A case is two or three inputs of one kind, one of them mutated:

- ``view-json``: a real inf2 view JSON (tests/data/third_party) with instruction rows, the summary's
  step time, ``layer_summary`` or ``neff_header`` changed: a field set to null, NaN, an infinity,
  1e400, 1e300, a negative, a string, a boolean, a list, an object or a 400-digit integer, deleted, an
  interval reversed, rows duplicated, dropped or emptied;
- ``explorer``: the generated op-table folders (``scripts/make_explorer_fixtures.py``) with a column of
  ``Instruction``, ``OpcodeSummary`` or ``HloInstruction`` recast (text, float, boolean, binary, all
  null) or given null, NaN, an infinity, a negative, a huge value or a reversed interval in some rows,
  rows given twice or shuffled out of time order, or a table removed (the others then stand in, or the level is
  refused);

and options drawn from good values and bad ones (``--level``, ``--top``, ``--basis``, ``--order``,
``--baseline``, ``--threshold``, ``--format``, ``-o``). What must hold:

- exit 2 exactly when a bad option was drawn; else 0, or 1 with one error line (a refused input);
  never a traceback, nothing written outside the output;
- on exit 0 the comparison (its JSON, schema ``neuroncmp.ops/3``, made again by the library) shows no
  non-finite or negative time: every operator's, change's and step's is a finite number (or null where
  a side has none) and every time >= 0; no ``NaN``/``Infinity`` token, no ``non_finite`` member, no
  ``nan``/``inf`` word in the printed output;
- it never scores a suspect value: an operator whose time exceeds its side's step is ``suspect`` and
  never counted in the contributions, and
  a side whose step time is doubted has no step in the JSON and no share of it.
"""

from __future__ import annotations

import json
import math
import random
import re
import shutil
import sys
import warnings
from pathlib import Path
from typing import Any

from fuzzing import ROOT, Outcome, strict_json

VIEWS = ROOT / "tests" / "data" / "third_party" / "view-json"
SEED_VIEWS = [VIEWS / f"inf2.xlarge_profiler-2.27_matmul_128x128x{n}.json" for n in (256, 1024, 512, 136)]
TOKENS = ["null", "NaN", "Infinity", "-Infinity", "1e400", "1e300", "-1", "-0.5", '"12"', '""', "true", "[]",
          "{}", "[1, 2]", "1" * 400, "0", "5e-324", "4611686018427387905", '"\\u001b[31m"']
FIELDS = ["timestamp", "duration", "hbm_read_bytes", "hbm_write_bytes", "opcode", "subgroup", "hlo_name",
          "layer", "fully_qualified_subgraph"]
LEVELS = ["opcode", "hlo", "layer", "kernel"]
FORMATS = ["term", "json", "csv", "md", "html"]
_GENERATED: dict[str, Path] = {}


# ---- view JSON ----------------------------------------------------------------------------------

def _view_case(rnd: random.Random, folder: Path) -> tuple[list[Path], str]:
    chosen = rnd.sample(SEED_VIEWS, rnd.randint(2, 3))
    paths = []
    for number, source in enumerate(chosen):
        target = folder / f"v{number}" / source.name
        target.parent.mkdir(parents=True)
        shutil.copyfile(source, target)
        paths.append(target)
    victim = rnd.choice(paths)
    document = json.loads(victim.read_text())
    hows = [_mutate_view(document, rnd) for _ in range(rnd.randint(1, 3))]
    text = json.dumps(document)
    for token in re.findall(r'"@@(\d+)@@"', text):
        text = text.replace(f'"@@{token}@@"', TOKENS[int(token)])
    victim.write_text(text)
    return paths, f"{victim.parent.name}: {'; '.join(hows)}"


def _raw(rnd: random.Random) -> str:
    return f"@@{rnd.randrange(len(TOKENS))}@@"  # a token written raw into the JSON text


def _mutate_view(document: dict[str, Any], rnd: random.Random) -> str:
    rows = document.get("instruction")
    kind = rnd.choice(["field", "field", "field", "delete", "reverse", "rows", "step", "layers", "neff"])
    if kind in ("field", "delete", "reverse") and isinstance(rows, list) and rows:
        at = rnd.randrange(len(rows))
        row = rows[at]
        if not isinstance(row, dict):
            return "row not an object"
        if kind == "reverse":  # an interval that ends before it starts
            row["duration"] = -abs(row.get("duration") or 1) if rnd.random() < 0.5 else row.get("duration")
            row["timestamp"] = -1 if rnd.random() < 0.5 else row.get("timestamp")
            return f"instruction[{at}] reversed"
        field = rnd.choice(FIELDS)
        if kind == "delete":
            row.pop(field, None)
            return f"instruction[{at}].{field} deleted"
        row[field] = _raw(rnd)
        return f"instruction[{at}].{field}={TOKENS[int(row[field][2:-2])][:12]}"
    if kind == "rows" and isinstance(rows, list) and rows:
        choice = rnd.randrange(4)
        if choice == 0:
            rows.extend(rnd.sample(rows, min(len(rows), 5)))
        elif choice == 1:
            del rows[rnd.randrange(len(rows)):]
        elif choice == 2:
            rows[rnd.randrange(len(rows))] = _raw(rnd)
        else:
            document["instruction"] = _raw(rnd)
        return f"instruction rows ({choice})"
    if kind == "step":
        summary = document.get("summary")
        if isinstance(summary, list) and summary and isinstance(summary[0], dict):
            summary[0]["total_time"] = _raw(rnd)
        return "summary total_time"
    if kind == "layers":
        layers = document.get("layer_summary")
        if isinstance(layers, list) and layers and isinstance(layers[0], dict):
            layers[rnd.randrange(len(layers))]["tensor_engine_flop_count"] = _raw(rnd)
        else:
            document["layer_summary"] = _raw(rnd)
        return "layer_summary"
    document["neff_header"] = rnd.choice([_raw(rnd), [{"hash": _raw(rnd)}], []])
    return "neff_header"


# ---- Explorer Parquet ----------------------------------------------------------------------------

def _generated() -> dict[str, Path]:
    """The two op-table folders of make_explorer_fixtures.py, written once per process."""
    if not _GENERATED:
        import importlib.util
        import tempfile

        spec = importlib.util.spec_from_file_location("make_explorer_fixtures",
                                                      ROOT / "scripts" / "make_explorer_fixtures.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _GENERATED.update(module.write_ops(Path(tempfile.mkdtemp(prefix="neuroncmp-fuzz-ops-"))))
    return _GENERATED


def _explorer_case(rnd: random.Random, folder: Path) -> tuple[list[Path], str]:
    paths = []
    for source in _generated().values():
        target = folder / source.name
        shutil.copytree(source, target)
        paths.append(target)
    victim = rnd.choice(paths)
    hows = [_mutate_tables(victim, rnd) for _ in range(rnd.randint(1, 3))]
    return paths, f"{victim.name}: {'; '.join(hows)}"


_COLUMNS = {"Instruction": ["start_ts", "end_ts", "raw_flops", "hbm_read_bytes", "hbm_write_bytes", "engine",
                            "opcode", "hlo_name", "layer", "nki_source_location"],
            "OpcodeSummary": ["instruction_count", "instruction_time_ns", "active_time_ns", "engine", "opcode"],
            "HloInstruction": ["time_intervals", "hbm_read_bytes", "hbm_write_bytes", "hlo_name"]}
_VALUES: list[Any] = [None, math.nan, math.inf, -math.inf, -1, -0.5, 2**62 + 1, 1e300, 0, "x", "12", True,
                      b"\xff", "[[20, 10]]", "[[NaN, 1]]", "[[1, 2, 3]]", "[" * 50, "\x1b[31m"]


def _mutate_tables(folder: Path, rnd: random.Random) -> str:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = rnd.choice(list(_COLUMNS))
    path = folder / f"{table}.parquet"
    if not path.exists():
        return f"{table} already gone"
    if rnd.random() < 0.12:
        path.unlink()
        return f"{table} removed"
    data = pq.read_table(path)
    if rnd.random() < 0.08:  # rows given twice
        at = rnd.randrange(data.num_rows)
        pq.write_table(pa.concat_tables([data, data.slice(at, rnd.randint(1, 3))]), path)
        return f"{table} rows from {at} twice"
    if rnd.random() < 0.1:  # out of time order: the rows shuffled
        order = list(range(data.num_rows))
        rnd.shuffle(order)
        pq.write_table(data.take(order), path)
        return f"{table} shuffled"
    column = rnd.choice([c for c in _COLUMNS[table] if c in data.schema.names])
    values = data.column(column).to_pylist()
    how = rnd.randrange(4)
    if how == 0:  # every value recast to another type
        cast = rnd.choice([str, float, bool, lambda v: str(v).encode()])
        values = [None if v is None else _tried(cast, v) for v in values]
    elif how == 1 and column == "end_ts":  # reversed intervals
        values = [v - rnd.randint(1, 5000) if isinstance(v, int) else v for v in values]
    else:  # some rows given one odd value
        value = rnd.choice(_VALUES)
        for at in rnd.sample(range(len(values)), rnd.randint(1, min(3, len(values)))):
            values[at] = value
    try:
        array = pa.array(values)
    except (pa.ArrowException, TypeError, ValueError, OverflowError):  # mixed types: as text
        array = pa.array([None if v is None else repr(v) for v in values])
    pq.write_table(data.set_column(data.schema.get_field_index(column), column, array), path)
    return f"{table}.{column} ({how}: {str(values[:2])[:30]})"


def _tried(cast: Any, value: Any) -> Any:
    try:
        return cast(value)
    except (TypeError, ValueError, OverflowError):
        return None


# ---- options ---------------------------------------------------------------------------------------

def _pick(rnd: random.Random, good: list[str], bad: list[str]) -> tuple[str, bool]:
    return (rnd.choice(bad), True) if rnd.random() < 0.25 else (rnd.choice(good), False)


def _options(rnd: random.Random, out: Path) -> tuple[list[str], bool, str | None]:
    """Options of ``ops``, whether a bad one was drawn, and the format asked for."""
    args, bad, fmt = [], False, None
    if rnd.random() < 0.7:
        value, wrong = _pick(rnd, LEVELS, ["ops", "Opcode", "", "layers"])
        args += ["--level", value]
        bad |= wrong
    if rnd.random() < 0.3:
        value, wrong = _pick(rnd, ["1", "3", "1000"], ["0", "-1", "x", "nan", "1e3", "1" + "0" * 30])
        args += ["--top", value]
        bad |= wrong
    for option, good, wrongs in (("--basis", ["auto", "step", "sample"], ["smaple", "steps"]),
                                 ("--order", ["batch", "given"], ["batches"])):
        if rnd.random() < 0.2:
            value, wrong = _pick(rnd, good, wrongs)
            args += [option, value]
            bad |= wrong
    if rnd.random() < 0.3:
        value, wrong = _pick(rnd, ["5%", "time=2%", "time=50ns", "time=1us", "10000%", "0%"],
                             ["1e400%", "time=1e400s", "nan%", "inf%", "10001%", "time=5pp", "tme=5%",
                              "1" * 400 + "%", "time=2h"])
        args += ["--threshold", value]
        bad |= wrong
    if rnd.random() < 0.4:
        fmt = rnd.choice(FORMATS)
        args += ["--format", fmt]
    if rnd.random() < 0.2:  # a suffix that says the format (or, with --format, agrees with it)
        suffix = {"term": "txt", None: rnd.choice(["json", "csv", "md", "html", "txt"])}.get(fmt, fmt)
        args += ["-o", str(out / f"ops.{suffix}")]
    return args, bad, fmt


def _basis_needs_batches(args: list[str], paths: list[Path]) -> bool:
    """``--basis sample`` with a side of no batch size is a usage error, as the option's help says."""
    return "--basis" in args and args[args.index("--basis") + 1] == "sample"


# ---- the case and its checks --------------------------------------------------------------------------

def ops_case(rnd: random.Random, workdir: Path) -> tuple[Outcome, str]:
    import fuzzing_surfaces

    kind = rnd.choice(["view-json", "view-json", "explorer"])
    inputs = workdir / "in"
    inputs.mkdir()
    paths, how = (_view_case if kind == "view-json" else _explorer_case)(rnd, inputs)
    out = workdir / "out"
    options, bad, _ = _options(rnd, out)
    if rnd.random() < 0.1:
        value = rnd.choice(["v0", "nope", "", paths[-1].stem])
        options += ["--baseline", value]
    args = ["ops", *map(str, paths), *options]
    codes = (2,) if bad else (0, 1, 2) if _basis_needs_batches(options, paths) or "--baseline" in options else (0, 1)
    described = f"{kind} {how} | {' '.join(options)}"
    with warnings.catch_warnings(record=True) as warned:  # numpy's and pyarrow's must never reach the user
        warnings.simplefilter("always")
        outcome = fuzzing_surfaces.cli(args, workdir, out, codes)
        problems = _printed(out) + _judged(paths, options) if outcome.kind == "ok" else []
    problems += [f"{w.category.__name__}: {str(w.message)[:80]}" for w in warned]
    if outcome.kind not in ("ok", "error") or not problems:
        return outcome, described
    return Outcome("silent", "; ".join(problems)[:400]), described


# a time or a share printed from a NaN or an infinity: "+nan%", "NaN s", "inf ms" (names may hold the words)
_NON_FINITE = re.compile(r"[+-]?(?:nan|inf)(?:%| ?[munp]?s\b)", re.IGNORECASE)


def _printed(out: Path) -> list[str]:
    """The files written (standard output is checked by ``cli``): JSON strict and whole, with no
    non-finite member; no other one prints a time or share from a NaN or an infinity."""
    problems = []
    for path in sorted(out.rglob("*")) if out.exists() else []:
        text = path.read_text(errors="replace")
        if path.suffix == ".json":
            try:
                if "non_finite" in json.dumps(strict_json(text)):
                    problems.append(f"{path.name}: a non-finite value")
            except ValueError as exc:
                problems.append(f"{path.name}: {exc}")
        elif (found := _NON_FINITE.search(text)) is not None:
            problems.append(f"{path.name}: {found.group()!r} printed")
    return problems


def _judged(paths: list[Path], options: list[str]) -> list[str]:
    """The comparison again through the library, its JSON checked (see the module docstring)."""
    from neuroncmp.commands.ops import OpsOptions, ops_report
    from neuroncmp.errors import NeuroncmpError
    from neuroncmp.render.ops import json_text
    from neuroncmp.render.registry import by_name

    def value(option: str, default: Any) -> Any:
        return options[options.index(option) + 1] if option in options else default

    top = int(value("--top", "20"))
    chosen = OpsOptions(level=value("--level", "opcode"), top=top, baseline=value("--baseline", None),
                        basis=value("--basis", "auto"), order=value("--order", "batch"),
                        thresholds=tuple(options[i + 1] for i, o in enumerate(options) if o == "--threshold"))
    try:
        report = ops_report(paths, chosen)
    except NeuroncmpError as exc:
        return [f"the CLI exited 0 but the library refused: {exc}"]
    problems = []
    text = by_name("term").render("ops", report)
    if (found := _NON_FINITE.search(text)) is not None:
        problems.append(f"terminal: {found.group()!r} printed")
    data = strict_json(json_text(report))
    if "non_finite" in json.dumps(data):
        problems.append("JSON: a non-finite value")
    return problems + _times_ok(data) + _suspects_ok(data)


def _times_ok(data: dict[str, Any]) -> list[str]:
    problems = []
    for variant in data["variants"]:
        for key in ("step_baseline_s", "step_variant_s"):
            if variant[key] is not None and not 0 <= variant[key] < math.inf:
                problems.append(f"{variant['label']} {key}={variant[key]}")
    for row in data["rows"]:
        for key in ("baseline_s", "variant_s"):
            if row[key] is not None and not 0 <= row[key] < math.inf:
                problems.append(f"{row['op'][:30]} {key}={row[key]}")
        if row["change_s"] is not None and not -math.inf < row["change_s"] < math.inf:
            problems.append(f"{row['op'][:30]} change_s={row['change_s']}")
    return problems


def _suspects_ok(data: dict[str, Any]) -> list[str]:
    """An op longer than its side's step is never scored; a doubted step is never used."""
    steps = {v["label"]: (v["step_baseline_s"], v["step_variant_s"]) for v in data["variants"]}
    doubted = {line.split(": ", 1)[0] for line in data.get("step_doubts", [])}
    problems = []
    for label, (base, var) in steps.items():
        if (data["baseline"] in doubted and base is not None) or (label in doubted and var is not None):
            problems.append(f"{label}: a doubted step time used")
    for row in data["rows"]:
        if row["kind"] != "op":
            continue
        base, var = steps[row["variant"]]
        over = any(time is not None and step is not None and time > step * 1.0001
                   for time, step in ((row["baseline_s"], base), (row["variant_s"], var)))
        if over and row["verdict"] != "suspect":
            problems.append(f"{row['op'][:30]}: longer than the step, scored {row['verdict']}")
        if row["verdict"] == "suspect" and row["counted"]:
            problems.append(f"{row['op'][:30]}: suspect, yet counted in the contributions")
    return problems


if __name__ == "__main__":  # one case by number, as scripts/fuzz.py numbers them: python tests/fuzzing_ops.py 17
    import tempfile

    import fuzzing_surfaces

    with tempfile.TemporaryDirectory() as temp:
        print(fuzzing_surfaces.run_case("ops", random.Random(f"ops:{sys.argv[1]}"), Path(temp) / "case"))
