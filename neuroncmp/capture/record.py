"""The sweep's ``manifest.json``: what ``load`` reads (``profiles``), plus the capture's record
(docs/commands/capture.md, "Where files land"). ``env`` holds only the variables capture sets:
the rest of the environment is never recorded, it may hold secrets. Paths are relative to the folder.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .. import __version__
from ..errors import ParseError, UsageError
from ..ingest.failures import OUT_OF_MEMORY, byte_count
from ..ingest.manifest import (
    MANIFEST_SCHEMA,
    check_manifest,
    manifest_document,
    profile_entry,
)
from ..units import text_or_none
from .plan import INSPECT, INSPECT_OUTPUT, RAW, Plan, Variant
from .runner import now

OOM = OUT_OF_MEMORY
CAPTURED = "captured"


def rel(path: Path, base: Path) -> str:
    """``path`` relative to the run folder when inside it (the folder stays movable)."""
    try:
        return str(path.resolve().relative_to(base.resolve()))
    except ValueError:
        return str(path)


def new(plan: Plan, about: dict[str, Any]) -> dict[str, Any]:
    """A fresh manifest for ``plan``; ``about`` holds tool, packages, instance type."""
    env = dict(plan.variants[0].env) if plan.variants else {}
    if INSPECT_OUTPUT in env:  # the same for every variant but its folder
        env[INSPECT_OUTPUT] = f"{RAW}/{{label}}/{INSPECT}"
    return {"schema": MANIFEST_SCHEMA, "captured_by": f"neuroncmp {__version__} capture",
            "command": list(plan.template), "env": env, "steps": plan.steps, **about,
            "started": now(), "updated": now(), "profiles": [], "failed": [], "upper_bound": None}


def existing(plan: Plan, resume: bool) -> dict[str, Any] | None:
    """The folder's earlier manifest when resuming; UsageError when one is there and not resuming,
    or when it was made by another command."""
    found = manifest_document(plan.out_dir) if plan.out_dir.is_dir() else None
    if found is None:
        return None
    if not resume:
        raise UsageError(f"{plan.out_dir} already holds a capture (manifest.json): pass --resume to "
                         "continue it, or choose another --out")
    resumable(found, plan.out_dir / "manifest.json")
    if found.get("command") != list(plan.template):
        raise UsageError(f"--resume: {plan.out_dir} was captured with another command: "
                         f"{' '.join(map(str, found.get('command') or []))}")
    found.setdefault("profiles", []), found.setdefault("failed", [])
    found["upper_bound"] = upper_bound(found["failed"])  # derived from what failed, never read back
    return found


# What --resume reads of an earlier manifest, field by field: (field, type, what to say).
_PROFILE_FIELDS = (("label", str, "a label (string)"), ("file", str, "a file name (string)"),
                   ("params", dict, "an object with batch_size"))
_FAILED_FIELDS = (("label", str, "a label (string)"), ("batch_size", int, "a whole number >= 1"),
                  ("status", str, "a status (string)"), ("reason", str, "a reason (string)"))
_OPTIONAL = (("oom", dict, "an object"), ("raw", dict, "an object"))


def resumable(manifest: dict[str, Any], file: Path) -> None:
    """Check every field ``--resume`` uses, before anything runs: an edited manifest (``reason:
    null``, ``failed: true``, a list where objects are expected) is a ``ParseError`` naming the
    manifest and the field (``failed[0].reason``), not a KeyError or TypeError mid-sweep."""
    if not isinstance(manifest.get("command"), list):
        raise ParseError(str(file), "command", "the command as a list of strings", _found(manifest.get("command")))
    for key, fields in (("profiles", _PROFILE_FIELDS), ("failed", _FAILED_FIELDS)):
        entries = manifest.get(key, [])
        if not isinstance(entries, list):
            raise ParseError(str(file), key, "a list of objects", _found(entries))
        for index, entry in enumerate(entries):
            _check_entry(entry, f"{key}[{index}]", fields, file)
    check_manifest(manifest, str(file))  # the entries as load() reads them when the sweep ends


def _check_entry(entry: Any, where: str, fields: tuple[tuple[str, type, str], ...], file: Path) -> None:
    if not isinstance(entry, dict):
        raise ParseError(str(file), where, "an object", _found(entry))
    for name, kind, expected in fields:
        _check_field(entry.get(name), kind, f"{where}.{name}", expected, file)
    for name, kind, expected in _OPTIONAL:
        if entry.get(name) is not None:
            _check_field(entry[name], kind, f"{where}.{name}", expected, file)
    names = {name for name, _, _ in fields}
    if "params" in names:
        _check_field(entry["params"].get("batch_size"), int, f"{where}.params.batch_size",
                     "a whole number >= 1", file)
    if "file" in names and (Path(entry["file"]).is_absolute() or ".." in Path(entry["file"]).parts):
        raise ParseError(str(file), f"{where}.file", "a file inside the run folder", _found(entry["file"]))


def _check_field(value: Any, kind: type, where: str, expected: str, file: Path) -> None:
    whole = isinstance(value, int) and not isinstance(value, bool)
    wrong = not whole or value < 1 if kind is int else not isinstance(value, kind)
    if wrong:
        raise ParseError(str(file), where, expected, _found(value))


def _found(value: Any) -> str:
    return "null" if value is None else f"{type(value).__name__} {value!r:.40}"


def done_labels(manifest: dict[str, Any], out_dir: Path) -> set[str]:
    """Variants ``--resume`` skips: captured (file still there) or out of device memory."""
    captured = {e["label"] for e in manifest.get("profiles", []) if (out_dir / e["file"]).is_file()}
    return captured | {f["label"] for f in manifest.get("failed", []) if f.get("status") == OOM}


def captured_entry(variant: Variant, file: str, run: dict[str, Any], metadata: dict[str, Any],
                   memory: str | None, training: str | None, raw: dict[str, Any]) -> dict[str, Any]:
    params = {"tags": [], "batch_size": variant.batch_size, "batch_size_source": "capture --batch"}
    if run.get("started"):  # when this batch size ran: the store dates the run by it (store/times.py)
        metadata = {**metadata, "captured_at": run["started"]}
    return profile_entry(file, variant.label, params, metadata=metadata or None,
                         memory=memory, training=training,
                         command=list(variant.command), **run, raw=raw)


def failed_entry(variant: Variant, status: str, reason: str, run: dict[str, Any],
                 raw: dict[str, Any], oom: dict[str, Any] | None = None) -> dict[str, Any]:
    entry = {"label": variant.label, "batch_size": variant.batch_size, "status": status,
             "reason": reason, "command": list(variant.command), **run, "raw": raw}
    if oom is not None:
        entry["oom"] = oom
    return entry


def put(manifest: dict[str, Any], variant: Variant, profile: dict[str, Any] | None,
        failure: dict[str, Any] | None) -> None:
    """Record the variant's latest outcome (replacing an earlier one) and the upper bound."""
    manifest["profiles"] = [e for e in manifest["profiles"] if e["label"] != variant.label]
    manifest["failed"] = [f for f in manifest["failed"] if f["label"] != variant.label]
    if profile is not None:
        manifest["profiles"].append(profile)
        manifest["profiles"].sort(key=lambda e: e["params"]["batch_size"])
    if failure is not None:
        manifest["failed"].append(failure)
    manifest["upper_bound"] = upper_bound(manifest["failed"])
    manifest["updated"] = now()


