"""Find the NEFF/NTFF pairs the runtime wrote under its inspect output folder, and pick one.

Layout (AWS, Neuron Explorer "Capture profiles" guide and "Get started"):
``OUTPUT_DIR/<instance-id>_pid_<pid>/neff_<hash>.neff`` with ``<hash>_instid_<i>_vnc_<v>.ntff``;
"the .neff and .ntff share a numeric hash in their filename". Device profiles are taken of the
first execution of each NEFF per NeuronCore, so a training job leaves one pair per compiled graph
(and per core it ran on). Pairing falls back, in order, to the same stem (``x.neff`` /
``x.ntff``, ``x_exec_2.ntff``, ``x_rank_0.ntff``: what ``neuron-profile capture`` writes) and to
the only NEFF of the folder; an NTFF with no NEFF is reported, never silently dropped.

Picking the training-step graph (our rule; AWS documents none): ``largest``, the pair whose NEFF
file has the most bytes. A Trainer step on torch-neuronx runs forward, backward and the optimizer
update as one compiled graph, by far the largest program of the job; the other graphs are small
helpers (initialisation, moving tensors, loss reduction). Ties go to the lowest core (vnc), then
instance id, then path. ``--graph largest-ntff`` picks the largest trace instead; any other
value is a glob matched against the NEFF's and the NTFF's file names (the largest match wins).
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


def find(root: Path) -> Found:
    """All NEFF/NTFF pairs under ``root`` (any depth), in a stable order."""
    pairs, unpaired = [], []
    for ntff in sorted(root.rglob("*.ntff")) if root.is_dir() else []:
        pair = pair_for(ntff)
        if pair is None:
            unpaired.append(ntff)
        else:
            pairs.append(pair)
    return Found(tuple(pairs), tuple(unpaired))


def pair_for(ntff: Path) -> Pair | None:
    """The NEFF this NTFF was captured from, by the runtime's naming, the stem, or the folder."""
    match = _RUNTIME_NTFF.match(ntff.name)
    candidates = []
    if match:
        candidates.append(ntff.with_name(f"neff_{match['hash']}.neff"))
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
    """The pair ``rule`` selects (see the module docstring), or None when nothing matches."""
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
