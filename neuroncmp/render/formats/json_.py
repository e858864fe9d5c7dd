"""JSON of a comparison (schema ``neuroncmp.comparison/3``: its layout and the formulas its values follow,
``docs/comparison-json.md``), a sweep, profiles (``neuroncmp.profile/1``: ``docs/profile-json.md``) and the
catalog."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...analysis.sweep import Sweep
from ...catalog import MetricSpec
from ...comparison.result import Delta, Side
from ...comparison.value_sources import formula
from ...model import Metric, Profile
from ..base import DiffReport, FormatsReport, Renderer, delegate
from ..changes import changes_with_marks
from ..headline import headline, notes, report_bound_line
from ..json_out import dumps, laid_out
from ..rows import Line, line
from ..sweep_data import BOUNDS_FORMULA, bounds_dict, changes_dict, plain, roof_dict, shift_dict, sweep_dict

if TYPE_CHECKING:  # types only: gates load only when --fail-on is used
    from ...commands.documents import Loaded
    from ...comparison.gates import GateResult, Hit

SCHEMA = "neuroncmp.comparison/3"
FORMATS_SCHEMA = "neuroncmp.formats/1"
PROFILE_SCHEMA = "neuroncmp.profile/1"


def _side(side: Side) -> dict[str, Any]:
    return {"label": side.label, "batch_size": side.batch_size,
            "batch_size_source": side.batch_size_source, "captures": len(side.profiles),
            "sources": [str(p.source) for p in side.profiles]}


def _row(shown: Line, sides: tuple[Side, ...]) -> dict[str, Any]:
    """One metric: what it is, its baseline once, and a column per field with one entry per variant
    (in the order of the document's ``variants``). Columns, not an object per cell: the baseline is
    written once per row."""
    row, spec, cells = shown.row, shown.row.spec, shown.row.cells
    samples = [cell.sample for cell in cells]
    sample = next((delta for delta in samples if delta is not None), None)
    out = {"metric": row.name, "group": spec.group, "unit": row.unit, "kind": spec.kind,
           "direction": spec.direction, "extensive": spec.extensive, "catalogued": spec.catalogued,
           "meaning": spec.meaning, "derived": spec.derived, "formula": _formula(sides[0], row.name, spec),
           "display_unit": shown.unit, "shown_basis": shown.basis,
           "baseline": {"step": cells[0].step.baseline, "sample": sample.baseline if sample else None,
                        "display": shown.value(shown.baseline), "n": cells[0].n_baseline,
                        "spread": cells[0].spread_baseline},
           "n": [cell.n_variant for cell in cells],
           "step": _column([cell.step for cell in cells]), "sample": _column(samples) if sample else None,
           "display": [shown.value(value) for value in row.values(shown.basis)],
           "change": changes_with_marks(shown.deltas)}
    if spec.derived:  # the formula that made each variant's value, where one differs from the baseline's
        made = [formula(side, row.name) for side in sides[1:]]
        if any(text not in (None, out["formula"]) for text in made):
            out["formula_variant"] = made
    _optional(out, "spread", [cell.spread_variant for cell in cells])
    _optional(out, "suspect", [cell.suspect for cell in cells])
    return out


def _formula(side: Side, name: str, spec: MetricSpec) -> str | None:
    """The formula that made the baseline's value (the catalog's first where it has none)."""
    return (formula(side, name) or spec.formula or None) if spec.derived else None


def _column(deltas: list[Delta] | list[Delta | None]) -> dict[str, Any]:
    """A basis' values and verdicts per variant (null where a variant has no value in this basis), and
    whether each change is inside the noise band (what says a row without a verdict moved)."""
    def column(field: str, missing: Any = None) -> list[Any]:
        return [missing if delta is None else getattr(delta, field) for delta in deltas]

    out = {"value": column("variant"), "verdict": column("verdict"), "in_band": column("in_band", False)}
    _optional(out, "p_value", column("p_value"))
    return out


def _optional(out: dict[str, Any], name: str, column: list[Any]) -> None:
    """A column that is null for most comparisons (spreads, p-values: repeated captures only;
    suspect: flagged inputs only), written only when some variant has a value."""
    if column.count(None) < len(column):
        out[name] = column


def _headline(report: DiffReport) -> list[dict[str, Any]]:
    """The headline's lines: label, metric, basis and the display strings per variant (numbers are in rows)."""
    out = []
    for item in headline(report.comparison):
        shown = item.line
        deltas = shown.deltas
        out.append({"label": item.label, "metric": shown.row.name, "basis": shown.basis,
                    "display_unit": shown.unit, "baseline": shown.value(shown.baseline),
                    "value": [shown.value(delta.variant) for delta in deltas],
                    "change": changes_with_marks(deltas),
                    "verdict": [delta.verdict for delta in deltas]})
    return out


