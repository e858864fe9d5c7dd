"""Hugging Face Trainer metrics: ``train_results.json`` / ``all_results.json`` and the printed
``***** train metrics *****`` block.

The printed block is ``Trainer.metrics_format``'s output: ``*_runtime`` as ``H:MM:SS.cc``,
``total_flos`` as ``int(flos) >> 30`` followed by ``GF`` (so one "GF" is 2**30 FLOP, not 1e9),
``*_mem_*`` as ``bytes >> 20`` followed by ``MB``; other floats rounded to 4 decimals.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ... import units as u
from ...errors import ParseError
from ..naming import params_from_name
from ...model import Metric, Profile, Skipped, Source
from ..values import raw_metric
from ..decode import head_is_json_object, loads
from ..parser import Parser

TEXT_NAME, JSON_NAME = "trainer-text", "trainer-json"
HEADER = re.compile(r"^\s*\*{5}\s*(\w+) metrics\s*\*{5}\s*$")
_PAIR = re.compile(r"^\s*([A-Za-z_][\w/.-]*)\s*=\s*(\S.*?)\s*$")
_DURATION = re.compile(r"^(?:(\d+) days?, )?(\d+):(\d\d):(\d\d(?:\.\d+)?)$")
_SHIFTED = re.compile(r"^(\d+)(GF|MB)$")
_SHIFT = {"GF": (30, u.FLOP), "MB": (20, u.BYTE)}
TRAINER_KEYS = ("train_runtime", "train_loss", "train_samples_per_second", "eval_loss",
                "eval_runtime", "total_flos")


def trainer_value(text: str) -> tuple[Any, str | None]:
    """(raw value, canonical unit or None for 'as the catalog says') of one printed value."""
    duration = _DURATION.match(text)
    if duration:
        days, hours, minutes, seconds = duration.groups()
        total = (int(days or 0) * 24 + int(hours)) * 3600 + int(minutes) * 60
        return round(total + float(seconds), 6), u.SECOND
    shifted = _SHIFTED.match(text)
    if shifted:
        bits, unit = _SHIFT[shifted.group(2)]
        return int(shifted.group(1)) << bits, unit
    for kind in (int, float):
        try:
            return kind(text), None
        except ValueError:
            pass
    return text, None


def parse_block(lines: list[str], path: str, first_line: int, profile: Profile) -> None:
    """Read ``key = value`` lines of printed Trainer metrics into ``profile.training``."""
    for offset, line in enumerate(lines):
        where = f"line {first_line + offset}"
        if not line.strip() or HEADER.match(line):
            continue
        match = _PAIR.match(line)
        if match is None:
            profile.skipped.append(Skipped(where, line.strip()[:80], "not 'key = value'"))
            continue
        key, text = match.groups()
        value, unit = trainer_value(text)
        metric = raw_metric(path, where, key, value, group="training")
        if unit is not None and metric.unit != unit:
            metric = Metric(metric.name, value, unit, text, "training")
        profile.training[metric.name] = Metric(metric.name, metric.value, metric.unit, text, "training")


def parse_text(text: str, path: str) -> list[Profile]:
    """A log or text file holding printed Trainer blocks (code fences around them are ignored)."""
    profile = _new_profile(path, TEXT_NAME)
    lines = ["" if line.strip().startswith("```") else line for line in text.splitlines()]
    if not any(HEADER.match(line) for line in lines):
        raise ParseError(path, "whole file", "a '***** train metrics *****' block", "none")
    parse_block(lines, path, 1, profile)
    return [profile]


def parse_json(text: str, path: str) -> list[Profile]:
    data = loads(text, path)
    if not isinstance(data, dict) or not data:
        raise ParseError(path, "top level", "a JSON object of Trainer metrics", type(data).__name__)
    profile = _new_profile(path, JSON_NAME)
    for key, value in data.items():
        if isinstance(value, (dict, list)) or value is None:
            profile.skipped.append(Skipped(f"key '{key}'", repr(value)[:60], "not a scalar metric"))
            continue
        metric = raw_metric(path, "top level", key, value, group="training")
        profile.training[metric.name] = metric
    return [profile]


def _new_profile(path: str, fmt: str) -> Profile:
    stem = Path(path).stem
    for suffix in (".all_results", ".train_results", "all_results", "train_results"):
        stem = stem.removesuffix(suffix)
    label, params = params_from_name(stem or "trainer", "file name")
    return Profile(Source(path, fmt), label, params)


def sniff_text(head: str) -> bool:
    return any(HEADER.match(line) for line in head.splitlines()[:40]) and "| " not in head


def sniff_json(head: str) -> bool:
    return head_is_json_object(head) and any(f'"{key}"' in head for key in TRAINER_KEYS) \
        and '"total_time"' not in head


PARSERS = [
    Parser(TEXT_NAME, "Hugging Face Trainer '***** train metrics *****' block", (".txt", ".log"),
           sniff_text, parse_text),
    Parser(JSON_NAME, "Hugging Face Trainer train_results.json / all_results.json", (".json",),
           sniff_json, parse_json),
]
