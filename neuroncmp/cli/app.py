"""The command group and the CLI's one error boundary: every command is a ``BoundaryCommand``, which
turns the library's typed errors (``errors.py``) into a one-line message and the exit code each
carries (docs/exit-codes.md), inside the command's context so usage errors show its usage line.
No other place in the CLI catches errors or exits.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, MutableMapping
from importlib import import_module
from typing import Any

import click

from .. import __version__
from ..errors import EXIT_INPUT, GateTripped, NeuroncmpError, UsageError
from ..escape import quote, text
from .commands import COMMANDS


class InputFailure(click.ClickException):
    """An input could not be read: ``Error: <file>: <place>: expected ...``, exit 1. Always one
    line: whatever the message quotes from the input is escaped (``escape.text``)."""

    exit_code = EXIT_INPUT

    def __init__(self, message: str) -> None:
        super().__init__(text(message))


class BoundaryCommand(click.Command):
    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except GateTripped as exc:
            raise click.exceptions.Exit(exc.exit_code) from None
        except UsageError as exc:
            raise click.UsageError(text(str(exc)), ctx) from None
        except NeuroncmpError as exc:
            raise InputFailure(str(exc)) from None
        except OSError as exc:  # a file vanished or could not be read between checks
            where = f"{quote(exc.filename)}: " if exc.filename else ""
            raise InputFailure(f"{where}{exc.strerror or exc}") from None
        except KeyboardInterrupt:  # Ctrl-C: the shell's convention, 128 + SIGINT (click would exit 1)
            click.echo("interrupted", err=True)
            raise SystemExit(130) from None


class App(click.Group):
    command_class = BoundaryCommand


class LazyCommands(MutableMapping[str, click.Command]):
    """A group's commands by name: a listed command's module is imported when the command is first
    asked for (to run it or show its help), so the group starts without importing any of them."""

    def __init__(self, listed: Mapping[str, str]) -> None:
        self.listed = listed  # name -> one-line help (commands.py); the module is cli/<name>.py
        self.loaded: dict[str, click.Command] = {}

    def __getitem__(self, name: str) -> click.Command:
        if name not in self.loaded and name in self.listed:
            command = getattr(import_module(f"{__package__}.{name}"), name)
            if not isinstance(command, click.Command):
                raise TypeError(f"{__package__}.{name}.{name} is not a click command")
            self.loaded[name] = command
        return self.loaded[name]

    def __contains__(self, name: object) -> bool:  # without importing (Mapping's would)
        return name in self.loaded or name in self.listed

    def __setitem__(self, name: str, command: click.Command) -> None:
        self.loaded[name] = command

    def __delitem__(self, name: str) -> None:
        if name not in self:
            raise KeyError(name)
        self.listed = {key: line for key, line in self.listed.items() if key != name}
        self.loaded.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        return iter({**dict.fromkeys(self.listed), **dict.fromkeys(self.loaded)})

    def __len__(self) -> int:
        return len(self.listed.keys() | self.loaded.keys())

    def summaries(self) -> dict[str, click.Command]:
        """Each command, or for one not loaded yet a stand-in holding only its one-line help."""
        return {name: self.loaded[name] if name in self.loaded else click.Command(name, help=self.listed[name])
                for name in self}


class Main(App):
    """The top group: its commands are imported on first use (``commands.py`` lists them)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.commands: LazyCommands = LazyCommands(COMMANDS)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # click's own listing, over stand-ins that carry only the one-line help: --help imports no
        # command module
        click.Group(commands=self.commands.summaries()).format_commands(ctx, formatter)


@click.group(cls=Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="neuroncmp")
def cli() -> None:
    """Compare AWS Neuron profiles: is this run better than that one, and why?"""
