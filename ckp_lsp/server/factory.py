"""The language server, built: a session, and every handler registered on it."""

from __future__ import annotations

from .server import CkpServer, table
from .session import Session


def create_server(use_cache: bool = True) -> CkpServer:
    """A new language server; ``use_cache``: read the banks through their cache (``ckp-lsp
    --no-cache``: not). The pygls workarounds are applied by whoever serves it
    (``pygls_compat.install``, as ``main`` does)."""
    from . import handlers as _modules  # noqa: F401  (importing them fills the table)

    ls = CkpServer(Session(use_cache))
    table.register(ls)
    return ls
