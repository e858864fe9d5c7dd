"""Adding profiles: load and check everything first, then write it as one part under the lock
(idempotent, atomic, safe with several adders: docs/history/store.md, "Guarantees").
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..errors import InputError, NeuroncmpError, UnknownFormatError
from ..ingest import load, load_set
from ..ingest.inputs import assemble, beside, folder_files, is_plain_folder
from ..ingest.manifest import entry_for, remembered
from ..model import Profile
from ..paths import inside
from . import folder, identity, objects, parts, table_rows, times
from .listing import Entry, Problem


@dataclass(frozen=True, slots=True)
class AddedRun:
    """One run of an add: its id and place in history, and whether the store had it already."""

    run: str
    label: str
    source: str
    time: str
    time_source: str
    present: bool
    tags: tuple[tuple[str, str], ...] = ()  # the tags this add gives the run
    kept_tags: tuple[tuple[str, str], ...] | None = None  # a present run's own, when they differ


@dataclass(frozen=True, slots=True)
class AddReport:
    runs: tuple[AddedRun, ...]
    skipped: tuple[Problem, ...]

    @property
    def added(self) -> tuple[AddedRun, ...]:
        return tuple(run for run in self.runs if not run.present)

    @property
    def present(self) -> tuple[AddedRun, ...]:
        return tuple(run for run in self.runs if run.present)


@dataclass(frozen=True, slots=True)
class Prepared:
    """A loaded file: its profiles, content hash and object name, and the entry that named it."""

    entry: Entry
    source: Path
    profiles: list[Profile]
    content_hash: str
    object: str
    sidecars: dict[str, Path]  # object name -> file
    data: dict[str, bytes] = field(default_factory=dict)  # object name -> the bytes hashed (small files)


@dataclass(frozen=True, slots=True)
class _Staged:
    """A prepared file reduced to what the commit needs: its runs (as if new), where its rows lie
    in the add's columns, and the copies to keep. Its rows are built as it is loaded and its
    profiles let go: a bulk add of thousands no longer holds every profile until the commit
    (memory, and the cyclic GC rescanning some 80 metric records per profile)."""

    content_hash: str
    runs: list[AddedRun]
    rows: dict[str, range]  # table -> its rows in the add's columns
    copies: tuple[tuple[str, Path, bytes | None], ...]  # (object name, file, its bytes if held):
    # the file, then its sidecars


# the small files' bytes an add holds from their hashing to their copy, at most (3,000 profiles
# of 4 kB: 12 MB); beyond it a copy reads its file again
HELD_BYTES = 64 << 20


class _Held:
    """The bytes an add holds for its copies, within HELD_BYTES."""

    def __init__(self) -> None:
        self.total = 0

    def take(self, data: bytes | None) -> bytes | None:
        if data is None or self.total + len(data) > HELD_BYTES:
            return None
        self.total += len(data)
        return data


def add(root: Path, entries: list[Entry], *, skip_bad: bool = False,
        problems: list[Problem] | None = None) -> AddReport:
    """Add every entry's profiles to the store at ``root`` (made if missing). A bad entry (or a
    ``problems`` row of a listing) stops the add before anything is written, unless
    ``skip_bad``: then the rest is added and the report lists what was skipped."""
    folder.usable(root)
    problems = list(problems or [])
    staged: list[_Staged] = []
    columns, provisional, held = table_rows.Columns(), times.now(), _Held()
    with remembered():  # one read of each folder's manifest for the whole add
        for given in entries:
            found, outside = expand(given)
            problems += outside
            for entry in found:  # each file of a plain folder on its own: --skip-bad adds the rest
                try:
                    prepared = prepare(entry)
                except NeuroncmpError as exc:
                    problems.append(Problem(entry.where, _listing_hint(entry.path) or str(exc)))
                    continue
                staged += [_stage(item, columns, provisional, held) for item in prepared]
    if problems and not skip_bad:
        raise InputError(refusal(problems))
    if not staged:  # an empty folder or listing: say so, and make no store for it
        raise InputError(nothing_to_add(root, entries, problems))
    folder.create(root)
    return AddReport(_commit(root, staged, columns), tuple(problems))


def _stage(item: Prepared, columns: table_rows.Columns, added: datetime, held: _Held) -> _Staged:
    """Append ``item``'s rows to ``columns``; ``added`` is provisional (``_commit`` sets it)."""
    start = {table: columns.count(table) for table in columns.tables}
    runs = run_rows(item, added, columns, present=False)
    rows = {table: range(first, columns.count(table)) for table, first in start.items()}
    copies = tuple((name, file, held.take(item.data.get(name)))
                   for name, file in ((item.object, item.source), *item.sidecars.items()))
    return _Staged(item.content_hash, runs, rows, copies)


