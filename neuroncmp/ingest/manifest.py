"""Run folders: a ``manifest.json`` naming each profile file with its label, batch size and sidecars.

Written by ``neuroncmp convert`` (and ``capture``); read here. Schema ``neuroncmp.manifest/1``:
``{"schema": ..., "profiles": [{"file", "label", "section", "params", "metadata", "notes",
"memory", "training"}]}`` (see ``profiles/README.md``).
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
