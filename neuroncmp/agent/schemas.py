"""A tool's input schema from a click command, and a tool call's arguments back into its argv: the
schema is generated from the command's own parameters, so a tool takes the CLI's arguments (which
are offered, and how they are named: docs/commands/mcp.md, "Tools").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import click

from ..errors import UsageError

SCHEMA_VERSION = "1"  # of the tools' argument schemas and result shape; bumped on any change to them
NOT_OFFERED = frozenset({"fmt", "no_color", "width", "engine", "spark_master", "spark_conf", "help"})
WRITES = frozenset({"output", "charts_dir"})
PATH_NAMES = frozenset({"store_path"})  # --store is declared as text (on Spark it may name a URL)
FULL = "full"  # the tool's own argument: return the whole JSON document too


def offered(command: click.Command, allow_write: bool) -> dict[str, click.Parameter]:
    """The command's parameters a tool takes, by their tool argument names."""
    found: dict[str, click.Parameter] = {}
    for param in command.params:
        if param.name in NOT_OFFERED or (param.name in WRITES and not allow_write) or param.expose_value is False:
            continue
        key = param.name if isinstance(param, click.Argument) else _long_flag(param)
        if key is None or key == FULL or key in found:
            raise ValueError(f"{command.name}: parameter {param.name} has no unique tool name")
        found[key] = param
    return found


def _long_flag(param: click.Parameter) -> str | None:
    flags = [opt for opt in param.opts if opt.startswith("--")]
    return flags[0][2:] if flags else None


def input_schema(command: click.Command, allow_write: bool) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    required = []
    for key, param in offered(command, allow_write).items():
        properties[key] = _property(param)
        if param.required:
            required.append(key)
    properties[FULL] = {"type": "boolean", "default": False,
                        "description": "Also return the whole JSON document (--format json), within the "
                                       "server's size cap; by default only the summary text."}
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


def _property(param: click.Parameter) -> dict[str, Any]:
    value = _value_schema(param)
    many = param.multiple or (isinstance(param, click.Argument) and param.nargs == -1)
    schema: dict[str, Any] = {"type": "array", "items": value} if many else value
    if many and param.required:
        schema["minItems"] = 1
    help_text = getattr(param, "help", None)
    if help_text:
        schema["description"] = " ".join(help_text.split())
    default = param.default
    if default is not None and isinstance(default, (str, int, float, bool)) and not isinstance(param, click.Argument):
        schema["default"] = default
    return schema


def _value_schema(param: click.Parameter) -> dict[str, Any]:
    kind = param.type
    if isinstance(param, click.Option) and param.is_flag:
        return {"type": "boolean"}
    if isinstance(kind, click.Choice):
        return {"type": "string", "enum": [str(choice) for choice in kind.choices]}
    if isinstance(kind, click.IntRange):
        bounds = {"minimum": kind.min, "maximum": kind.max}
        return {"type": "integer", **{k: v for k, v in bounds.items() if v is not None}}
    if kind.name in ("integer",):
        return {"type": "integer"}
    if kind.name in ("float", "number"):
        return {"type": "number"}
    return {"type": "string"}


def argv(command: click.Command, arguments: Mapping[str, Any], allow_write: bool) -> tuple[list[str], list[str]]:
    """The command line for a call (options, then ``--`` and the positional values) and the paths it names.
    The arguments are checked against the tool's schema first, so a wrong type is named, not guessed at."""
    _check(command, arguments, allow_write)
    params = offered(command, allow_write)
    options: list[str] = []
    positional: list[str] = []
    paths: list[str] = []
    for key, value in arguments.items():
        param = params.get(key)
        if param is None or value is None or value is False:
            continue
        values = [str(item) for item in (value if isinstance(value, list) else [value])]
        if isinstance(param.type, click.Path) or param.name in PATH_NAMES:
            paths.extend(values)
        if isinstance(param, click.Argument):
            positional.extend(values)
        elif isinstance(param, click.Option) and param.is_flag:
            options.append(param.opts[0])
        else:
            options.extend(item for value_text in values for item in (param.opts[0], value_text))
    return [*options, "--", *positional], paths


def _check(command: click.Command, arguments: Mapping[str, Any], allow_write: bool) -> None:
    from jsonschema import Draft202012Validator

    validator = Draft202012Validator(input_schema(command, allow_write))
    for error in sorted(validator.iter_errors(dict(arguments)), key=lambda e: list(e.absolute_path)):
        where = ".".join(str(part) for part in error.absolute_path)
        raise UsageError(f"{command.name}: argument {where + ': ' if where else ''}{error.message}")
