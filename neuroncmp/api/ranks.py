"""``nc.ranks(...)``: the ranks of one distributed step as a value that renders and becomes a frame."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..arguments import texts
from ..commands.ranks import RanksOptions, profiles_report, ranks_report
from .results import Shown


class Ranks(Shown):
    """What ``nc.ranks`` returns: ``.report`` (the document: ``.report.analysis`` is the immutable
    result, ``.report.runs`` the comparison with a baseline run), ``.to_frame()``, ``.records()``
    (one row per rank: seconds, fractions, its outlier kinds and cause), and text (``str``,
    Markdown in notebooks)."""

    document = "ranks"

    @property
    def analysis(self) -> Any:
        return self.report.analysis

    @property
    def outliers(self) -> Any:
        return self.report.analysis.outliers


def ranks(*inputs: Any, baseline: Any = (), thresholds: Iterable[str] = (), fail_on: Iterable[str] = ()) -> Ranks:
    """The ranks of one step: ``inputs`` are one profile per rank: paths (files, folders, as the
    command reads them) or profiles (and lists of them, as ``nc.compare`` takes); ``baseline``
    another run's, to compare the two distributions; ``thresholds`` noise bands for times; ``fail_on``
    tail gates (``p90>+5%``; ``.report.tripped`` says whether one tripped). Every option is checked as
    ``neuroncmp ranks`` checks it."""
    from . import profiles_of

    given = [baseline] if isinstance(baseline, (str, Path)) else list(baseline)
    bands, gates = texts("thresholds", thresholds), texts("fail_on", fail_on)
    if all(isinstance(item, (str, Path)) for item in [*inputs, *given]):
        return Ranks(ranks_report(inputs, RanksOptions(tuple(map(str, given)), bands, gates)))
    base = profiles_of(*given) if given else []
    return Ranks(profiles_report(profiles_of(*inputs), RanksOptions((), bands, gates), baseline=base))
