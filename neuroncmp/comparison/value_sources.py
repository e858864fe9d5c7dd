"""How each side's values came to be, where it matters to the comparison: a derived value made by another
formula than the catalog's first is stated with it, and not compared with one a different formula made
(a doubt of the variant's value); values read but not measurements (``ValueSet.unavailable``: a 0 the
tool writes for "not known") are named as not available, apart from the metrics a side lacks."""

from __future__ import annotations

from ..catalog import lookup
from .result import Side


def formula(side: Side, name: str) -> str | None:
    """The formula that made the side's ``name`` (its captures' formulas, joined when they differ);
    None where the side has no value of it."""
    used = dict.fromkeys(metric.raw.removeprefix("= ") for profile in side.profiles
                         if (metric := profile.values.derived.get(name)) is not None)
    return " | ".join(used) if used else None


def formula_doubts(sides: list[Side]) -> list[dict[str, str]]:
    """Per side, the derived metrics whose value another formula made than the baseline's, with why
    (the baseline's own is empty): their change is not scored."""
    out: list[dict[str, str]] = [{} for _ in sides]
    for name in _two_formulas(sides):
        base = formula(sides[0], name)
        for index, side in enumerate(sides[1:], 1):
            made = formula(side, name)
            if base is not None and made is not None and made != base:
                out[index][name] = (f"{side.label}: {name} = {made}, {sides[0].label}'s = {base}: "
                                    f"different formulas, not compared")
    return out


def formula_warnings(sides: list[Side]) -> list[str]:
    """One line per derived metric some side made by another formula than the catalog's first: which
    formula on which sides, and why the first was not used."""
    lines = []
    for name in _two_formulas(sides):
        first = lookup(name).formula
        by_formula: dict[str, list[str]] = {}
        for side in sides:
            made = formula(side, name)
            if made is not None:
                by_formula.setdefault(made, []).append(side.label)
        if set(by_formula) - {first}:
            said = "; ".join(f"{made} on {', '.join(labels)}" + _first_unused(sides, name, labels)
                             for made, labels in by_formula.items())
            lines.append(f"{name} = {said}" + ("" if len(by_formula) == 1 else ": not compared"))
    return lines


def _first_unused(sides: list[Side], name: str, labels: list[str]) -> str:
    """Why the catalog's first formula was not used on the sides ``labels`` (their first capture)."""
    spec = lookup(name)
    values = next(side.profiles[0].values for side in sides if side.label in labels)
    if all(n in values.numbers for n in spec.inputs):
        return ""
    lacking = [f"{n} not available" if n in values.unavailable else f"no {n}"
               for n in spec.inputs if n not in values.numbers]
    return f" ({', '.join(lacking)})"


def _two_formulas(sides: list[Side]) -> list[str]:
    """The derived metrics with more than one formula that some side has a value of."""
    names = {name for side in sides for profile in side.profiles for name in profile.values.derived}
    return [name for name in sorted(names) if len(lookup(name).formulas) > 1]


def unavailable_warnings(sides: list[Side]) -> list[str]:
    """One line per reason and set of sides: 'not available on b1, b2: model_flops, ...: why' (values
    read as a 0 that measures nothing)."""
    found: dict[str, dict[str, list[str]]] = {}  # why -> metric -> the sides on which it is not available
    for side in sides:
        for profile in side.profiles:
            for name, why in profile.values.unavailable.items():
                labels = found.setdefault(why, {}).setdefault(name, [])
                if side.label not in labels:
                    labels.append(side.label)
    lines = []
    for why, names in found.items():
        by_sides: dict[tuple[str, ...], list[str]] = {}
        for name, labels in names.items():
            by_sides.setdefault(tuple(labels), []).append(name)
        lines += [f"not available on {', '.join(labels)}: {', '.join(metrics)}: {why}"
                  for labels, metrics in by_sides.items()]
    return lines
