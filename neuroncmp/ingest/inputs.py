"""A set of inputs as people type them: ``diff b16.json b32.json``, ``diff run/``, ``diff run/*``.

``load()`` reads one path; this module decides what a set of paths means before any is parsed
(plain folders, a manifest given among its own files, sidecars, the same file twice: docs/formats.md,
"A set of inputs"). Each decision is said in a note; nothing is dropped silently.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable
from pathlib import Path

from ..errors import InputError, UnknownFormatError
from ..escape import quote
from ..paths import inside
from .manifest import MANIFEST, entry_for, read_manifest, remembered
from .registry import for_directory

# sidecar name endings, as ``convert`` and ``capture`` write them beside ``<stem>.json``
SIDECAR_ENDINGS = (".memory.md", ".all_results.json", ".train_results.json")


class InputSet:
    """The files (and folders) to load, in order, each with the sidecars to join to it, and
    notes saying what was joined, merged or left out."""

    def __init__(self) -> None:
        self.paths: list[Path] = []
        self.sidecars: dict[Path, list[Path]] = {}
        self.notes: list[str] = []


def assemble(given: Iterable[str | Path]) -> InputSet:
    """What ``given`` means as a set (module docstring)."""
    out = InputSet()
    with remembered():
        expanded = _expanded([Path(p) for p in given], out)
        files = _folders_for_manifests(expanded, out)
        _sidecars(files, out)
        _deduplicated(out)
    return out


def _expanded(paths: list[Path], out: InputSet) -> list[Path]:
    """Plain folders become the files below them."""
    found: list[Path] = []
    for path in paths:
        if is_plain_folder(path):
            inside, outside = folder_files(path)
            files = sorted(inside, key=_natural)  # b4 before b16: the smallest batch is the baseline
            out.notes += [f"{link}: a symlink leading out of {path}: not followed (give the file by "
                          "its own path)" for link in outside]
            if not files:
                raise InputError(f"{quote(path)}: a folder with no files in it (no profile, no "
                                 "manifest.json, no Neuron Explorer output)")
            out.notes.append(f"{path}: a plain folder (no manifest.json): its {len(files)} files")
            found += files
        else:
            found.append(path)
    return found


def _natural(path: Path) -> list[tuple[int, str]]:
    """A sort key that orders numbers in names by value (``b4`` < ``b16``)."""
    return [(int(part), "") if part.isdigit() else (-1, part)
            for part in re.split(r"(\d+)", str(path)) if part]


def is_plain_folder(path: Path) -> bool:
    """A folder read as every file below it: no ``manifest.json``, not a directory format."""
    return path.is_dir() and not (path / MANIFEST).is_file() and not _directory_format(path)


def folder_files(folder_path: Path) -> tuple[list[Path], list[Path]]:
    """(files below ``folder_path``, symlinks below it that lead out of it), sorted. Hidden names
    are left out; linked folders are not descended (``os.walk`` without ``followlinks``), so a
    loop of links cannot trap the walk, and no file from outside the folder is read."""
    within, outside = [], []
    for where, folders, names in os.walk(folder_path):
        folders[:] = [n for n in folders if not n.startswith(".")]
        for name in [*folders, *names]:
            file = Path(where) / name
            if name.startswith(".") or not (file.is_symlink() or name in names):
                continue
            if not inside(file, folder_path):
                outside.append(file)
            elif name in names and file.is_file():
                within.append(file)
    return sorted(within), sorted(outside)


def _directory_format(path: Path) -> bool:
    try:
        for_directory(path)
    except UnknownFormatError:
        return False
    return True


def _folders_for_manifests(paths: list[Path], out: InputSet) -> list[Path]:
    """A manifest given with files of its own folder stands for the folder (in the manifest's
    place): the folder's other files are the manifest's to read."""
    folders = {p.parent.resolve(): p.parent for p in paths if p.name == MANIFEST and p.is_file()}
    if not folders:
        return paths
    kept: list[Path] = []
    for path in paths:
        home = path.parent.resolve() if path.is_file() else None
        if path.name == MANIFEST and home in folders:
            kept.append(folders[home])
            continue
        if home in folders:
            named = {e.path.resolve() for e in read_manifest(folders[home]) or []}
            sidecars = {s.resolve() for e in read_manifest(folders[home]) or [] for s in e.sidecars}
            if path.resolve() not in named | sidecars:
                out.notes.append(f"{path}: not named by {folders[home] / MANIFEST}; left out (the "
                                 "manifest given with it stands for the run folder)")
            continue
        kept.append(path)
    if folders:
        out.notes += [f"{folder / MANIFEST}: read as the run folder {folder}/ (its profiles and "
                      "sidecars)" for folder in folders.values()]
    return kept


def _sidecars(paths: list[Path], out: InputSet) -> None:
    """Sidecars given or found beside a profile are joined to it; the rest are inputs."""
    sidecar_stems = [_sidecar_stem(p) for p in paths]
    profiles = [p for p, stem in zip(paths, sidecar_stems) if stem is None]
    by_stem = {(_folder(p), p.stem): p for p in profiles}
    for path, stem in zip(paths, sidecar_stems):
        if stem is None:
            continue
        owner = by_stem.get((_folder(path), stem))
        if owner is None:
            owner = path.parent / f"{stem}.json"
            if not owner.is_file():
                profiles.append(path)  # no profile to join: read as given (a Trainer-only input)
                continue
            profiles.append(owner)
            by_stem[(_folder(path), stem)] = owner
            out.notes.append(f"{path}: a sidecar: read with its profile {owner}")
        if entry_for(owner) is None:  # a manifest entry's sidecars are joined by load()
            out.sidecars.setdefault(owner, []).append(path)
            out.notes.append(f"{path}: joined to {owner.name} as its sidecar")
    for profile in profiles:  # sidecars beside a profile with no manifest entry, not given: joined, said so
        found = beside(profile) if profile.is_file() else []
        if found and entry_for(profile) is None:
            given = set(out.sidecars.get(profile, []))
            for candidate in (each for each in found if each not in given):
                out.sidecars.setdefault(profile, []).append(candidate)
                out.notes.append(f"{candidate}: found beside {profile.name}; joined as its sidecar")
    out.paths = profiles


def beside(profile: Path) -> list[Path]:
    """The sidecar files named after ``profile`` in its folder (``b16.json``: ``b16.memory.md``,
    ``b16.all_results.json``, ...)."""
    if _sidecar_stem(profile):
        return []
    found = [profile.parent / f"{profile.stem}{ending}" for ending in SIDECAR_ENDINGS]
    return [p for p in found if p.is_file() and p != profile]


def _folder(path: Path) -> str:
    """A file's folder as a key: normalised, not resolved (a resolve costs a stat per part)."""
    return os.path.normpath(os.path.abspath(path.parent))


