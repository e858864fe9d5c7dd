"""``neuroncmp mcp``: serve the read-only commands to coding agents over MCP."""

from __future__ import annotations

import click

from ..errors import optional
from .app import BoundaryCommand


@click.command(cls=BoundaryCommand)
@click.argument("folders", nargs=-1, type=click.Path(exists=True, file_okay=False))
@click.option("--http", "port", type=click.IntRange(1, 65535), metavar="PORT",
              help="Serve streamable HTTP on 127.0.0.1:PORT (default: stdio).")
@click.option("--allow-write", is_flag=True,
              help="Offer the options that write files (-o, --charts), under the served folders only.")
@click.pass_context
def mcp(ctx: click.Context, folders: tuple[str, ...], port: int | None, allow_write: bool) -> None:
    """Serve show, diff, sweep, ops, ranks, history and regressions as MCP tools for coding agents,
    reading only under FOLDERS (default: the current folder)."""
    from ..agent.server import Service

    # the extra's presence, before anything is served
    optional("mcp.server.lowlevel", "neuroncmp mcp needs the mcp extra: pip install 'neuroncmp[mcp]'")
    from ..agent import protocol

    group = ctx.find_root().command
    if not isinstance(group, click.Group):
        raise TypeError("neuroncmp mcp runs under the neuroncmp command group")
    service = Service(group, folders or (".",), allow_write=allow_write)
    if port is None:
        protocol.serve_stdio(service)
    else:
        protocol.serve_http(service, port)
