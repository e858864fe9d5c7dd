"""The command group and the CLI's one error boundary.

Every command is a ``BoundaryCommand``: the library raises typed errors (``errors.py``) and this
class turns them into a one-line message and the exit code each carries (README "Exit codes": 1
input, 2 usage, 3 a gate tripped; 130 on Ctrl-C), inside the command's context so usage errors
show its usage line.
No other place in the CLI catches errors or exits.
"""

from __future__ import annotations

from typing import Any

import click

from .. import __version__
from ..errors import EXIT_INPUT, GateTripped, NeuroncmpError, UsageError
from ..escape import quote, text


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


@click.group(cls=App, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="neuroncmp")
def cli() -> None:
    """Compare AWS Neuron profiles: is this run better than that one, and why?"""
