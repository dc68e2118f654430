"""Editor features: each a pure function of (bank, document, position) returning LSP values."""
