"""Which rank or NeuronCore each profile of a distributed step is, by one rule, and refusing guesses.

The first source that names every profile of the set wins (a manifest's ``rank``, ``_rank_<r>`` in
the name, the runtime's inspect layout, the profile's own ``nd_idx`` / ``nc_idx``); a mix of sources,
or two profiles with one identity, is a ``UsageError`` saying which files and how to name them. The
rule and its traps: docs/commands/ranks.md ("Which rank is which").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import PurePath
from typing import NamedTuple

from ..errors import UsageError
from ..escape import quote
from ..model import Profile

_RANK = re.compile(r"_rank_(?P<rank>\d+)(?:_exec_(?P<exec>\d+))?$")
_PROCESS = re.compile(r"^(?P<instance>.+)_pid_(?P<pid>\d+)$")
_CORE = re.compile(r"(?:_vnc_|^profile_nc_|_nc_)(?P<core>\d+)(?:_session_\d+)?$")

MANIFEST, FILE_NAME, RUNTIME_FOLDERS, CORE_INDEX = "manifest", "file name", "runtime folders", "core index"
RULE = ("rank from a manifest's 'rank', else '_rank_<r>' in file names, else the runtime's "
        "'<instance>_pid_<pid>/..._vnc_<k>' folders, else each profile's nd_idx/nc_idx")


class RankId(NamedTuple):
    """A profile's place in the step: ``key`` orders and tells workers apart, ``name`` shows it,
    ``rank`` is the global rank when the source states one, ``how`` the rule's source."""

    key: tuple[int | str, ...]
    name: str
    rank: int | None
    how: str
    execution: int | None = None


def identify(profiles: Sequence[Profile]) -> list[RankId]:
    """Each profile's ``RankId``, by the module's rule; ``UsageError`` when the rule cannot tell."""
    if not profiles:
        raise UsageError("no profiles to tell ranks apart")
    for how, read in _SOURCES:
        found = [read(profile) for profile in profiles]
        if all(found):
            ids = [rank for rank in found if rank is not None]
            _refuse_twice(ids, profiles)
            return ids
        if any(found) and how != CORE_INDEX:
            raise UsageError(_mixed(how, profiles, found))
    missing = [p for p in profiles if _from_indexes(p) is None]
    raise UsageError(f"cannot tell which rank or core {_files(missing)} is: {RULE}. Name the files "
                     "'<stem>_rank_<r>.json' as the capture tools do, or give 'rank' per file in a "
                     "run folder's manifest.json")


def stated_ranks(profiles: Sequence[Profile]) -> list[RankId] | None:
    """The ranks the names or a manifest state (rules 1-3), when every profile has one and there are
    at least two different ones; None otherwise (the core index alone does not make files ranks)."""
    for _, read in _SOURCES[:-1]:
        found = [read(profile) for profile in profiles]
        if all(found):
            ids = [rank for rank in found if rank is not None]
            return ids if len({rank.key for rank in ids}) > 1 else None
    return None


def stated_rank(profile: Profile) -> int | None:
    """The global rank a manifest or the file name states for ``profile`` (rules 1-2), else None."""
    found = _from_manifest(profile) or _from_name(profile)
    return None if found is None else found.rank


def _files(profiles: Sequence[Profile]) -> str:
    shown = ", ".join(quote(str(p.source)) for p in profiles[:3])
    return shown + (f" and {len(profiles) - 3} more" if len(profiles) > 3 else "")


def _mixed(how: str, profiles: Sequence[Profile], found: list[RankId | None]) -> str:
    lacking = [p for p, rank in zip(profiles, found, strict=True) if rank is None]
    return (f"ranks come from the {how} for some profiles but not for {_files(lacking)}: one rule must "
            f"name every rank ({RULE})")


def _refuse_twice(ids: list[RankId], profiles: Sequence[Profile]) -> None:
    seen: dict[tuple[int | str, ...], Profile] = {}
    for rank, profile in zip(ids, profiles, strict=True):
        if rank.key in seen:
            first = seen[rank.key]
            repeated = " (two executions of one rank: give one per rank)" if rank.execution is not None else \
                " (if they are ranks, name them '<stem>_rank_<r>' or give 'rank' in a manifest)" \
                if rank.how == CORE_INDEX else ""
            raise UsageError(f"{rank.name} ({rank.how}) is given twice: {quote(str(first.source))} and "
                             f"{quote(str(profile.source))}{repeated}; ranks compares one profile per rank "
                             "of one step (repeated captures of a run belong in diff)")
        seen[rank.key] = profile


def _from_manifest(profile: Profile) -> RankId | None:
    rank = profile.metadata.get("rank")
    if type(rank) is not int or rank < 0:
        return None
    return RankId((rank,), f"rank {rank}", rank, MANIFEST)


def _from_name(profile: Profile) -> RankId | None:
    match = _RANK.search(PurePath(profile.source.path).stem.split("@")[0])  # Explorer's folder: <name>@latest
    if match is None:
        return None
    rank, execution = int(match["rank"]), match["exec"]
    return RankId((rank,), f"rank {rank}", rank, FILE_NAME, None if execution is None else int(execution))


def _from_folders(profile: Profile) -> RankId | None:
    path = PurePath(profile.source.path)
    core = _CORE.search(path.stem)
    process = next((m for part in reversed(path.parent.parts) if (m := _PROCESS.match(part))), None)
    if core is None or process is None:
        return None
    instance, pid, nc = process["instance"], int(process["pid"]), int(core["core"])
    return RankId((instance, pid, nc), f"{instance}/pid {pid}/nc {nc}", None, RUNTIME_FOLDERS)


def _from_indexes(profile: Profile) -> RankId | None:
    nc, nd = profile.value("nc_idx"), profile.value("nd_idx")  # Explorer's names are their aliases
    if type(nc) is not int or (nd is not None and type(nd) is not int):
        return None
    section = f" {profile.source.section}" if profile.source.section and nd is None else ""
    name = f"nd{nd}/nc{nc}" if nd is not None else f"nc{nc}"
    return RankId((nd if nd is not None else -1, nc), f"core {name}{section}".rstrip(), None, CORE_INDEX)


_SOURCES = ((MANIFEST, _from_manifest), (FILE_NAME, _from_name), (RUNTIME_FOLDERS, _from_folders),
            (CORE_INDEX, _from_indexes))
