"""MCP tools: any Model Context Protocol server's tools as nanobot tools (named ``SERVER.TOOL``).

``client`` (the official SDK on a background loop: lazy start, timeouts, restart once, stderr to a
log), ``schema_grammar`` (GBNF from the server's JSON Schema), ``tool`` (the ``Tool`` adapter:
jsonschema validation, trust), ``results`` (text kept, images/resources summarised), ``feature``
(``McpFeature``). Named ``mcptools`` so it never shadows the SDK's ``mcp`` package.
"""
