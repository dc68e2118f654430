"""The bank service's reading for routing, imported by the one-shot commands that route (the
prompt hook, ``ckp route``): the service itself (``faces.banks``) is imported only when a bank is
read in full, never by a process that routes from the kept snapshot."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ckp_lsp.core.bank.bank import Bank
    from ckp_lsp.core.bank.cache import FileCache
    from ckp_lsp.core.project.config import Config


def read_headers(root: Path, config: Config, cache: FileCache | None = None) -> Bank:
    """``faces.banks.read_headers``: the bank at ``root`` as routing reads it."""
    from ckp_lsp.faces.banks import read_headers as read

    return read(root, config, cache)