def nothing_to_add(root: Path, entries: list[Entry], problems: list[Problem]) -> str:
    """What an add that found no profile says (every engine): nothing is created for it."""
    where = ", ".join(e.where for e in entries) or "the listing"
    why = f" (skipped: {refusal(problems).split('; nothing was added')[0]})" if problems else ""
    state = "the store is unchanged" if (root / folder.MARKER).is_file() else "no store was created"
    return f"{where}: nothing to add: no profile found{why}; {state}"


def refusal(problems: list[Problem]) -> str:
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return f"{problems[0]}{more}; nothing was added (--skip-bad adds the rest)"


def _listing_hint(path: Path) -> str | None:
    """What to say of a CSV with a ``path`` column found among profiles (``make_history.py`` and
    nightly jobs leave ``runs.csv`` beside the files): a listing to add with ``--runs``, not a
    profile that failed to parse."""
    if path.suffix.lower() != ".csv" or not path.is_file():
        return None
    try:
        with path.open(encoding="utf-8", errors="replace") as handle:
            header = handle.readline(4096)
    except OSError:
        return None
    if "path" not in [cell.strip().strip('"') for cell in header.split(",")]:
        return None
    return f"'{path.name}' is a runs listing (a 'path' column), not a profile: add it with --runs {path}"


def prepare(entry: Entry) -> list[Prepared]:
    """Load what the entry names; a plain folder (no manifest, not an Explorer folder) is every
    file below it. Pure of the store: engines run it wherever the parsing happens."""
    path = entry.path
    if not path.exists():
        raise InputError(f"{path}: no such file or directory")
    if path.is_dir():
        try:
            profiles = load(path)
        except UnknownFormatError:
            return [item for each in _files_below(entry) for item in prepare(each)]
    else:
        profiles = load_set([path])[0]  # sidecars beside a file with no manifest joined to it
    by_source: dict[str, list[Profile]] = {}
    for profile in profiles:
        by_source.setdefault(profile.source.path, []).append(profile)
    out = []
    for source, group in by_source.items():
        file = path if source == str(path) else Path(source)
        content = objects.read(file)
        data = {content.object: content.data} if content.data is not None else {}
        sidecars = _sidecars(file, data)
        out.append(Prepared(entry, file, group, content.content_hash, content.object, sidecars, data))
    return out


def _sidecars(file: Path, data: dict[str, bytes]) -> dict[str, Path]:
    """The sidecar files a run folder's manifest names for ``file`` (else those beside it, named
    after it), by their object names; the bytes of those read whole go to ``data``."""
    if not file.is_file():
        return {}
    entry = entry_for(file)
    # a sidecar beside a profile may be a link leading out of its folder: its file is not copied
    found = entry.sidecars if entry is not None else [p for p in beside(file) if inside(p, file.parent)]
    out = {}
    for path in found:
        if path.is_file():
            content = objects.read(path)
            out[content.object] = path
            if content.data is not None:
                data[content.object] = content.data
    return out


def expand(entry: Entry) -> tuple[list[Entry], list[Problem]]:
    """The entries ``prepare`` would load one by one, found without parsing: a plain folder is
    every file below it (what ``prepare`` falls back to), anything else is itself (an engine that
    spreads the parsing gives each its own task); and a problem for each symlink in a plain folder
    that leads out of it: such a link is not followed (a manifest may not name one either), so no
    file from outside is copied."""
    path = entry.path
    if not is_plain_folder(path):
        return [entry], []
    return (_files_below(entry),
            [Problem(f"{entry.where} ({link})", "a symlink leading out of the folder: not followed "
                     "(copy the file into the folder, or add it by its own path)") for link in folder_files(path)[1]])


def _files_below(entry: Entry) -> list[Entry]:
    """The profiles below a plain folder, as ``diff`` reads it (``inputs.assemble``): sidecars
    are joined to their profile, not added as runs; never a file reached through a symlink that
    leads out of the folder (``folder_files``: ``expand`` reports those)."""
    below = set(folder_files(entry.path)[0])
    if not below:
        return []  # an empty folder: nothing to add (said by ``add``), not a bad input
    return [replace(entry, path=file, where=f"{entry.where} ({file})")
            for file in assemble([entry.path]).paths if file in below]


