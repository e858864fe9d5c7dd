"""Fuzzing in the suite: mutated and generated inputs of every format through the library and
the CLI, a fixed small budget of examples (``scripts/fuzz.py`` runs thousands).

Whatever the input: only neuroncmp errors, no hang, no NaN/Infinity token in JSON output, no
non-finite or impossible negative value without an anomaly naming it (``fuzzing.py``).
"""

from __future__ import annotations

import itertools
import json
import random
import tempfile
from pathlib import Path

import fuzzing
import fuzzing_surfaces
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("pyarrow")

# Sweep charts are drawn to PNG for one mutated input in DRAW_EVERY (the others build the figures
# without drawing them): drawing was half the suite's fuzzing time, and what it can break is the same.
DRAW_EVERY = 5
_examples = itertools.count()
BUDGET = settings(max_examples=30, deadline=None, derandomize=True, database=None,
                  suppress_health_check=[HealthCheck.too_slow])


def _assert_clean(outcome: fuzzing.Outcome, case: fuzzing.Case) -> None:
    assert outcome.kind in ("ok", "error"), f"{case.format} ({case.how}): {outcome.kind}: {outcome.detail}"


@pytest.mark.slow  # 30 mutations a format through the library: two minutes; the CLI's 6 a format run always
@pytest.mark.parametrize("fmt", fuzzing.FORMATS)
@BUDGET
@given(seed=st.integers(min_value=0, max_value=2**64))
def test_mutated_inputs_through_the_library(fmt, seed):
    with tempfile.TemporaryDirectory() as temp:
        case = fuzzing.make_case(fmt, random.Random(seed), Path(temp) / "case")
        draw = next(_examples) % DRAW_EVERY == 0
        _assert_clean(fuzzing.quietly(fuzzing.check_library, case.path, draw), case)


@pytest.mark.parametrize("fmt", fuzzing.FORMATS)
@settings(BUDGET, max_examples=6)
@given(seed=st.integers(min_value=0, max_value=2**64))
def test_mutated_inputs_through_the_cli(fmt, seed):
    with tempfile.TemporaryDirectory() as temp:
        rnd = random.Random(seed)
        case = fuzzing.make_case(fmt, rnd, Path(temp) / "case")
        _assert_clean(fuzzing.check_cli(case.path, rnd, Path(temp)), case)


# ---- generated structures ---------------------------------------------------------------------

scalars = (st.none() | st.booleans() | st.integers(min_value=-10**400, max_value=10**400)
           | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=20))
documents = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                         | st.dictionaries(st.text(max_size=12), inner, max_size=6), max_leaves=30)
metric_names = st.sampled_from(["total_time", "hbm_read_bytes", "mfu_estimated_percent", "model_flops",
                                "throttle_avg_util_limit_nc0_percent", "nc_idx", "instance_type",
                                "train_runtime", "train_samples_per_second", "epoch", "x_percent",
                                "y_bytes", "", "\x1b[31m", "a|b"]) | st.text(max_size=10)
metric_blocks = st.dictionaries(metric_names, scalars, min_size=1, max_size=12)


@pytest.mark.parametrize("name", ["gen.json", "train_results.json", "gen.txt", "gen.md", "monitor.jsonl"])
@BUDGET
@given(document=documents | metric_blocks | st.builds(lambda b: {"n_x": b}, metric_blocks)
       | st.builds(lambda b: {"summary": [b]}, metric_blocks))
def test_generated_json_documents(name, document):
    with tempfile.TemporaryDirectory() as temp:
        path = Path(temp) / name
        path.write_text(json.dumps(document, allow_nan=True))
        case = fuzzing.Case("generated", path, "generated")
        _assert_clean(fuzzing.quietly(fuzzing.check_library, path, False), case)


@BUDGET
@given(block=metric_blocks)
def test_generated_summary_text(block):
    with tempfile.TemporaryDirectory() as temp:
        path = Path(temp) / "gen.txt"
        path.write_text("".join(f"{key}  {value}\n" for key, value in block.items()))
        _assert_clean(fuzzing.quietly(fuzzing.check_library, path, False), fuzzing.Case("gen", path, "text"))


@BUDGET
@given(rows=st.lists(st.tuples(st.text(max_size=4), st.text(max_size=4), st.text(max_size=12),
                               st.sampled_from(["64 KiB", "1e400 B", "-3 GiB", "x", "0 B", "²", "5e-324 B"])),
                     min_size=1, max_size=6))
def test_generated_memory_tables(rows):
    table = "| ND Idx | NC Idx | Usage Type | Amount |\n| --- | --- | --- | --- |\n"
    table += "".join(f"| {a} | {b} | {c} | {d} |\n" for a, b, c, d in rows)
    with tempfile.TemporaryDirectory() as temp:
        path = Path(temp) / "gen.memory.md"
        path.write_text(table)
        _assert_clean(fuzzing.quietly(fuzzing.check_library, path, False), fuzzing.Case("gen", path, "table"))


# ---- beyond one file (issue 22): sets, options at their limits, a tampered store, the API, capture -----

@pytest.mark.parametrize("surface", fuzzing_surfaces.SURFACES)
@settings(BUDGET, max_examples=12)
@given(seed=st.integers(min_value=0, max_value=2**64))
def test_surfaces_beyond_one_file(surface, seed):
    with tempfile.TemporaryDirectory() as temp:
        outcome, how = fuzzing.quietly(lambda: fuzzing_surfaces.run_case(surface, random.Random(seed),
                                                                         Path(temp) / "case"))
        assert outcome.kind in ("ok", "error"), f"{surface} ({how}): {outcome.kind}: {outcome.detail}"
