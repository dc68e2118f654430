"""A bank read from disk as the faces read it: its dates from git or the disk, the day from the
clock, and the collector kept out of the way while millions of objects are made."""

from __future__ import annotations

from pathlib import Path

from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.bank.cache import FileCache
from ckp_lsp.core.project.config import Config, config_for_bank

from .clock import today
from .collector import paused_collection
from .updated import DISK


def read_bank(root: Path, config: Config | None = None, cache: FileCache | None = None) -> Bank:
    """The bank at ``root`` (its own ``.ckp.toml`` unless ``config`` is given), through ``cache``."""
    with paused_collection():
        return Bank.load(root, config if config is not None else config_for_bank(root), cache, DISK, today())
