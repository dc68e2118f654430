"""The pure core: parse, index a bank, validate, route, compile. Knows nothing of LSP."""
