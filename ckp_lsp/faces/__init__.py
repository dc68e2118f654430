"""What the faces (CLI, language server, MCP server) share: reading the world the core is given."""
