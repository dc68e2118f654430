"""Fixtures for every test: the user's own ckp configuration and trust decisions never leak in."""

from __future__ import annotations

from pathlib import Path

import pytest

from ckp_lsp.core.config import LLM_ENVIRONMENT


@pytest.fixture(autouse=True)
def isolated_user_config(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty user configuration folder (``$XDG_CONFIG_HOME``), also for the servers tests start."""
    home = tmp_path_factory.mktemp("xdg-config")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    for name in LLM_ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
    return home
