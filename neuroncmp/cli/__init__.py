"""The command line: a thin skin over the library (load -> compute -> render -> echo); its modules:
docs/code.md. Heavy modules (rich, pint, pandas) are imported inside the commands that need them.
"""

from __future__ import annotations

from .app import cli


def main() -> None:
    # A short-lived process that makes many small objects and no reference cycles worth
    # collecting: the cyclic GC would only rescan them. Only this entry point does it: the
    # library never touches the collector.
    import gc
    import signal

    gc.disable()
    # SIGTERM ends the process like Ctrl-C does, through Python, so a file being written
    # removes its temporary file (atomic.py) instead of leaving it behind. Exit 143 = 128 + 15.
    signal.signal(signal.SIGTERM, _terminate)
    cli(prog_name="neuroncmp")


def _terminate(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


__all__ = ["cli", "main"]
