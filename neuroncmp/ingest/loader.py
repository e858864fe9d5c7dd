"""``load()``: read a file or folder into checked, labelled profiles.

A file goes to the parser its name or content calls for; a run folder's manifest lists its
files; sidecars (memory table, Trainer metrics) merge into their profile; batch sizes the input
does not state are inferred across the set (marked so); every profile is checked for anomalies.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ..errors import ParseError
from ..model import Profile
from . import anomalies, validate
from .batch_sizes import infer_batch_sizes
from .decode import HEAD_BYTES, read_text
from .inputs import assemble
from .manifest import MANIFEST, Entry, apply_entry, entry_for, read_manifest, remembered
from .registry import by_name, for_directory, for_text
from .surround import first_content, unwrap
from .tool_notes import add_note, tool_warning
from .values import add_metric


def load(path: str | Path, format: str | None = None) -> list[Profile]:
    """Every profile in ``path`` (a file, a run folder or a Neuron Explorer folder), checked.

    ``format`` forces a parser by name (``neuroncmp formats`` lists them). A ``manifest.json``
    beside the file supplies label, batch size, notes and sidecar files (memory table, Trainer
    metrics). Batch sizes still unknown are inferred across the file's profiles, marked so.
    Values outside their kind's range are kept and flagged (``validate``); inputs beyond the
    limits (``limits``) are refused.
    """
    return _check(_read(Path(path), format))


def _check(profiles: list[Profile]) -> list[Profile]:
    """Stated batch sizes checked, the missing ones inferred once across the whole set, then every
    profile checked for anomalies: read-only from here on."""
    for profile in profiles:
        validate.batch_size(profile)
    return [anomalies.checked(profile) for profile in infer_batch_sizes([p.freeze() for p in profiles])]


def load_many(paths: Iterable[str | Path], format: str | None = None) -> list[Profile]:
    """Profiles of several files in order; batch sizes inferred across the whole set."""
    return load_set(paths, format)[0]


def load_set(paths: Iterable[str | Path], format: str | None = None) -> tuple[list[Profile], list[str]]:
    """Profiles of a set of inputs as typed (``inputs.assemble``: plain folders, a glob over a
    run folder, sidecars joined, the same content once), batch sizes inferred across the whole
    set, and the notes saying what the set assembly did."""
    profiles = []
    with remembered():  # each folder's manifest read once for the set
        chosen = assemble(paths)
        for path in chosen.paths:
            loaded = _read(path, format)
            if len(loaded) == 1:
                for sidecar in chosen.sidecars.get(path, []):
                    _merge_sidecar(loaded[0], sidecar)
            profiles += loaded
    return _check(profiles), chosen.notes


def input_files(path: str | Path) -> list[Path]:
    """The files ``load(path)`` reads: a file, its folder's manifest and the sidecars it names;
    a run folder's manifest, profile files and sidecars; an Explorer folder's tables."""
    path = Path(path)
    if not path.is_dir():
        entry = entry_for(path) if path.is_file() else None
        return [path] + ([path.parent / MANIFEST, *entry.sidecars] if entry else [])
    entries = read_manifest(path)
    if entries is None:
        return sorted(path.rglob("*.parquet"))
    files = [path / MANIFEST]
    for entry in entries:
        files += sorted(entry.path.rglob("*.parquet")) if entry.path.is_dir() else [entry.path]
        files += entry.sidecars
    return files


def _read(path: Path, format: str | None) -> list[Profile]:
    """Parse ``path`` and apply its manifest entry and sidecars (no inference or checks yet)."""
    if path.name == MANIFEST and path.is_file():
        path = path.parent  # a run folder's manifest stands for the folder
    if path.is_dir():
        entries = None if format else read_manifest(path)
        if entries is not None:
            return [profile for entry in entries for profile in _read_entry(entry)]
        return _directory(path, format)
    profiles = _parse_file(path, format)
    entry = entry_for(path) if len(profiles) == 1 else None
    if entry is not None:
        _apply(profiles[0], entry)
    return profiles


def _read_entry(entry: Entry) -> list[Profile]:
    """One run-folder entry: a file, or an Explorer sub-folder (never another run folder)."""
    path = entry.path
    profiles = _directory(path, None) if path.is_dir() else _parse_file(path, None)
    if len(profiles) == 1:
        _apply(profiles[0], entry)
    return profiles


def _apply(profile: Profile, entry: Entry) -> None:
    apply_entry(profile, entry)
    for sidecar in entry.sidecars:
        _merge_sidecar(profile, sidecar)


def _directory(path: Path, format: str | None) -> list[Profile]:
    parser = by_name(format) if format else for_directory(path)
    if not parser.reads_directory:
        raise ParseError(str(path), "path", f"a file for format '{parser.name}'", "a directory")
    return parser.parse("", str(path))


def _parse_file(path: Path, format: str | None) -> list[Profile]:
    body = unwrap(read_text(path))  # the profile found inside log lines, runner sections, ...
    start = first_content(body.text)  # blanked lines before the profile are not part of its head
    text, cut = body.text, start + HEAD_BYTES
    head, tail = text[start:cut], text[max(cut, len(text) - HEAD_BYTES):]  # slices, not copies of all
    parser = by_name(format) if format else for_text(path, head, tail)
    if parser.reads_directory:
        raise ParseError(str(path), "path", f"a directory for format '{parser.name}'", "a file")
    profiles = parser.parse(text, str(path))
    for profile in profiles:
        profile.skipped[:0] = body.skipped  # the surrounding lines come first, as in the file
        for message in body.warnings:
            add_note(profile.notes, tool_warning(message))
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
        profile.anomalies.extend(extra.anomalies)
        for metric in extra.metrics.values():
            add_metric(profile, metric, str(sidecar))
