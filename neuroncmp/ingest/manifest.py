"""Run folders: a ``manifest.json`` naming each profile file with its label, batch size and sidecars.

Read here, and written here for ``capture`` (``profile_entry`` / ``write_manifest``; ``convert``
still builds its own dict). Schema ``neuroncmp.manifest/1`` (``profiles/README.md``); other keys are
allowed and ignored by ``load`` (``capture`` records its command, environment, versions and failed
variants there). Every entry is checked before anything is read, so a manifest can never pull in a
file from elsewhere on the machine (docs/limits.md, "What is read").
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, NamedTuple

from ..errors import ParseError
from ..model import Profile
from ..paths import file_kind
from .decode import loads, read_text
from .shapes import found

MANIFEST = "manifest.json"
MANIFEST_SCHEMA = "neuroncmp.manifest/1"
SIDECAR_KEYS = ("memory", "training")
_TEXT_KEYS = ("label", "section")
_OBJECT_KEYS = ("params", "metadata")
# The manifests read so far by folder, inside ``remembered()`` (None: outside, read each time);
# each as a 1-tuple, so that a folder without one is remembered too.
_READ: ContextVar[dict[str, tuple[list[Any] | None]] | None] = ContextVar("manifests_read", default=None)


class Entry(NamedTuple):
    """One checked manifest entry: the profile file (or Explorer folder) and what to apply to it."""

    path: Path
    fields: dict[str, Any]
    sidecars: tuple[Path, ...]


def read_manifest(directory: Path) -> list[Entry] | None:
    """The folder's checked entries, or None when it has no manifest; a bad one is a ParseError."""
    profiles = _profiles(directory)
    if profiles is None:
        return None
    return [_entry(directory, directory / MANIFEST, index, entry) for index, entry in enumerate(profiles)]


def manifest_document(directory: Path) -> dict[str, Any] | None:
    """The folder's manifest as written (its schema checked, its entries not), or None without one.

    ``capture`` appends to it, keeping the keys ``load`` ignores.
    """
    file = directory / MANIFEST
    if not file.exists() and not file.is_symlink():
        return None
    manifest = loads(read_text(file), str(file))
    if not isinstance(manifest, dict) or manifest.get("schema") != MANIFEST_SCHEMA:
        raise ParseError(str(file), "top level", f'{{"schema": "{MANIFEST_SCHEMA}", ...}}',
                         repr(manifest)[:60])
    return manifest


@contextmanager
def remembered() -> Iterator[None]:
    """Within the block, each folder's manifest is read once (per thread): a bulk add looks for
    the manifest beside each of thousands of files twice, mostly in one folder. A manifest
    that cannot be read is not remembered: each look raises its error again. A block inside
    another keeps the outer one's memory (an add runs one ``inputs.assemble`` per file)."""
    if _READ.get() is not None:
        yield
        return
    token = _READ.set({})
    try:
        yield
    finally:
        _READ.reset(token)


def _profiles(directory: Path | str) -> list[Any] | None:
    """The manifest's ``profiles`` list (entries not checked yet), or None without a manifest."""
    read = _READ.get()
    if read is None:
        return _read_profiles(Path(directory))
    key = str(directory)
    found = read.get(key)
    if found is None:  # the folder's first look
        found = read[key] = (_read_profiles(Path(directory)),)
    return found[0]


def _read_profiles(directory: Path) -> list[Any] | None:
    manifest = manifest_document(directory)
    if manifest is None:
        return None
    file = directory / MANIFEST
    profiles = manifest.get("profiles")
    if not isinstance(profiles, list) or not profiles:
        raise ParseError(str(file), "key 'profiles'", "a non-empty list of profile entries",
                         found(profiles))
    return profiles


