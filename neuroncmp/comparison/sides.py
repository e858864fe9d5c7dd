"""Which profiles form which side: repeated captures grouped by label, the baseline chosen first.

Profiles sharing a label are captures of one side (``run1/b32.json``, ``run2/b32.json``). The
baseline is the first label, or the one named by label or section title.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..choices import Order
from ..errors import InputError, UsageError
from ..model import Profile
from .result import Side

ProfileInput = Profile | Iterable[Profile]


def flatten(items: Iterable[ProfileInput]) -> list[Profile]:
    """Profiles and iterables of profiles, flattened in order."""
    flat: list[Profile] = []
    for item in items:
        flat.extend([item] if isinstance(item, Profile) else list(item))
    return flat


def group(profiles: list[Profile]) -> list[Side]:
    """Profiles grouped into sides by label (repeated captures together), in first-seen order."""
    groups: dict[str, list[Profile]] = {}
    for profile in profiles:
        groups.setdefault(profile.label, []).append(profile)
    return [Side.of(label, tuple(members)) for label, members in groups.items()]


def arrange(profiles: list[Profile], baseline: str | None = None, order: Order = "batch") -> list[Side]:
    """Sides in order, baseline first; ``baseline`` names it by label or section title.

    ``order="batch"`` sorts the variants by batch size when every side's is known (ties keep the
    given order); ``"given"`` keeps the order of the arguments (or the manifest)."""
    sides = group(profiles)
    if len(profiles) == 1:  # e.g. one file given twice, read once (a note says so)
        raise InputError(f"a comparison needs a baseline and at least one variant: one profile was read "
                         f"({profiles[0].label})")
    if len(sides) < 2:
        raise InputError(
            f"a comparison needs profiles with at least two labels, got only {[s.label for s in sides]}: "
            "files sharing a label are repeated captures of one side; name the variant's file "
            "differently")
    first = sides[0].label if baseline is None else _baseline_label(profiles, baseline)
    variants = [side for side in sides if side.label != first]
    if order == "batch" and all(side.batch_size is not None for side in sides):
        variants.sort(key=lambda side: side.batch_size or 0)  # all known (checked above)
    return [next(side for side in sides if side.label == first)] + variants


def _baseline_label(profiles: list[Profile], name: str) -> str:
    for profile in profiles:
        if name in (profile.label, profile.source.section):
            return profile.label
    labels = ", ".join(dict.fromkeys(p.label for p in profiles))
    raise UsageError(f"--baseline {name!r}: no profile has that label or section title "
                     f"(labels: {labels})")
