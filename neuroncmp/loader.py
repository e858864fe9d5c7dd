"""``load()``: read a file or directory into profiles, with its manifest, sidecars and checks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable

from . import checks
from .batch import infer_batch_sizes
from .errors import NeuroncmpError, ParseError
from .gcpause import paused_gc
from .model import Profile
from .parsers.common import add_metric
from .parsers.registry import Parser, by_name, for_directory, for_text

MANIFEST = "manifest.json"
MANIFEST_SCHEMA = "neuroncmp.manifest/1"
_HEAD_BYTES = 65536


def load(path: str | Path, format: str | None = None) -> list[Profile]:
    """Every profile in ``path`` (a file, or a Neuron Explorer directory), checked and labelled.

    ``format`` forces a parser by name (``neuroncmp formats`` lists them). A ``manifest.json``
    beside the file supplies label, batch size, notes and sidecar files (memory table, Trainer
    metrics). Batch sizes still unknown are inferred across the file's profiles, marked so.
    """
    profiles = _parse(Path(path), format)
    _apply_manifest(Path(path), profiles)
    infer_batch_sizes(profiles)
    for profile in profiles:
        checks.check(profile)
    return profiles


def load_many(paths: Iterable[str | Path], format: str | None = None) -> list[Profile]:
    """Profiles of several files in order; batch sizes inferred across the whole set."""
    with paused_gc():
        profiles = [profile for path in paths for profile in load(path, format)]
    infer_batch_sizes(profiles)
    return profiles


def _parse(path: Path, format: str | None) -> list[Profile]:
    if not path.exists():
        raise NeuroncmpError(f"{path}: no such file or directory")
    if path.is_dir():
        manifest = None if format else read_manifest(path)
        if manifest is not None:  # a run folder written by `neuroncmp convert`
            return [p for entry in manifest.get("profiles", []) for p in load(path / entry["file"])]
        reader = by_name(format) if format else for_directory(path)
        return reader.parse("", str(path))
    text = read_text(path)
    parser: Parser = by_name(format) if format else for_text(path, text[:_HEAD_BYTES])
    if parser.reads_directory:
        raise ParseError(str(path), "path", f"a directory for format '{parser.name}'", "a file")
    return parser.parse(text, str(path))


def read_text(path: Path) -> str:
    """The file as text; empty files and binary data are errors naming the file."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise NeuroncmpError(f"{path}: cannot read: {exc.strerror}") from None
    if not data.strip():
        raise ParseError(str(path), "whole file", "a Neuron profile", "an empty file")
    nul = data.find(b"\0", 0, _HEAD_BYTES)
    if nul >= 0:
        raise ParseError(str(path), f"byte {nul}", "UTF-8 text", "binary data (a NUL byte)")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ParseError(str(path), f"byte {exc.start}", "UTF-8 text", "binary data") from None


def read_manifest(directory: Path) -> dict[str, Any] | None:
    file = directory / MANIFEST
    if not file.is_file():
        return None
    try:
        manifest = json.loads(read_text(file))
    except json.JSONDecodeError as exc:
        raise ParseError(str(file), f"line {exc.lineno}", "valid JSON", exc.msg) from None
    if not isinstance(manifest, dict) or manifest.get("schema") != MANIFEST_SCHEMA:
        raise ParseError(str(file), "top level", f'{{"schema": "{MANIFEST_SCHEMA}", ...}}',
                         repr(manifest)[:60])
    return manifest


def _apply_manifest(path: Path, profiles: list[Profile]) -> None:
    if path.is_dir() or path.name == MANIFEST or len(profiles) != 1:
        return
    manifest = read_manifest(path.parent)
    entry = next((e for e in (manifest or {}).get("profiles", []) if e.get("file") == path.name), None)
    if entry is None:
        return
    profile = profiles[0]
    profile.label = entry.get("label", profile.label)
    profile.params = dict(entry.get("params", profile.params))
    profile.metadata.update(entry.get("metadata", {}))
    profile.notes.extend(entry.get("notes", []))
    if entry.get("section"):
        profile.source = profile.source._replace(section=entry["section"])
    for key in ("memory", "training"):
        if entry.get(key):
            _merge_sidecar(profile, path.parent / entry[key])


def _merge_sidecar(profile: Profile, sidecar: Path) -> None:
    for extra in _parse(sidecar, None):
        profile.memory.extend(extra.memory)
        profile.training.update(extra.training)
        profile.skipped.extend(extra.skipped)
        profile.notes.extend(extra.notes)
        for metric in extra.metrics.values():
            add_metric(profile, metric, str(sidecar))
