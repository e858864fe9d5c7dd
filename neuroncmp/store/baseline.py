"""A history baseline (``diff NEW.json --baseline-history``): the recent runs of a new capture's
series, with noise bands measured from them (the formula: docs/history/baseline-history.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..catalog import lookup
from ..errors import InputError, UsageError
from ..model import MemoryRow, Metric, Profile, Source
from ..stats import median, robust_sigma
from . import objects, trends
from .engines.base import Engine, StoredRows
from .identity import SeriesKey, file_of, run_tags
from .reading import Run

HISTORY_RUNS = 20
MIN_RUNS = 5
BAND_SIGMAS = 3.0
LABEL = "history"
INTEGRAL = ("count", "bytes", "cycles", "flop", "index")


@dataclass(frozen=True, slots=True)
class HistoryBaseline:
    """The baseline's captures (label ``history``), the ``--threshold`` rules measured from them,
    the series they come from and their run ids (oldest first)."""

    profiles: tuple[Profile, ...]
    bands: tuple[str, ...]
    series: Mapping[str, str]
    runs: tuple[str, ...]


def history_baseline(engine: Engine, root: Path | str, new: Profile, where: Mapping[str, Sequence[str]],
                     runs: int = HISTORY_RUNS) -> HistoryBaseline:
    """The last ``runs`` runs of ``new``'s series in the store (before ``new`` itself, if stored)."""
    chosen = _series_runs(engine.runs(root), new, where, engine.series_by(root))
    chosen = _before(chosen, objects.digest(Path(new.source.path)))[-runs:]
    if len(chosen) < MIN_RUNS:
        raise InputError(f"{root}: only {len(chosen)} earlier runs in the series "
                         f"{SeriesKey.of(chosen[0].tags if chosen else {}).shown()}; a history baseline needs "
                         f"at least {MIN_RUNS}")
    profiles = tuple(_rebuild(engine.rows(root, [r.run for r in chosen]), chosen))
    return HistoryBaseline(profiles, tuple(_bands(profiles)), chosen[0].tags, tuple(r.run for r in chosen))


def _series_runs(runs: list[Run], new: Profile, where: Mapping[str, Sequence[str]],
                 series_by: tuple[str, ...] = ()) -> list[Run]:
    """Runs of one series: those matching ``where`` (none is a usage error naming the closest
    values); if several series, those that also carry ``new``'s own tags (batch_size,
    variant); still several is a usage error."""
    found = trends.chosen_runs(runs, where, series_by)
    own = {k: [v] for k, v in run_tags(new, {}).items() if k not in where}
    series = {r.series for r in found}
    if len(series) > 1 and own:
        narrowed = trends.matching(found, own)
        found = narrowed if narrowed else found
        series = {r.series for r in found}
    if not found:
        wanted = SeriesKey.of({k: ",".join(v) for k, v in where.items()})
        raise InputError(f"no runs in the store match {wanted.shown()}")
    if len(series) > 1:
        listed = "; ".join(sorted(key.text for key in series)[:5])
        raise UsageError(f"--baseline-history: {len(series)} series match ({listed}); choose one with --where")
    return found


def _before(runs: list[Run], content_hash: str) -> list[Run]:
    """Runs earlier than the new capture when the store holds it already, else all of them."""
    mine = [r for r in runs if file_of(r.run, content_hash)]
    if not mine:
        return runs
    return [r for r in runs if r.time < mine[0].time and not file_of(r.run, content_hash)]


def _rebuild(rows: StoredRows, runs: list[Run]) -> list[Profile]:
    """Profiles from the store's rows (derived memory totals left out: memory rows give them)."""
    built = {r.run: Profile(Source(r.source, r.format), LABEL,
                            {"batch_size": r.batch_size, "tags": []} if r.batch_size else {"tags": []})
             for r in runs}
    for run, name, value, text, unit, group, flags in rows.metrics:
        if "derived" in (flags or []):
            continue
        number = text if value is None else _restore(name, value)
        built[run].metrics[name] = Metric(name, number, unit, str(number), group)
    for run, device, core, usage, label, amount in rows.memory:
        built[run].memory.append(MemoryRow(device, core, usage, label, amount))
    return [built[r.run].freeze() for r in runs]


def _restore(name: str, value: float) -> int | float:
    """The stored double as the profile had it: whole counts, bytes, cycles and indexes as ints."""
    return int(value) if value.is_integer() and lookup(name).kind in INTEGRAL else value


def _bands(profiles: tuple[Profile, ...]) -> list[str]:
    """``METRIC=N%`` (and ``Npp`` for fractions, which are judged on both scales): BAND_SIGMAS
    robust sigmas of the runs' values."""
    values: dict[str, list[float]] = {}
    for profile in profiles:
        for name, metric in {**profile.metrics, **profile.memory_metrics()}.items():
            if isinstance(metric.value, (int, float)):
                values.setdefault(name, []).append(float(metric.value))
    rules = []
    for name, xs in sorted(values.items()):
        if len(xs) < MIN_RUNS or any(c in name for c in "*?[]="):
            continue
        middle = median(xs)
        sigma = robust_sigma(xs)
        if lookup(name).kind == "fraction":  # both of a fraction's bands, measured alike
            rules.append(f"{name}={BAND_SIGMAS * sigma * 100:.6f}pp")
        if middle:
            rules.append(f"{name}={BAND_SIGMAS * sigma / abs(middle) * 100:.6f}%")
    return rules