def _bounds(report: DiffReport) -> dict[str, Any] | None:
    """What bounds each side's step (the headline's "bound by" line), with every bound's inputs."""
    found = report_bound_line(report)
    if found is None:
        return None
    sides, base = report.comparison.sides, found.bounds[0]
    out = [dict(bounds_dict(b), label=side.label, shift=shift_dict(s) if s else None,
                from_baseline=changes_dict(base, b) if at else None)
           for at, (side, b, s) in enumerate(zip(sides, found.bounds, found.shifts, strict=True))]
    for at, before in enumerate(found.previous):  # successive versions: each against the one before
        out[at].update(shift_from_previous=shift_dict(before) if before else None,
                       from_previous=changes_dict(found.bounds[at - 1], found.bounds[at]) if at else None)
    return {"sides": out, "versions": bool(found.previous), "roof": roof_dict(found.bounds), "formula": BOUNDS_FORMULA}


def _hits(hits: tuple[Hit, ...]) -> list[dict[str, Any]]:
    return [{"metric": h.metric, "variant": h.variant, "basis": h.basis, "value": h.value, "unit": h.unit,
             "text": str(h)} for h in hits]


def _gate(gate: GateResult) -> dict[str, Any]:
    """A ``--fail-on`` rule's outcome: its hits, the basis each metric was judged in, and, when the
    comparison chose per sample for the user, why and the same rule per step (never gating)."""
    other = gate.other
    return {"rule": gate.rule.text, "tripped": gate.tripped, "line": gate.line, "hits": _hits(gate.hits),
            "judged": dict(gate.judged), "basis_chosen": gate.chosen or None,
            "per_step": None if other is None else {"rule": other.text, "tripped": bool(gate.other_hits),
                                                    "hits": _hits(gate.other_hits)},
            "not_evaluated": list(gate.skipped)}  # suspect inputs, or no per-sample value


def to_dict(report: DiffReport) -> dict[str, Any]:
    comparison, view = report.comparison, report.view
    sides = (comparison.baseline, *comparison.variants)
    return {
        "schema": SCHEMA,
        "not_comparable": dict(comparison.not_comparable),  # variant -> why: its verdicts and tally withheld
        "basis": comparison.basis, "basis_reason": comparison.basis_reason,
        "baseline": _side(comparison.baseline),
        "variants": [_side(side) for side in comparison.variants],
        "warnings": [*notes(comparison), *comparison.warnings],
        "headline": _headline(report),
        "bounds": _bounds(report),
        "tally": {side.label: None if side.label in comparison.not_comparable else counts
                  for side, counts in zip(comparison.variants, comparison.tally(), strict=False)},
        "captures": comparison.captures,
        "noise_bands": comparison.bands.describe(),
        "only_in": {name: list(labels) for name, labels in comparison.only_in.items()},
        "hidden_unchanged": view.hidden_unchanged,
        "filtered_out": view.filtered_out,
        "gates": [_gate(g) for g in report.gates],
        "findings": [plain(f) for f in report.findings],
        "rows": [_row(line(row, row.basis(comparison.basis)), sides) for row in view.rows],
    }


def metric_dict(metric: Metric) -> dict[str, Any]:
    return {"value": metric.value, "unit": metric.unit, "group": metric.group,
            "raw": metric.raw, "catalogued": metric.catalogued}


