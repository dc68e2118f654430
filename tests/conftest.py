"""Fixtures for every test: the user's own ckp configuration and trust decisions never leak in,
nor what one test's fake LLM server taught the providers."""

from __future__ import annotations

from pathlib import Path

import pytest

from ckp_lsp.core.compile import providers
from ckp_lsp.core.config import LLM_ENVIRONMENT


@pytest.fixture(autouse=True)
def isolated_user_config(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty user configuration folder (``$XDG_CONFIG_HOME``), also for the servers tests start."""
    home = tmp_path_factory.mktemp("xdg-config")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    for name in LLM_ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
    # A loopback port is reused by later tests: what an earlier fake server rejected is forgotten.
    providers._TEXT_ONLY.clear()
    return home
