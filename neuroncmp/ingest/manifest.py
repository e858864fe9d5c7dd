"""Run folders: a ``manifest.json`` naming each profile file with its label, batch size and sidecars.

Read here, and written here for ``capture`` (``profile_entry`` / ``write_manifest``; ``convert``
still builds its own dict). Schema ``neuroncmp.manifest/1``: ``{"schema": ..., "profiles":
[{"file", "label", "section", "params", "metadata", "notes", "memory", "training"}]}`` (see
``profiles/README.md``). Other top-level keys and other entry keys are allowed and ignored by
``load`` (``capture`` records its command, environment, versions and failed variants there).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import ParseError
from ..model import Profile
from .decode import loads, read_text

MANIFEST = "manifest.json"
MANIFEST_SCHEMA = "neuroncmp.manifest/1"
SIDECAR_KEYS = ("memory", "training")


def read_manifest(directory: Path) -> dict[str, Any] | None:
    """The folder's manifest, or None when it has none; a malformed one is a ParseError."""
    file = directory / MANIFEST
    if not file.is_file():
        return None
    manifest = loads(read_text(file), str(file))
    if not isinstance(manifest, dict) or manifest.get("schema") != MANIFEST_SCHEMA:
        raise ParseError(str(file), "top level", f'{{"schema": "{MANIFEST_SCHEMA}", ...}}',
                         repr(manifest)[:60])
    return manifest


def profile_files(directory: Path, manifest: dict[str, Any]) -> list[Path]:
    """The profile files a run folder lists, in manifest order."""
    return [directory / entry["file"] for entry in manifest.get("profiles", [])]


def entry_for(path: Path) -> dict[str, Any] | None:
    """The manifest entry describing ``path``, if its folder has a manifest that lists it."""
    if path.name == MANIFEST:
        return None
    manifest = read_manifest(path.parent)
    return next((e for e in (manifest or {}).get("profiles", []) if e.get("file") == path.name), None)


def apply_entry(profile: Profile, entry: dict[str, Any]) -> list[Path]:
    """Label, params, metadata, notes and section from the entry; returns its sidecar paths."""
    profile.label = entry.get("label", profile.label)
    profile.params = dict(entry.get("params", profile.params))
    profile.metadata.update(entry.get("metadata", {}))
    profile.notes.extend(entry.get("notes", []))
    if entry.get("section"):
        profile.source = profile.source._replace(section=entry["section"])
    return [Path(profile.source.path).parent / entry[key] for key in SIDECAR_KEYS if entry.get(key)]


# ---- writing: the same schema, owned here (``capture`` writes through these) -------------------

def profile_entry(file: str, label: str, params: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """One ``profiles`` entry: the keys ``apply_entry`` reads, plus any extra fields.

    ``extra`` may hold ``section``, ``metadata``, ``notes``, ``memory``/``training`` (sidecar
    file names beside ``file``) and free fields (``load`` ignores keys it does not know).
    """
    entry: dict[str, Any] = {"file": file, "label": label, "params": dict(params)}
    entry.update({key: value for key, value in extra.items() if value is not None})
    return entry


def check_manifest(manifest: dict[str, Any], where: str) -> None:
    """Raise ParseError unless ``manifest`` is what ``read_manifest`` and ``load`` accept."""
    if manifest.get("schema") != MANIFEST_SCHEMA:
        raise ParseError(where, "schema", f'"{MANIFEST_SCHEMA}"', repr(manifest.get("schema")))
    for index, entry in enumerate(manifest.get("profiles", [])):
        if not isinstance(entry, dict) or not entry.get("file") or not entry.get("label"):
            raise ParseError(where, f"profiles[{index}]", 'an object with "file" and "label"',
                             repr(entry)[:60])
        for key in SIDECAR_KEYS:
            if key in entry and not isinstance(entry[key], str):
                raise ParseError(where, f"profiles[{index}].{key}", "a file name", repr(entry[key]))


def write_manifest(directory: Path, manifest: dict[str, Any]) -> Path:
    """Check ``manifest`` and write it as ``directory/manifest.json`` atomically."""
    import json

    from ..atomic import write_atomic

    file = directory / MANIFEST
    check_manifest(manifest, str(file))
    write_atomic(file, json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
    return file
