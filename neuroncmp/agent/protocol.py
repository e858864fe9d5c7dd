"""The Service on the MCP SDK's low-level server (the official ``mcp`` package, the ``mcp`` extra).

The low-level server, not the decorator API, because the tools' schemas are generated from the
CLI's parameters (``schemas``) rather than from Python signatures.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import __version__
from ..errors import NeuroncmpError
from . import schemas
from .server import INSTRUCTIONS, RESOURCES, Service

if TYPE_CHECKING:
    from mcp.server.lowlevel import Server

URI = "neuroncmp://{}"


def build(service: Service) -> Server[Any]:
    import mcp.types as types
    from mcp.server.lowlevel import Server

    tools = [types.Tool(name=tool["name"], description=tool["description"], input_schema=tool["input_schema"],
                        annotations=types.ToolAnnotations(read_only_hint=tool["read_only"], open_world_hint=False),
                        _meta=tool["meta"])
             for tool in service.tools()]

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        summary, result, failed = await service.call(params.name, dict(params.arguments or {}))
        return types.CallToolResult(content=[types.TextContent(type="text", text=summary)],
                                    structured_content=result or None, is_error=failed)

    async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=[
            types.Resource(name=name, uri=URI.format(name), description=text, mime_type="application/json")
            for name, text in RESOURCES.items()])

    async def read_resource(ctx: Any, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        name = str(params.uri).removeprefix(URI.format(""))
        try:
            text = await service.resource(name)
        except NeuroncmpError as exc:
            raise ValueError(str(exc)) from None
        return types.ReadResourceResult(contents=[types.TextResourceContents(
            uri=URI.format(name), mime_type="application/json", text=text)])

    return Server("neuroncmp", version=f"{__version__} (tool schema {schemas.SCHEMA_VERSION})",
                  instructions=INSTRUCTIONS, on_list_tools=list_tools, on_call_tool=call_tool,
                  on_list_resources=list_resources, on_read_resource=read_resource)


def serve_stdio(service: Service) -> None:
    import anyio
    from mcp.server.stdio import stdio_server

    server = build(service)

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)


def serve_http(service: Service, port: int) -> None:
    """Streamable HTTP on localhost only (the SDK's DNS-rebinding protection on)."""
    import uvicorn

    uvicorn.run(build(service).streamable_http_app(host="127.0.0.1"), host="127.0.0.1", port=port,
                log_level="warning")
