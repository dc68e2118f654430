"""The language-server face: `ckp-lsp`."""
