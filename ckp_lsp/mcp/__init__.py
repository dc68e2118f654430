"""The MCP face: ``ckp mcp`` serves the banks to an agent host as tools (needs the ``mcp`` extra)."""
