"""The documents renderers show, as values: what a command's entry point returns (``render.base``
says how each format shows them)."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:  # gates load only when --fail-on is used; the rest types only (show's Loaded needs none)
    from ..analysis.bounds import Bounds
    from ..analysis.findings.base import Finding
    from ..comparison.gates import GateResult
    from ..comparison.result import Comparison
    from ..comparison.view import View
    from ..model import Profile


class DiffReport(NamedTuple):
    """What a diff renderer shows: the comparison, the chosen view of it, and gate outcomes."""

    comparison: Comparison
    view: View
    gates: tuple[GateResult, ...] = ()
    summary: bool = False   # the headline only, not the full table
    findings: tuple[Finding, ...] = ()   # what the sweep analysis of these sides finds
    bounds: tuple[Bounds, ...] = ()      # what bounds each side's step, under the options' peaks (else computed
                                         # when shown, with the profiles' own)
    versions: bool = False               # the sides are successive versions: each judged against the one before
    bounds_only: bool = False            # show AWS's bounds and gaps per side in place of the table
    findings_of: tuple[str, ...] = ()    # the variants the findings are about when the sides form no sweep

    def __repr__(self) -> str:
        return f"<DiffReport {self.comparison!r}, {len(self.view.rows)} rows shown>"


class Loaded(NamedTuple):
    """Profiles read from a set of paths, and what the set was read as (sidecars joined, copies read
    once: the CLI prints these notes on standard error)."""

    profiles: tuple[Profile, ...]
    notes: tuple[str, ...] = ()
    bounds: tuple[Bounds, ...] = ()    # per profile, what bounds its step (``show``)

    def __repr__(self) -> str:
        return f"<Loaded {len(self.profiles)} profiles, {len(self.notes)} notes>"
