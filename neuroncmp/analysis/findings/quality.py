"""Data-quality rules: what in the inputs weakens the numbers above them."""

from __future__ import annotations

from ...comparison.comparability import KEYS
from ...model import Anomaly, Profile
from .base import QUALITY, Context, Evidence, Finding, Outcome, Passed

WHY = {"percent-over-100": "a percentage above 100 %", "memory-total-mismatch": "a memory Total that is "
       "not the sum of its rows", "cycles-mismatch": "cycles that disagree with total_time x clock",
       "share-mismatch": "an active-time share that disagrees with its time", "nan-value": "a NaN value",
       "duplicate-metric": "a metric given twice with different values",
       "non-finite-value": "an infinite value", "negative-value": "a negative value where none can be",
       "out-of-range": "a value outside its kind's range", "duplicate-key": "a JSON key given twice",
       "bad-batch-size": "a batch size that is not a whole number >= 1"}  # docs/profile-json.md "Anomaly codes"


class Anomalies:
    """Input anomalies (each is also a suspect mark in every diff, and never decides a verdict)."""

    id = "input-anomalies"

    def apply(self, context: Context) -> Outcome:
        found = [(side.label, profile, anomaly) for side in context.sides for profile in side.profiles
                 for anomaly in profile.anomalies]
        if not found:
            return Passed(self.id, "no input anomaly in any profile")
        codes = sorted({anomaly.code for _, _, anomaly in found})
        return Finding(
            self.id, QUALITY,
            f"{len(found)} input anomal{'y' if len(found) == 1 else 'ies'}: "
            + "; ".join(f"{WHY.get(code, code)} ({code})" for code in codes),
            tuple(dict.fromkeys(label for label, _, _ in found)),
            tuple(_evidence(label, profile, anomaly) for label, profile, anomaly in found),
            None, "values flagged here are shown but never scored; re-capture or re-export the profile "
            "if they matter (a throttle 'percent' above 100 % is kept as read, never clamped)")


def _evidence(label: str, profile: Profile, anomaly: Anomaly) -> Evidence:
    """The flagged value itself (in its base unit) when the anomaly names a metric with a number,
    else the anomaly's message; the anomaly's code goes in the note."""
    metric = profile.metrics.get(anomaly.metric or "")
    if metric is not None and isinstance(metric.value, (int, float)):
        return Evidence(metric.name, label, metric.value, metric.unit, anomaly.code)
    return Evidence(anomaly.code, label, anomaly.message, "")


class MixedVersions:
    """Points captured with different tools, compilers or hardware do not form one sweep."""

    id = "mixed-versions"

    def apply(self, context: Context) -> Outcome:
        profiles = [p for point in context.points for side in point.sides for p in side.profiles]
        differing = {key: sorted(values) for key in KEYS
                     if len(values := {str(value) for p in profiles if (value := p.info(key)) is not None}) > 1}
        if not differing:
            return Passed(self.id, "every point shares instance, compiler, runtime and tool versions")
        return Finding(
            self.id, QUALITY, "the points differ in " + ", ".join(differing),
            tuple(p.label for p in context.points),
            tuple(Evidence(key, "sweep", " / ".join(values), "") for key, values in differing.items()),
            None, "re-capture the sweep with one toolchain before reading trends across it")


class InferredBatch:
    """A batch size the input does not state (inferred from FLOPs or Trainer rates)."""

    id = "inferred-batch"

    def apply(self, context: Context) -> Outcome:
        inferred = [p for p in context.points if p.inferred]
        if not inferred:
            return Passed(self.id, "every batch size is stated in the input")
        return Finding(
            self.id, QUALITY,
            "batch size inferred, not stated: " + ", ".join(f"{p.label} = {p.batch_size}" for p in inferred),
            tuple(p.label for p in inferred),
            tuple(Evidence("batch_size", side.label, p.batch_size, "",
                           str(side.profiles[0].params.get("batch_size_how", "inferred")))
                  for p in inferred for side in p.sides if side.batch_size_inferred),
            None, "state it (a file name such as b8.json, or the manifest) so per-sample numbers rest on fact")


RULES = (Anomalies(), MixedVersions(), InferredBatch())