def _sidecar_stem(path: Path) -> str | None:
    """``b16`` for ``b16.memory.md`` or ``b16.all_results.json``; None for other names."""
    name = path.name
    for ending in SIDECAR_ENDINGS:
        if name.endswith(ending) and len(name) > len(ending) and path.is_file():
            return name[: -len(ending)]
    return None


def _deduplicated(out: InputSet) -> None:
    """Files with the same name and content are one capture (a path given twice, a copy): the
    first kept, the others named. Same content under other names stays: a name can carry the
    batch size, and generated or stand-in files may share their values."""
    sizes = [_size(path) for path in out.paths]  # one stat a path
    names = [path.name for path in out.paths]
    counts: dict[tuple[str, int], int] = {}
    for name, size in zip(names, sizes):
        if size is not None:
            counts[(name, size)] = counts.get((name, size), 0) + 1
    seen: dict[tuple[str, str], Path] = {}
    kept = []
    for path, name, size in zip(out.paths, names, sizes):
        if size is None:
            digest = (f"dir:{path.resolve()}", "")
        elif counts[(name, size)] == 1:  # no other file has its name and size: no hashing
            digest = (f"unique:{path}", name)
        else:
            digest = (_digest(path), name)
        if digest in seen:
            out.notes.append(f"{path}: the same content as {seen[digest]}; read once (one capture)")
            continue
        seen[digest] = path
        kept.append(path)
    out.paths = kept


def _size(path: Path) -> int | None:
    """A regular file's size; None for a folder or anything else (``load`` says what it is)."""
    try:
        found = path.stat()
    except (OSError, ValueError):
        return None
    return found.st_size if stat.S_ISREG(found.st_mode) else None


def _digest(path: Path) -> str:
    import hashlib  # only when two files share a name and size

    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()
