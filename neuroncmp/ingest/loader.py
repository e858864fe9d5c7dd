"""``load()``: read a file or folder into checked, labelled profiles.

A file goes to the parser its name or content calls for; a run folder's manifest lists its
files; sidecars (memory table, Trainer metrics) merge into their profile; batch sizes the input
does not state are inferred across the set (marked so); every profile is checked for anomalies.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from ..errors import InputError, ParseError
from ..model import Profile
from . import anomalies
from .batch_sizes import infer_batch_sizes
from .decode import HEAD_BYTES, read_text
from .manifest import MANIFEST, apply_entry, entry_for, profile_files, read_manifest
from .registry import by_name, for_directory, for_text
from .values import add_metric


def load(path: str | Path, format: str | None = None) -> list[Profile]:
    """Every profile in ``path`` (a file, a run folder or a Neuron Explorer folder), checked.

    ``format`` forces a parser by name (``neuroncmp formats`` lists them). A ``manifest.json``
    beside the file supplies label, batch size, notes and sidecar files (memory table, Trainer
    metrics). Batch sizes still unknown are inferred across the file's profiles, marked so.
    """
    profiles = _read(Path(path), format)
    infer_batch_sizes(profiles)
    for profile in profiles:
        anomalies.check(profile)
    return profiles


def load_many(paths: Iterable[str | Path], format: str | None = None) -> list[Profile]:
    """Profiles of several files in order; batch sizes inferred across the whole set."""
    profiles = [profile for path in paths for profile in load(path, format)]
    infer_batch_sizes(profiles)
    return profiles


def _read(path: Path, format: str | None) -> list[Profile]:
    """Parse ``path`` and apply its manifest entry and sidecars (no inference or checks yet)."""
    if path.name == MANIFEST and path.is_file():
        path = path.parent  # a run folder's manifest stands for the folder
    if path.is_dir():
        manifest = None if format else read_manifest(path)
        if manifest is not None:
            return [p for file in profile_files(path, manifest) for p in _read(file, None)]
        return (by_name(format) if format else for_directory(path)).parse("", str(path))
    profiles = _parse_file(path, format)
    entry = entry_for(path) if len(profiles) == 1 else None
    if entry is not None:
        for sidecar in apply_entry(profiles[0], entry):
            _merge_sidecar(profiles[0], sidecar)
    return profiles


def _parse_file(path: Path, format: str | None) -> list[Profile]:
    if not path.exists():
        raise InputError(f"{path}: no such file or directory")
    text = read_text(path)
    parser = by_name(format) if format else for_text(path, text[:HEAD_BYTES])
    if parser.reads_directory:
        raise ParseError(str(path), "path", f"a directory for format '{parser.name}'", "a file")
    profiles = parser.parse(text, str(path))
    if format is None and not any(_recognised(profile) for profile in profiles):
        names = ", ".join(list(profiles[0].metrics)[:3]) if profiles else ""
        raise ParseError(str(path), "whole file", f"at least one known Neuron metric for {parser.name} "
                         "(see 'neuroncmp metrics'); force the format with --format-in if this is one",
                         f"only unknown names ({names})")
    return profiles


def _recognised(profile: Profile) -> bool:
    """Whether anything in the profile is something neuroncmp knows (not a random JSON object)."""
    return bool(profile.memory or profile.training) or any(m.catalogued for m in profile.metrics.values())


def _merge_sidecar(profile: Profile, sidecar: Path) -> None:
    for extra in _parse_file(sidecar, None):
        profile.memory.extend(extra.memory)
        profile.training.update(extra.training)
        profile.skipped.extend(extra.skipped)
        profile.notes.extend(extra.notes)
        for metric in extra.metrics.values():
            add_metric(profile, metric, str(sidecar))
