"""The interface for coding agents: an MCP server whose tools are the read-only commands.

``schemas`` turns a command's click parameters into a tool's JSON Schema and a tool call back into
that command's arguments; ``sandbox`` keeps every path under the folders the server was started
with; ``server`` runs each call as the command itself (``--format json`` for the document, the
terminal text for the summary) and answers over stdio or streamable HTTP. Nothing here restates a
command's options or output: both come from the CLI, so the tools say what the CLI says.
"""
