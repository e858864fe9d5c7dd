"""``--where`` against the runs: a filter that matches nothing is a usage error, never an empty
answer. An empty answer would let a CI gate (``regressions --fail-on-regression``) pass on a typo
such as ``model=bert-larg``; the error names the known values closest to what was typed."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from ..catalog import closest
from ..errors import UsageError

Where = Mapping[str, Sequence[str]]


def check(tags: Iterable[Mapping[str, str]], where: Where, matched: int) -> None:
    """Raise a UsageError when ``where`` is given and ``matched`` runs (of those with ``tags``)
    match it; say which key or value is unknown, with the closest known ones."""
    if not where or matched:
        return
    values: dict[str, set[str]] = {}
    for run in tags:
        for key, value in run.items():
            values.setdefault(key, set()).add(value)
    if not values:
        raise UsageError(f"--where {_text(where)}: the store has no runs")
    for key, wanted in where.items():
        if key not in values:
            raise UsageError(f"--where {key}=...: no run has a tag '{key}'"
                             f"{_hint(key, values)} (tags: {_few(values)})")
        missing = [v for v in wanted if v not in values[key]]
        if len(missing) == len(wanted):
            raise UsageError(f"--where {key}={','.join(wanted)}: no run has this value"
                             f"{_hint(missing[0], values[key])} ({key}: {_few(values[key])})")
    raise UsageError(f"--where {_text(where)}: no run has all of these tags together; "
                     "'neuroncmp store ls' lists each run's tags")


def _hint(typed: str, known: Iterable[str]) -> str:
    near = closest(typed, sorted(known))
    return f"; did you mean {', '.join(near)}?" if near else ""


def _few(values: Iterable[str], shown: int = 8) -> str:
    ordered = sorted(values)
    more = f", ... ({len(ordered)} in all)" if len(ordered) > shown else ""
    return ", ".join(ordered[:shown]) + more


def _text(where: Where) -> str:
    return " ".join(f"{k}={','.join(v)}" for k, v in where.items())
