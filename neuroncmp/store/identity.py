"""Which series a run belongs to: the rule that nightly file names cannot break
(docs/history/store.md, "How series are formed"). ``_volatile`` finds the parts of a label that
change from run to run; ``series_of`` keys runs already stored by a store's ``series_by``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..model import Profile

FROM_NAME = "file name"
# words whose following numbers count runs or name a machine: run-0042, build-7, ip-10-0-3-17
_COUNTER_WORDS = {"run", "build", "job", "nightly", "ci", "attempt", "try", "id", "ip", "host", "node",
                  "step", "seed"}
_HEX = re.compile(r"[0-9a-f]{7,40}")
_DATE = re.compile(r"(?<![0-9a-z])\d{4}-\d{2}-\d{2}(?:t\d{2}(?:-\d{2}){0,2}(?:-\d+)?z?)?(?![0-9a-z])")
# one part that is a date, a time or a counted run: 20250103, 20250103t020000z, 0042, t0200, run42
_PART = re.compile(r"\d{4,}|0\d+|\d+(?:[tz]\d*)+|t\d{2,6}z?"
                   r"|(?:run|r|build|job|nightly|ci|attempt|try|id)\d+")


def _volatile(part: str) -> bool:
    """Whether a name part changes from run to run: a hexadecimal commit (7-40 digits, at least
    one of them 0-9), a compact date or time, a number of four or more digits or with a leading
    zero, a counter glued to its number. A short bare number (``tp-8``, ``seq-512``) may be a
    configuration and stays."""
    if _PART.fullmatch(part):
        return True
    return bool(_HEX.fullmatch(part)) and any(c.isdigit() for c in part)


def stable_name(text: str) -> str:
    """``model-3f2a9c1`` -> ``model``; ``llama-run-0042``, ``llama-2025-01-03t02-00-00z`` and
    ``llama-ip-10-0-1-23`` -> ``llama`` (a counter's or host's word goes with its numbers);
    ``cc-optim`` and ``seq-512`` unchanged."""
    parts = [p for p in _DATE.sub("-", text).split("-") if p]
    kept: list[str] = []
    counting = False
    for index, part in enumerate(parts):
        following = parts[index + 1] if index + 1 < len(parts) else ""
        if part in _COUNTER_WORDS and following.isdigit():
            counting = True  # the word and the numbers after it
        elif not (counting and part.isdigit()):
            counting = False
            if not _volatile(part):
                kept.append(part)
    return "-".join(kept)


def run_tags(profile: Profile, given: Mapping[str, str]) -> dict[str, str]:
    """The run's tags: its batch size, its configuration (``variant``), its rank (``ingest.ranks``: a
    manifest's or the file name's), then ``given``. A variant
    read from a file name counts only when nothing is ``given``, and only its stable parts."""
    tags: dict[str, str] = {}
    if profile.batch_size is not None:
        tags["batch_size"] = str(profile.batch_size)
    variant = [str(t) for t in profile.params.get("tags") or ()]
    if profile.params.get("tags_source") == FROM_NAME:
        variant = [] if given else [s for s in (stable_name(t) for t in variant) if s]
    if variant:
        tags["variant"] = "+".join(variant)
    from ..ingest.ranks import stated_rank

    if (rank := stated_rank(profile)) is not None:  # each rank of a distributed step is a series of its own
        tags["rank"] = str(rank)
    tags.update(given)
    return tags


def commit_from_name(profile: Profile) -> str | None:
    """The hexadecimal part of a file-name label that looks like a commit (``--commit-from-name``)."""
    if profile.params.get("tags_source") != FROM_NAME:
        return None
    parts = [p for t in profile.params.get("tags") or () for p in str(t).split("-")]
    found = [p for p in parts if _HEX.fullmatch(p) and any(c.isdigit() for c in p)
             and not p.isdigit()]
    return found[-1] if found else None


def series_key(tags: Mapping[str, str]) -> str:
    """A series' identity as stored (the ``series`` column): its tags as canonical JSON (sorted
    keys, no spaces)."""
    return json.dumps(dict(sorted(tags.items())), separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True, slots=True)
class SeriesKey:
    """A series' identity as a value: its tags as sorted (key, value) pairs, hashable, so engines
    group by it; ``dict(key)`` gives the tags, ``key["model"]`` one. Series are listed in the order
    of ``text``."""

    tags: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(cls, tags: Mapping[str, str]) -> SeriesKey:
        return cls(tuple(sorted((str(k), str(v)) for k, v in tags.items())))

    @classmethod
    def parse(cls, text: str) -> SeriesKey:
        """The key a stored ``series`` column holds (``series_key``'s JSON)."""
        return cls.of(json.loads(text)) if text else cls()

    @property
    def text(self) -> str:
        """As stored: ``series_key``'s canonical JSON."""
        return series_key(dict(self.tags))

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return iter(self.tags)

    def __len__(self) -> int:
        return len(self.tags)

    # Read like the tag mapping it was (``change.series["model"]``) by the Python API's users.
    def __getitem__(self, key: str) -> str:
        for name, value in self.tags:
            if name == key:
                return value
        raise KeyError(key)

    def get(self, key: str, default: str | None = None) -> str | None:
        return dict(self.tags).get(key, default)

    def items(self) -> tuple[tuple[str, str], ...]:
        return self.tags

    def shown(self) -> str:
        """``k=v k=v`` (sorted), or ``(no tags)``."""
        return " ".join(f"{k}={v}" for k, v in self.tags) or "(no tags)"


def file_of(run: str, content_hash: str) -> bool:
    """Whether ``run`` is a profile of the file whose sha256 is ``content_hash``: a run id is
    the hash's first 12 digits, then ``.N`` for the N-th profile of a multi-profile file."""
    return run.partition(".")[0] == content_hash[:12]


def series_of(tags: Mapping[str, str], by: Sequence[str] | None) -> dict[str, str]:
    """The tags that make the series: all of them, or only the keys ``by`` names."""
    return dict(tags) if not by else {k: tags[k] for k in by if k in tags}


def parse_keys(text: str) -> tuple[str, ...]:
    """``model,batch_size`` -> ``("model", "batch_size")``: tag names as the runs carry them."""
    return tuple(dict.fromkeys(k.strip() for k in text.split(",") if k.strip()))


def unknown_keys(by: Sequence[str], tags: Iterable[Mapping[str, str]]) -> list[str]:
    """Keys of ``by`` that no run carries."""
    seen = {k for t in tags for k in t}
    return [k for k in by if k not in seen]
