"""Hugging Face Trainer metrics: ``train_results.json`` / ``all_results.json`` and the printed
``***** train metrics *****`` block.

A training log may hold no block but the dict the Trainer logs when training ends,
``{'train_runtime': 2017.3458, 'train_samples_per_second': 1.837, ..., 'epoch': 4.97}`` (plain
numbers, seconds): read when the log has no block (the last such line; the per-step
``{'loss': ...}`` lines are not end-of-run metrics).

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
from ...model import Metric, Profile, Skipped, Source
from ..decode import head_is_json_object, loads
from ..naming import params_from_name
from ..registry import Parser
from ..values import add_metric, note_repeated, number, raw_metric

TEXT_NAME, JSON_NAME = "trainer-text", "trainer-json"
HEADER = re.compile(r"^\s*\*{5}\s*(\w+) metrics\s*\*{5}\s*$")
_KEY = re.compile(r"[A-Za-z_][\w/.-]*")
_DURATION = re.compile(r"^(?:(\d{1,9}) days?, )?(\d{1,9}):(\d\d):(\d\d(?:\.\d+)?)$")
_SHIFTED = re.compile(r"^(\d{1,30})(GF|MB)$")
_SHIFT = {"GF": (30, u.FLOP), "MB": (20, u.BYTE)}
# The Trainer's logged end-of-training dict: one Python dict literal on its own line.
FINAL_DICT = r"(?m)^[ \t]*\{'train_runtime': "
_DICT_PAIR = r"'(\w+)':\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*(?=[,}])"
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
    parsed = number(text)
    return (text if parsed is None else parsed), None


def split_pair(line: str) -> tuple[str, str] | None:
    """``"  train_loss = 0.93 "`` -> ("train_loss", "0.93"); None for anything else (string
    methods, so a long line with long runs of spaces costs linear time)."""
    text = line.strip()
    match = _KEY.match(text)
    if match is None:
        return None
    rest = text[match.end():].lstrip()
    value = rest[1:].strip() if rest.startswith("=") else ""
    return (match.group(), value) if value else None


def parse_block(lines: list[str], path: str, first_line: int, profile: Profile) -> None:
    """Read ``key = value`` lines of printed Trainer metrics into ``profile.training``."""
    for offset, line in enumerate(lines):
        where = f"line {first_line + offset}"
        if not line.strip() or HEADER.match(line):
            continue
        pair = split_pair(line)
        if pair is None:
            profile.skipped.append(Skipped(where, line.strip()[:80], "not 'key = value'"))
            continue
        key, text = pair
        value, unit = trainer_value(text)
        metric = raw_metric(path, where, key, value, group="training")
        if unit is not None and metric.unit != unit:
            metric = Metric(metric.name, value, unit, text, "training")
        add_metric(profile, Metric(metric.name, metric.value, metric.unit, text, "training"), where, profile.training)


def parse_text(text: str, path: str) -> list[Profile]:
    """A log or text file holding printed Trainer blocks (code fences around them are ignored)."""
    profile = _new_profile(path, TEXT_NAME)
    lines = ["" if line.strip().startswith("```") else line for line in text.splitlines()]
    if any(HEADER.match(line) for line in lines):
        parse_block(lines, path, 1, profile)
        return [profile]
    finals = [number for number, line in enumerate(lines) if re.match(FINAL_DICT, line)]
    if not finals:
        raise ParseError(path, "whole file", "a '***** train metrics *****' block or the Trainer's "
                         "final {'train_runtime': ...} line", "none")
    last = finals[-1]
    _final_dict(lines[last], path, f"line {last + 1}", profile)
    others = sum(1 for number, line in enumerate(lines) if line.strip() and number != last)
    if others:
        profile.skipped.append(Skipped("whole file", f"{others:,} other non-blank lines",
                                       f"the log around the Trainer's final metrics (line {last + 1})"))
    return [profile]


def _final_dict(line: str, path: str, where: str, profile: Profile) -> None:
    """The numbers of the Trainer's logged end-of-training dict (strings in it are not metrics)."""
    for key, text in re.findall(_DICT_PAIR, line):
        value = number(text)
        if value is not None:
            add_metric(profile, raw_metric(path, where, key, value, group="training"), where, profile.training)


def parse_json(text: str, path: str) -> list[Profile]:
    data = loads(text, path)
    if not isinstance(data, dict) or not data:
        raise ParseError(path, "top level", "a JSON object of Trainer metrics", type(data).__name__)
    profile = _new_profile(path, JSON_NAME)
    note_repeated(profile, data, "top level")
    for key, value in data.items():
        if isinstance(value, (dict, list)) or value is None:
            profile.skipped.append(Skipped(f"key '{key}'", repr(value)[:60], "not a scalar metric"))
            continue
        add_metric(profile, raw_metric(path, "top level", key, value, group="training"), f"key '{key}'",
                   profile.training)
    if not profile.training:
        raise ParseError(path, "top level", "at least one Trainer metric value",
                         f"none ({len(profile.skipped)} keys skipped: nested, null or unnamed)")
    return [profile]


def _new_profile(path: str, fmt: str) -> Profile:
    stem = Path(path).stem
    for suffix in (".all_results", ".train_results", "all_results", "train_results"):
        stem = stem.removesuffix(suffix)
    label, params = params_from_name(stem or "trainer", "file name")
    return Profile(Source(path, fmt), label, params)


def sniff_text(head: str) -> bool:
    # A block inside a markdown table is the UI export's; a log's progress bars have "| " too,
    # so the logged final dict is recognised whatever else the text holds.
    block = any(HEADER.match(line) for line in head.splitlines()[:40]) and "| " not in head
    return block or re.search(FINAL_DICT, head) is not None


def sniff_json(head: str) -> bool:
    # "total_time" first: every summary-json has it, so one search (it stops where it finds it)
    # tells most JSON profiles apart; a Trainer key absent costs a search of the whole head.
    return head_is_json_object(head) and '"total_time"' not in head \
        and any(f'"{key}"' in head for key in TRAINER_KEYS)


PARSERS = [
    Parser(TEXT_NAME, "Hugging Face Trainer '***** train metrics *****' block", (".txt", ".log"),
           sniff_text, parse_text,
           signature="a '***** train metrics *****' line or the Trainer's final {'train_runtime': ...} line"),
    Parser(JSON_NAME, "Hugging Face Trainer train_results.json / all_results.json", (".json",),
           sniff_json, parse_json,
           signature=f"a JSON object with a Trainer key ({', '.join(TRAINER_KEYS[:3])}, ...)"),
]
