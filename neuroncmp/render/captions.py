"""The text around a comparison table, the same in every format: titles, batch sizes, footers."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..comparison.result import Comparison, Side
from ..comparison.view import View
from ..units import format_value

if TYPE_CHECKING:  # types only
    from ..analysis.findings.base import Finding, Impact


GROUP_TITLES = {
    "throughput": "throughput (derived from the profile and Trainer metrics)",
    "training": "training (Hugging Face Trainer: the whole run, end to end)",
    "memory": "memory (device memory by usage type, the profiler's snapshot)",
}


WITHHELD_NOTE = "its verdicts and tally are withheld (values shown)"


def opening(comparison: Comparison) -> list[str]:
    """The lines every output of a comparison opens with: each variant that ran another workload
    than the baseline (``not comparable: ...``), in the order of the variants."""
    return [f"{warning}; {WITHHELD_NOTE}" for warning in _not_comparable(comparison)]


def later_warnings(comparison: Comparison) -> list[str]:
    """The comparison's warnings but those ``opening`` has said."""
    said = set(_not_comparable(comparison))
    return [warning for warning in comparison.warnings if warning not in said]


def _not_comparable(comparison: Comparison) -> list[str]:
    from ..comparison.comparability import NOT_COMPARABLE

    return [f"{NOT_COMPARABLE}: {why}" for why in comparison.not_comparable.values()]


def group_title(group: str) -> str:
    return GROUP_TITLES.get(group, group)


def batch_text(side: Side) -> str:
    """``32``, ``8*`` (inferred) or ``?`` (unknown)."""
    if side.batch_size is None:
        return "?"
    return f"{side.batch_size}{'*' if side.batch_size_inferred else ''}"


def title(comparison: Comparison) -> str:
    """``baseline (bs 8*) vs b32 (bs 32), b64 (bs 64)``."""
    names = [f"{side.label} (bs {batch_text(side)})" for side in comparison.sides]
    return f"{names[0]} vs {', '.join(names[1:])}"


def batch_line(comparison: Comparison) -> str:
    return "batch sizes: " + ", ".join(f"{side.label} {batch_text(side)}" for side in comparison.sides)


def footer_lines(comparison: Comparison, view: View) -> list[str]:
    lines = [f"{len(view.rows)} metric rows shown; basis: {comparison.basis_reason}"]
    if view.hidden_unchanged:
        lines.append(f"{view.hidden_unchanged} unchanged rows hidden (--only-changed)")
    if view.filtered_out:
        lines.append(f"{view.filtered_out} rows left out by --group/--metric")
    lines.append(f"noise bands: {bands_text(comparison)}")
    lines.append(comparison.captures)
    if any(side.batch_size_inferred for side in comparison.sides):
        lines.append("* batch size inferred, not stated in the input")
    return lines


def brief_lines(comparison: Comparison, view: View) -> list[str]:
    """The footer of a brief view (the terminal's default diff): what it left out, then the notes."""
    changed = len(view.rows) + view.hidden_changed
    steps = ", per-step lines left out" if comparison.step_context else ""
    lines = [f"{len(view.rows)} of {changed} changed rows beside the headline's shown (largest change first"
             f"{steps}); {view.hidden_unchanged} rows unchanged; --all shows every row",
             comparison.captures]
    if any(side.batch_size_inferred for side in comparison.sides):
        lines.append("* batch size inferred, not stated in the input")
    return lines


BANDS_LISTED = 6  # more per-metric bands than this (measured from a history) are summed up


def bands_text(comparison: Comparison) -> str:
    """The bands in force; per-metric bands beyond ``BANDS_LISTED`` (``--baseline-history``
    measures one per metric) as how many and their range, the full list being in the JSON
    (``noise_bands``)."""
    described = comparison.bands.describe()
    # A fraction measured from a history has two bands (pp and %), both in force: count metrics once.
    named = [o for o in comparison.bands.overrides
             if o.band is not None and o.key is not None and not any(c in o.key for c in "*?[")
             and o.key in described]
    keys = {str(o.key) for o in named}
    if len(keys) <= BANDS_LISTED:
        return ", ".join(f"{k} {v}" for k, v in described.items())
    general = ", ".join(f"{k} {v}" for k, v in described.items() if k not in keys)
    relative = sorted(o.band.value * 100 for o in named if o.band is not None and not o.band.points)
    points = sorted(o.band.value for o in named if o.band is not None and o.band.points)
    ranges = [f"{len(xs)} {what} {xs[0]:.3g}{unit} .. {xs[-1]:.3g}{unit}"
              for xs, what, unit in ((relative, "relative", "%"), (points, "in points", "pp")) if xs]
    return (f"{general}; measured per metric for {len(keys)} metrics ({', '.join(ranges)}; "
            "0: constant in the history); every one in --format json (noise_bands)")


FINDINGS_TITLE = "findings (the sweep analysis of these profiles; 'neuroncmp sweep' shows the evidence)"


def findings_title(findings_of: tuple[str, ...]) -> str:
    """What a diff's findings are about: the sweep of its profiles, or (``findings_of``, when they
    form none) the variants alone."""
    if not findings_of:
        return FINDINGS_TITLE
    return (f"findings (of {', '.join(findings_of)} alone: these profiles form no sweep; 'neuroncmp sweep' "
            "shows the evidence)")


def finding_line(finding: Finding) -> str:
    """``[performance] spill reload is 86.2 % of HBM reads at b64 ... (up to 36.5 % of device step time)``."""
    impact = f" ({impact_share(finding.impact)})" if finding.impact else ""
    return f"[{finding.category}] {finding.title}{impact}"


def impact_share(impact: Impact) -> str:
    """``up to 36.5% of device step time``, or ``at least 5.0% of ...`` for a lower bound: one claim."""
    return f"{'at least' if impact.at_least else 'up to'} {impact.share:.1%} of {impact.of}"


def impact_text(impact: Impact) -> str:
    """The impact line of a finding: its share, the amount and the formula."""
    return f"{impact_share(impact)} ({format_value(impact.amount, impact.unit)}): {impact.formula}"


def where_text(finding: Finding) -> str:
    """``b16, b32, b48, b64``, and the points past the threshold too that a suspect value kept out
    (a batch size missing from the list without a word reads as a rule that did not look)."""
    aside = "; ".join(why if why.startswith(f"{label}: ") else f"{label}: {why}" for label, why in finding.set_aside)
    kept_out = (f"; not counted, past the threshold too but on a suspect value: {aside}" if aside else "")
    return ", ".join(finding.where) + kept_out
