"""The interface for coding agents: an MCP server whose tools are the read-only commands
(docs/commands/mcp.md). Nothing here restates a command's options or output: both come from the
CLI, so the tools say what the CLI says.
"""