def _commit(root: Path, staged: list[_Staged], columns: table_rows.Columns) -> tuple[AddedRun, ...]:
    """Under the lock: skip what the store (or this add) has, copy the files, write, publish."""
    added = times.now()
    with folder.locked(root):
        snapshot = folder.read_snapshot(root)
        report, places = decide([(item.content_hash, item.runs) for item in staged], snapshot)
        new = [staged[place] for place in places]
        if new:
            for item in new:
                for relative, file, data in item.copies:
                    objects.keep(root, relative, file, data)
            chosen = columns if len(new) == len(staged) else columns.take([item.rows for item in new])
            chosen.tables["runs"]["added"] = [added] * chosen.count("runs")  # the time of the commit
            part = parts.new_part_id()
            parts.write(root, part, chosen)
            snapshot["parts"].append(parts.entry(part, chosen))
            folder.write_snapshot(root, snapshot)
    return as_stored(root, snapshot, report)


def decide(files: list[tuple[str, list[AddedRun]]],
           snapshot: dict[str, Any]) -> tuple[tuple[AddedRun, ...], list[int]]:
    """In add order, each file's (content hash, runs): one whose content the store (or this add,
    earlier) holds is present. The runs as reported, and the new files' places in ``files``."""
    present = {h for part in snapshot["parts"] for h in part["hashes"]}
    report: list[AddedRun] = []
    new = []
    for place, (content_hash, runs) in enumerate(files):
        if content_hash in present:
            report += [replace(run, present=True) for run in runs]
        else:
            report += runs
            new.append(place)
        present.add(content_hash)
    return tuple(report), new


def as_stored(root: Path, snapshot: dict[str, Any], report: tuple[AddedRun, ...]) -> tuple[AddedRun, ...]:
    """Runs the store already held, reported with the time, time source and label it keeps
    (this add's ``--at`` or file time does not change them). Parts are immutable, so reading
    them needs no lock."""
    wanted = {run.run for run in report if run.present}
    if not wanted:
        return report
    prefixes = {run.split(".")[0] for run in wanted}
    holding = {"parts": [part for part in snapshot["parts"]
                         if any(h[:12] in prefixes for h in part["hashes"])]}
    stored: dict[str, dict[str, Any]] = {}
    for path in parts.files(root, holding, "runs"):
        rows = parts.read_table(root, path, columns=["run", "time", "time_source", "label", "tags"],
                                filters=[("run", "in", sorted(wanted))]).to_pylist()
        stored.update((row["run"], row) for row in rows)
    return tuple(_stored(run, stored[run.run]) if run.present and run.run in stored else run
                 for run in report)


def _stored(run: AddedRun, row: dict[str, Any]) -> AddedRun:
    when = row["time"]  # Spark's parts may read back without a zone; the store's times are UTC
    when = when if when.tzinfo else when.replace(tzinfo=timezone.utc)
    kept = tuple(sorted((str(k), str(v)) for k, v in row.get("tags") or []))
    return replace(run, label=row["label"], time=times.iso(when), time_source=row["time_source"],
                   kept_tags=kept if run.tags and kept != tuple(sorted(run.tags)) else None)


def run_rows(item: Prepared, added: datetime, columns: table_rows.Columns | None,
             present: bool) -> list[AddedRun]:
    """The item's runs (their rows appended to ``columns`` when given)."""
    out = []
    for index, profile in enumerate(item.profiles):
        run = item.content_hash[:12] + (f".{index + 1}" if len(item.profiles) > 1 else "")
        when, source = _time(item, profile)
        tags = identity.run_tags(profile, item.entry.tags)
        if columns is not None:
            commit = item.entry.commit or (identity.commit_from_name(profile)
                                           if item.entry.commit_from_name else None)
            info = table_rows.RunInfo(run, item.content_hash, when, source, commit,
                                   tags, item.object,
                                   sorted(item.sidecars), added)
            table_rows.add(columns, profile, info)
        out.append(AddedRun(run, profile.label, str(item.source), times.iso(when), source, present,
                            tuple(sorted(tags.items()))))
    return out


def _time(item: Prepared, profile: Profile) -> tuple[datetime, str]:
    """The run's time and where it came from: given, stated by the profile, else file mtime."""
    if item.entry.at is not None:
        return item.entry.at, item.entry.at_source
    stated = times.stated_time(profile)
    if stated is not None:
        return stated, "profile"
    return datetime.fromtimestamp(item.source.stat().st_mtime, tz=timezone.utc), "file mtime"
