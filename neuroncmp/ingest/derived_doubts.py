"""Doubt that arises in a derived value: a ratio over a step of 0 or 5e-324 s is infinite.

Every input may be finite and in its kind's range, and still ``batch_size / total_time`` be
infinite (or not exist: a division by zero). Such a derived value is no measurement: it gets a
``non-finite-value`` anomaly of its own, and the input too small to divide by an ``out-of-range``
one, so the differ marks both suspect (never scored), the sweep's rules skip them and its data-
quality finding names them. Two zeros (``0 / 0``: no spill over no reads) are no doubt: the ratio
simply does not exist.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

from ..catalog import MetricSpec, derived_specs, lookup
from ..model import Anomaly, Profile
from ..units import finite_number, format_value

TINY = sys.float_info.min  # below it a float is subnormal: its reciprocal overflows


def doubts(profile: Profile) -> list[Anomaly]:
    """The anomalies of ``profile``'s derived values that are not finite (see the docstring)."""
    values, derived = profile.values.numbers, profile.values.derived
    out: list[Anomaly] = []
    for spec in derived_specs():
        made = derived.get(spec.name)
        if made is not None and finite_number(made.value):
            continue  # the value set computed it from these same numbers: finite, no doubt
        if all(name in values for name in spec.inputs):
            out += _doubts_of(spec, values)
    return _once_per_input(out)


def _once_per_input(found: list[Anomaly]) -> list[Anomaly]:
    """One ``out-of-range`` anomaly per input, however many ratios divide by it."""
    seen: set[str | None] = set()
    out = []
    for anomaly in found:
        if anomaly.code == "out-of-range":
            if anomaly.metric in seen:
                continue
            seen.add(anomaly.metric)
        out.append(anomaly)
    return out


def _doubts_of(spec: MetricSpec, values: Mapping[str, Any]) -> list[Anomaly]:
    inputs = {name: values[name] for name in spec.inputs}
    if spec.compute is None or all(value == 0 for value in inputs.values()):
        return []
    try:
        result: float | None = spec.compute(values)
    except (ZeroDivisionError, OverflowError):  # OverflowError: where Python raises, not inf
        result = None
    if finite_number(result):
        return []
    tiny = [name for name, value in inputs.items() if abs(value) < TINY]
    shown = ", ".join(f"{name} {format_value(value, _unit(name))}" for name, value in inputs.items())
    found = [Anomaly("non-finite-value", f"{spec.name} = {spec.formula} is not finite ({shown})",
                     spec.name)]
    found += [Anomaly("out-of-range", f"{name} {inputs[name]!r} is too small to divide by: "
                      f"{spec.name} = {spec.formula} is not finite", name) for name in tiny]
    return found


def _unit(name: str) -> str:
    return "" if name == "batch_size" else lookup(name).unit