def values_read(profile: Profile, name: str) -> Any:
    metric = profile.metrics.get(name) or profile.training.get(name)
    return None if metric is None else metric.value


def profile_dict(profile: Profile) -> dict[str, Any]:
    values = profile.values
    return {
        "schema": PROFILE_SCHEMA,
        "label": profile.label,
        "source": profile.source._asdict(),
        "params": profile.params,
        "metadata": profile.metadata,
        "metrics": {name: metric_dict(m) for name, m in profile.metrics.items() if name not in values.unavailable},
        "memory": [row._asdict() for row in profile.memory],
        "memory_total_bytes": profile.memory_total(),
        "training": {name: metric_dict(m) for name, m in profile.training.items()},
        "derived": {name: dict(metric_dict(m), formula=m.raw.removeprefix("= "))
                    for name, m in values.derived.items()},
        # read, but no measurement (``conventions``), and derived metrics an input of which is there
        "not_available": {name: {"read": values_read(profile, name), "why": why}
                          for name, why in values.unavailable.items()},
        "not_computed": dict(values.not_computed),
        "notes": profile.notes,
        "anomalies": [a._asdict() for a in profile.anomalies],
        "uncatalogued": profile.uncatalogued(),
        "skipped": {"count": len(profile.skipped), "items": [s._asdict() for s in profile.skipped]},
    }


def spec_record(spec: MetricSpec) -> dict[str, Any]:
    """One catalog entry as plain data (the JSON listing)."""
    return {"metric": spec.name, "group": spec.group, "unit": spec.unit, "direction": spec.direction,
            "kind": spec.kind, "extensive": spec.extensive, "meaning": spec.meaning,
            "derived": spec.derived, "formula": spec.formula or None,
            "formulas": [formula.text for formula in spec.formulas], "aliases": list(spec.aliases)}


class Json(Renderer):
    name, extensions, order = "json", (".json",), 30
    description = f"machine-readable, schema {SCHEMA}, base units"

    def diff(self, report: DiffReport, width: int = 100) -> str:
        """Indented at the top, one compact line per row, headline line, finding and variant."""
        return laid_out(to_dict(report))

    def sweep(self, sweep: Sweep, width: int = 100) -> str:
        return dumps(sweep_dict(sweep), indent=2, ensure_ascii=False) + "\n"

    history = delegate("store_json", "history", "history")  # the store's views load with its commands only
    regressions = delegate("store_json", "regressions", "regressions")
    store_runs = delegate("store_json", "runs", "runs", "series_by")
    store_check = delegate("store_json", "check", "report")

    def metrics(self, specs: list[MetricSpec], width: int = 100) -> str:
        return dumps([spec_record(spec) for spec in specs], indent=2) + "\n"

    def formats(self, report: FormatsReport, width: int = 100) -> str:
        document = {
            "schema": FORMATS_SCHEMA,
            "inputs": [{"name": p.name, "suffixes": list(p.suffixes), "directory": p.reads_directory,
                        "description": p.description} for p in report.parsers],
            "outputs": [{"name": r.name, "extensions": list(r.extensions), "description": r.description}
                        for r in report.renderers],
        }
        return dumps(document, indent=1, ensure_ascii=False) + "\n"

    def profiles(self, profiles: list[Profile] | Loaded, width: int = 100) -> str:
        """One normalized profile (``neuroncmp.profile/1``), or a list when there are several; ``show``'s
        ``Loaded`` adds each one's bounds (``bounds``: as a diff's JSON writes a side's)."""
        if isinstance(profiles, list):
            data = [profile_dict(p) for p in profiles]
        else:
            data = [dict(profile_dict(p), bounds=bounds_dict(b)) for p, b in zip(profiles.profiles, profiles.bounds,
                                                                               strict=True)]
        return dumps(data[0] if len(data) == 1 else data, indent=2) + "\n"

    ranks = delegate("ranks", "json_text")
    ops = delegate("ops", "json_text")


RENDERER = Json()
