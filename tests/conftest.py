"""Fixtures for every test: the user's own ckp configuration and trust decisions never leak in,
nor what one test's fake LLM server taught the providers, nor one test's cache of banks."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import settings

from ckp_lsp.core.project.config import LLM_ENVIRONMENT
from ckp_lsp.faces.llm import providers

# Hypothesis fails an example that takes over 200 ms: a timed assertion, which a loaded machine
# (CI, the suite's other workers) fails at random. The tests assert behaviour, never time.
settings.register_profile("ckp", deadline=None)
settings.load_profile("ckp")


@pytest.fixture(autouse=True)
def isolated_user_config(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty user configuration folder (``$XDG_CONFIG_HOME``), also for the servers tests start."""
    home = tmp_path_factory.mktemp("xdg-config")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    # Caches of banks (``core.bank.cache``) go to a folder of the test's own, never into the checkout's
    # samples; tests of the cache's place unset this.
    monkeypatch.setenv("CKP_CACHE_DIR", str(tmp_path_factory.mktemp("ckp-cache")))
    for name in LLM_ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
    # A loopback port is reused by later tests: what an earlier fake server rejected is forgotten.
    providers._TEXT_ONLY.clear()
    return home


@pytest.fixture(scope="session", autouse=True)
def no_bank_above_the_temporary_folders(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Stop at once when a folder above the tests' temporary folders is a bank (an ``_index.md``
    with CKP markers left at ``/`` or ``/tmp``): every command run on a test bank would then take
    that bank, and rewrite files all over the machine."""
    from ckp_lsp.core.project.discovery import is_bank_root

    # Every folder above is looked at, past the limits the commands keep to (the project's root,
    # never ``/`` or the home folder): a test must not run at all on a machine in that state.
    base = tmp_path_factory.getbasetemp().resolve()
    for folder in base.parents:
        if is_bank_root(folder):
            pytest.exit(
                f"{folder} is a memory bank holding the test folders: remove its _index.md", returncode=3
            )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Groups for ``pytest -n N --dist loadgroup`` (``make test``): a module's tests run in one
    worker, so its module fixtures are built once; each editor's tests share one worker, since
    they build and drive one copy of the editor's client (the ``.vsix``, ``test-artifacts/``)."""
    tests = Path(__file__).parent
    for item in items:
        path = item.path.relative_to(tests)
        group = "/".join(path.parts[:2]) if path.parts[0] == "editors" else path.as_posix()
        item.add_marker(pytest.mark.xdist_group(group))
