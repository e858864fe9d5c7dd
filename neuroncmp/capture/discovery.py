"""Find the NEFF/NTFF pairs the runtime wrote under its inspect output folder, and pick one.

The naming, the pairing fallbacks and the training-step rule (ours; AWS documents none):
docs/commands/capture.md ("The training-step graph"). A session-mode trace holds every graph of a
core, so it is never paired (not even with the folder's only NEFF): ``find`` lists it apart.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import UsageError

RULES = ("largest", "largest-ntff")
_RUNTIME_NTFF = re.compile(r"^(?P<hash>.+?)_instid_(?P<instid>\d+)_vnc_(?P<vnc>\d+)\.ntff$")
_TOOL_SUFFIX = re.compile(r"(_rank_\d+)?(_exec_\d+)?$")
_SESSION_NTFF = re.compile(r"_session_\d+\.ntff$")


@dataclass(frozen=True, slots=True)
class Pair:
    """A device profile: the trace (NTFF) and the compiled graph (NEFF) it executed."""

    neff: Path
    ntff: Path
    neff_bytes: int
    ntff_bytes: int
    vnc: int | None = None
    instid: int | None = None

    def order(self) -> tuple[int, int, str]:
        return (self.vnc if self.vnc is not None else -1,
                self.instid if self.instid is not None else -1, str(self.ntff))


@dataclass(frozen=True, slots=True)
class Found:
    """Every pair under a folder, and the NTFF files no NEFF could be found for."""

    pairs: tuple[Pair, ...]
    unpaired: tuple[Path, ...]
    sessions: tuple[Path, ...] = ()   # session-mode traces: all device activity, not one graph


def find(root: Path) -> Found:
    """All NEFF/NTFF pairs under ``root`` (any depth), in a stable order."""
    pairs, unpaired, sessions = [], [], []
    for ntff in sorted(root.rglob("*.ntff")) if root.is_dir() else []:
        if _SESSION_NTFF.search(ntff.name):  # a session-mode trace (profile_nc_0_session_0.ntff)
            sessions.append(ntff)
        elif (pair := pair_for(ntff)) is None:
            unpaired.append(ntff)
        else:
            pairs.append(pair)
    return Found(tuple(pairs), tuple(unpaired), tuple(sessions))


def session_refusal(ntff: Path) -> str:
    """Why a session-mode trace is not captured (one line)."""
    return (f"{ntff.name} is a session-mode trace (NEURON_RT_INSPECT_DEVICE_PROFILE=session): all "
            "device activity of a core in one NTFF, not one graph, so it cannot stand for the training "
            "step; capture with NEURON_RT_INSPECT_DEVICE_PROFILE=1 (model mode, capture's default: "
            "do not override it with --env), or profile one graph with --neff")


def pair_for(ntff: Path) -> Pair | None:
    """The NEFF this NTFF was captured from, by the runtime's naming, the stem, or the folder."""
    match = _RUNTIME_NTFF.match(ntff.name)
    candidates = []
    if match:
        candidates += [ntff.with_name(f"neff_{match['hash']}.neff"),
                       ntff.with_name(f"neff_{match['hash']}_vnc_{match['vnc']}.neff")]
    stem = _TOOL_SUFFIX.sub("", ntff.stem)
    candidates += [ntff.with_name(f"{stem}.neff"), ntff.with_name(f"{ntff.stem}.neff")]
    neff = next((c for c in candidates if c.is_file()), None)
    if neff is None:
        neffs = sorted(ntff.parent.glob("*.neff"))
        neff = neffs[0] if len(neffs) == 1 else None
    if neff is None:
        return None
    return Pair(neff, ntff, neff.stat().st_size, ntff.stat().st_size,
                int(match["vnc"]) if match else None, int(match["instid"]) if match else None)


def check_rule(rule: str) -> str:
    if not rule.strip():
        raise UsageError(f"--graph: expected {' or '.join(RULES)} or a file-name glob, found ''")
    return rule


def pick(pairs: tuple[Pair, ...], rule: str = "largest") -> Pair | None:
    """The pair ``rule`` selects (docs/commands/capture.md), or None when nothing matches."""
    if rule == "largest-ntff":
        size = "ntff_bytes"
        chosen = list(pairs)
    else:
        size = "neff_bytes"
        chosen = list(pairs) if rule == "largest" else [
            p for p in pairs if fnmatch.fnmatch(p.neff.name, rule) or fnmatch.fnmatch(p.ntff.name, rule)]
    if not chosen:
        return None
    biggest = max(getattr(p, size) for p in chosen)
    return min((p for p in chosen if getattr(p, size) == biggest), key=Pair.order)
