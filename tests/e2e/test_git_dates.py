"""Git staleness in the server: a save reads the commit dates again, and git never runs on the
server's event loop (a request is answered while git is still running)."""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path

import pytest
from lsprotocol import types

from ckp_lsp.faces.clock import today
from tests.unit.builders import bare_header, git, write_files

from .conftest import change_doc, doc_id, open_doc, wait_diagnostics, wait_until
from .harness import Session

REDIS = bare_header(CONCEPT="redis", VALIDATED="2025-06")
CART = bare_header(CONCEPT="cart", SIMILAR_HIGH="redis:2025-06", VALIDATED="2025-06")


def held_git(folder: Path, hold: Path, started: Path) -> Path:
    """A folder for the PATH whose ``git`` is the real one, held while ``hold`` exists (and saying
    so by creating ``started``): what a slow git in a large repository looks like to the server."""
    real = shutil.which("git")
    assert real, "git is needed"
    folder.mkdir()
    script = folder / "git"
    script.write_text(
        "#!/bin/sh\n"
        f"if [ -e '{hold}' ]; then\n"
        f"  : > '{started}'\n"
        "  n=0\n"
        f"  while [ -e '{hold}' ] && [ $n -lt 600 ]; do sleep 0.05; n=$((n + 1)); done\n"
        "fi\n"
        f"exec '{real}' \"$@\"\n"
    )
    script.chmod(0o755)
    return folder


def stale_on(diags: list[types.Diagnostic], day: str) -> bool:
    return any(d.code == "CKP050" and f"'redis' was last committed on {day}" in d.message for d in diags)


async def test_a_save_reads_the_commit_dates_on_a_worker_thread_and_re_checks(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    bank = write_files(ws / "memory-bank", {"redis.md": REDIS, "cart.md": CART})
    git(ws, "init", "-q")
    git(ws, "add", ".")
    git(ws, "commit", "-q", "-m", "bank", date="2025-06-10T12:00:00")
    hold, started = tmp_path / "hold", tmp_path / "started"
    path = f"{held_git(tmp_path / 'bin', hold, started)}{os.pathsep}{os.environ['PATH']}"
    async with Session.indexed(ws, settings={"staleness": "git"}, env={"PATH": path}) as session:
        client = session.client
        cart = open_doc(client, bank / "cart.md")
        redis = open_doc(client, bank / "redis.md")
        edited = REDIS + "Eviction: allkeys-lru.\n"
        change_doc(client, redis, edited, 2)  # an uncommitted edit: redis is updated today
        await wait_diagnostics(client, cart, lambda d: stale_on(d, str(today())))

        # The editor saves redis.md; it is committed, dated 2025-07-15.
        (bank / "redis.md").write_text(edited)
        git(ws, "commit", "-q", "-am", "redis", date="2025-07-15T12:00:00")
        hold.touch()
        try:
            client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=doc_id(redis)))
            await wait_until(started.exists)  # the server asked git, which is held
            asking = client.text_document_document_symbol_async(
                types.DocumentSymbolParams(text_document=doc_id(cart))
            )
            try:
                symbols = await asyncio.wait_for(asking, 10)
            except TimeoutError:
                pytest.fail("no answer while git was running: git runs on the server's event loop")
            assert symbols
        finally:
            hold.unlink()
        # The commit date, not today's: the save is no uncommitted edit any more.
        await wait_diagnostics(client, cart, lambda d: stale_on(d, "2025-07-15"))
