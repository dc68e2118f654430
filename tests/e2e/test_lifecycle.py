"""The server's life: shutdown with work in flight, exit without shutdown, a parent that dies, a restart."""

from __future__ import annotations

import asyncio
import os
import shlex
import signal
import sys
from pathlib import Path

import pytest
from lsprotocol import types

from tests.copies import copy_tree

from .conftest import SAMPLES, open_doc
from .harness import HANG, SERVER, Session, wait_for

SLOW_LLM = """
import os, pathlib, sys, time
sys.stdin.read()
pathlib.Path(sys.argv[1]).write_text(str(os.getpid()))
time.sleep(float(sys.argv[2]))
print('{"TLDR": "Late.", "ANSWERS_WHEN": ["late"], "CONFIDENCE": "low"}')
"""


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    copy_tree(SAMPLES / "mentat", ws)
    return ws


def slow_llm(tmp_path: Path, seconds: float) -> tuple[dict[str, object], Path]:
    """Settings for a command provider that answers after ``seconds``, and the file of its pid."""
    script = tmp_path / "slow_llm.py"
    script.write_text(SLOW_LLM)
    started = tmp_path / "llm-started"
    command = shlex.join([sys.executable, str(script), str(started), str(seconds)])
    return {"llm": {"provider": "command", "command": command, "timeout": 120}}, started


@pytest.mark.parametrize("flavour", ["vscode", "neovim"])
async def test_shutdown_while_a_recompile_waits_for_the_model_exits_cleanly(
    workspace: Path, tmp_path: Path, flavour: str
) -> None:
    settings, started = slow_llm(tmp_path, 60)
    session = await Session.start(workspace, flavour, settings=settings)
    try:
        await session.wait_indexed()
        uri = open_doc(session.client, workspace / "memory-bank/patterns/jwt.md")
        recompile = asyncio.ensure_future(
            session.client.workspace_execute_command_async(
                types.ExecuteCommandParams(command="ckp.recompile", arguments=[uri])
            )
        )
        await wait_for(lambda: started.exists() and started.read_text() != "", "the model was asked")
        code = await session.stop()
        await wait_for(lambda: _gone(int(started.read_text())), "the model's process was stopped")
    finally:
        await session.kill()
    assert code == 0
    assert "Traceback" not in session.stderr, session.stderr
    assert "dictionary changed size" not in session.stderr
    assert not session.applied  # the late answer was never applied
    recompile.cancel()
    await asyncio.gather(recompile, return_exceptions=True)


async def test_exit_without_shutdown_ends_with_code_1(workspace: Path) -> None:
    session = await Session.start(workspace)
    try:
        await session.wait_indexed()
        session.client.exit(None)
        code = await asyncio.wait_for(session.process.wait(), HANG)
    finally:
        await session.kill()
    assert code == 1
    assert "Traceback" not in session.stderr, session.stderr


INTERMEDIATE = """
import subprocess, sys
server = subprocess.Popen(sys.argv[1:])
print(server.pid, file=sys.stderr, flush=True)
server.wait()
"""


def _gone(pid: int) -> bool:
    """Whether ``pid`` has exited (a zombie nobody reaps counts as exited)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


async def test_the_server_exits_when_the_editor_process_dies(workspace: Path) -> None:
    # The "editor" is a short-lived parent whose pid is the processId; the server talks over the
    # pipes it inherits from it.
    launcher = [sys.executable, "-c", INTERMEDIATE, *SERVER]
    session = await Session.start(workspace, command=launcher, launcher_is_parent=True)
    server_pid = None
    try:
        await session.wait_indexed()
        await wait_for(lambda: b"\n" in session.client.stderr, "the parent printed the server's pid")
        server_pid = int(bytes(session.client.stderr).split(b"\n", 1)[0])
        assert not _gone(server_pid)
        session.process.kill()  # the editor dies without a word
        await asyncio.wait_for(session.process.wait(), HANG)
        await wait_for(lambda: _gone(server_pid), "the server exited")
    finally:
        if server_pid is not None and not _gone(server_pid):
            os.kill(server_pid, signal.SIGKILL)
        await session.kill()


async def test_restarting_the_server_gives_the_same_diagnostics(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    copy_tree(SAMPLES, ws)
    seen = []
    for _ in range(2):
        session = await Session.start(ws, "neovim")
        try:
            await session.wait_indexed()
            report = await session.request(
                session.client.workspace_diagnostic_async(
                    types.WorkspaceDiagnosticParams(previous_result_ids=[])
                )
            )
            seen.append(
                sorted(
                    (item.uri, d.code, d.range.start.line, d.range.start.character, d.message)
                    for item in report.items
                    for d in getattr(item, "items", [])
                )
            )
            assert await session.stop() == 0
        finally:
            await session.kill()
    assert seen[0] and seen[0] == seen[1]