def upper_bound(failed: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The smallest batch size that ran out of device memory, and what the runtime asked for."""
    ooms = sorted((f for f in failed if f.get("status") == OOM), key=lambda f: f["batch_size"])
    if not ooms:
        return None
    first, oom = ooms[0], ooms[0].get("oom") or {}
    return {"batch_size": first["batch_size"], "label": first["label"],
            "stage": text_or_none(oom.get("stage")) or "runtime", "code": text_or_none(oom.get("code")),
            "estimate_bytes": byte_count(oom.get("estimate_bytes")), "limit_bytes": byte_count(oom.get("limit_bytes")),
            "requested_bytes": oom.get("requested_bytes"),
            "requested_usage": oom.get("requested_usage"), "where": oom.get("where"),
            "device_bytes_by_type": oom.get("device_bytes_by_type"),
            "bytes_by_type": _amounts(oom.get("bytes_by_type")), "bytes_level": text_or_none(oom.get("bytes_level")),
            "log": (first.get("raw") or {}).get("log")}


def _amounts(value: Any) -> dict[str, int] | None:
    """Bytes by usage type as a manifest holds them, or None: a resumed manifest may have been
    edited, and what is not a mapping of names to whole byte counts is not shown as one."""
    if not isinstance(value, dict):
        return None
    return {k: v for k, v in value.items()
            if isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool)} or None