def _entry(directory: Path, file: Path, index: int, entry: Any) -> Entry:
    where = f"profiles[{index}]"
    if not isinstance(entry, dict):
        raise ParseError(str(file), where, 'an object such as {"file": "b32.json", "label": "b32"}',
                         found(entry))
    for key in _TEXT_KEYS:
        _expect(file, where, entry, key, str, "text")
    for key in _OBJECT_KEYS:
        _expect(file, where, entry, key, dict, "an object")
    notes = entry.get("notes")
    if notes is not None and not (isinstance(notes, list) and all(isinstance(n, str) for n in notes)):
        raise ParseError(str(file), f"{where}.notes", "a list of text lines", found(notes))
    _check_params(file, f"{where}.params", entry.get("params") or {})
    path = inside(directory, file, f"{where}.file", entry.get("file"), folder_ok=True)
    sidecars = tuple(inside(directory, file, f"{where}.{key}", entry[key])
                     for key in SIDECAR_KEYS if entry.get(key) is not None)
    return Entry(path, entry, sidecars)


def _expect(file: Path, where: str, entry: dict[str, Any], key: str, kind: type, what: str) -> None:
    value = entry.get(key)
    if value is not None and not isinstance(value, kind):
        raise ParseError(str(file), f"{where}.{key}", what, found(value))


def _check_params(file: Path, where: str, params: dict[str, Any]) -> None:
    size = params.get("batch_size")
    if size is not None and (type(size) is not int or size < 1):
        raise ParseError(str(file), f"{where}.batch_size", "a whole number >= 1 (or null)", found(size))
    version = params.get("version")  # successive versions of one kernel: diff judges each against the one before
    if version is not None and (type(version) is not int or version < 0):
        raise ParseError(str(file), f"{where}.version", "a whole number >= 0 (or null)", found(version))
    tags = params.get("tags")
    if tags is not None and not (isinstance(tags, list) and all(isinstance(t, str) for t in tags)):
        raise ParseError(str(file), f"{where}.tags", "a list of text tags", found(tags))


def inside(directory: Path, file: Path, where: str, name: Any, folder_ok: bool = False) -> Path:
    """``directory / name`` if it is an existing file inside ``directory`` once symlinks are
    resolved (or, with ``folder_ok``, a sub-folder that is not a run folder); else a ParseError."""
    expected = "the name of a file inside the run folder" + (" (or of an Explorer sub-folder)" * folder_ok)
    if not isinstance(name, str) or not name.strip():
        raise ParseError(str(file), where, expected, found(name))
    path = directory / name
    try:
        real, root = path.resolve(strict=True), directory.resolve(strict=True)
    except (OSError, RuntimeError, ValueError) as exc:  # missing, a symlink loop, a NUL byte
        reason = getattr(exc, "strerror", None) or type(exc).__name__
        raise ParseError(str(file), where, expected, f"{name!r} ({str(reason).lower()})") from None
    if root not in real.parents or real == root / MANIFEST:
        what = "the run folder itself" if real == root else "outside it" if root not in real.parents \
            else "the manifest itself"
        raise ParseError(str(file), where, expected + ", symlinks resolved", f"{name!r}, which is {what}")
    if real.is_dir() and not (folder_ok and not (real / MANIFEST).exists()):
        raise ParseError(str(file), where, expected, f"{name!r}, a " + (
            "run folder (run folders do not nest)" if folder_ok else "folder"))
    kind = None if real.is_dir() else file_kind(real.stat().st_mode)
    if kind is not None:
        raise ParseError(str(file), where, expected, f"{name!r}, {kind}")
    return path


def entry_for(path: Path) -> Entry | None:
    """The manifest entry describing ``path``, if its folder has a manifest that lists it."""
    name = path.name
    if name == MANIFEST:
        return None
    profiles = _profiles(os.path.dirname(str(path)) or ".") or []
    index = next((i for i, e in enumerate(profiles) if isinstance(e, dict) and e.get("file") == name), None)
    if index is None:
        return None
    return _entry(path.parent, path.parent / MANIFEST, index, profiles[index])  # a bad one raises each time


def apply_entry(profile: Profile, entry: Entry) -> None:
    """Label, params, metadata, notes and section from a checked entry."""
    fields = entry.fields
    profile.label = fields.get("label") or profile.label
    if fields.get("params") is not None:
        profile.params = dict(fields["params"])
    profile.metadata.update(fields.get("metadata") or {})
    profile.notes.extend(fields.get("notes") or [])
    if fields.get("section"):
        profile.source = profile.source._replace(section=fields["section"])


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
