"""Recompile with an LLM over stdio: cancelling kills the model's command, a vanished file is a clear
error, and the progress end message says what the model's requests cost."""

from __future__ import annotations

import asyncio
import os
import shlex
import sys
import time
from pathlib import Path
from typing import Any

from lsprotocol import types

from tests.copies import copy_tree
from tests.fake_llm import FakeLLM

from .conftest import SAMPLES, open_doc
from .harness import Session, wait_for

JWT = "memory-bank/patterns/jwt.md"
SLOW = """\
import os, sys, time
open(sys.argv[1], "w").write(str(os.getpid()))
time.sleep(120)
"""


def mentat(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    copy_tree(SAMPLES / "mentat", ws)
    return ws


def execute(session: Session, uri: str) -> Any:
    return session.client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="ckp.recompile", arguments=[uri])
    )


def recompile_tokens(session: Session) -> list[Any]:
    return [t for t in session.client.progress_reports if str(t).startswith("ckp-recompile")]


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


async def test_cancelling_a_recompile_kills_the_model_command(tmp_path: Path) -> None:
    ws = mentat(tmp_path)
    (tmp_path / "slow.py").write_text(SLOW)
    pid_file = tmp_path / "pid"
    command = shlex.join([sys.executable, str(tmp_path / "slow.py"), str(pid_file)])
    settings = {"llm": {"provider": "command", "command": command, "timeout": 120}}
    async with Session.indexed(ws, "vscode", settings=settings) as session:
        uri = open_doc(session.client, ws / JWT)
        running = asyncio.ensure_future(execute(session, uri))
        await wait_for(lambda: pid_file.exists() and pid_file.read_text() != "", "the model was asked")
        await wait_for(lambda: bool(recompile_tokens(session)), "the recompile's progress began")
        [token] = recompile_tokens(session)
        session.client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
        result = await asyncio.wait_for(running, 10)
        pid = int(pid_file.read_text())
        started = time.monotonic()
        while not gone(pid) and time.monotonic() - started < 5:
            await asyncio.sleep(0.05)
        assert gone(pid), "the model's command still runs after Cancel"
        assert result["applied"] is False and result["reason"] == "cancelled"
        ends = [r for r in session.client.progress_reports[token] if isinstance(r, types.WorkDoneProgressEnd)]
        assert ends and ends[-1].message == "cancelled"
    assert not session.applied
    assert "Traceback" not in session.stderr


async def test_recompile_of_a_vanished_file_is_a_clear_error(tmp_path: Path) -> None:
    ws = mentat(tmp_path)
    async with Session.indexed(ws, "neovim") as session:  # neovim: no file watcher to notice
        uri = (ws / JWT).as_uri()
        (ws / JWT).unlink()
        result = await session.request(execute(session, uri))
        assert result["applied"] is False
        assert result["reason"] in (
            "not a knowledge file",
            "cannot read the file (No such file or directory)",
        )
        shown = [m.message for m in session.client.messages]
        assert any("Recompile works on knowledge files" in m or "cannot be read" in m for m in shown), shown
    assert not session.failures()
    assert "Traceback" not in session.stderr


async def test_recompile_reports_the_tokens_it_spent(tmp_path: Path) -> None:
    ws = mentat(tmp_path)
    with FakeLLM() as fake:
        settings = {"llm": {"provider": "openai", "baseUrl": fake.openai_base_url, "timeout": 20}}
        async with Session.indexed(ws, "vscode", settings=settings) as session:
            uri = open_doc(session.client, ws / JWT)
            result = await session.request(execute(session, uri))
        usage = fake.received[0]
    assert result["requests"] == 1 and result["promptTokens"] > 100
    [token] = recompile_tokens(session)
    reports = session.client.progress_reports[token]
    end = reports[-1]
    assert isinstance(end, types.WorkDoneProgressEnd)
    assert f"{result['promptTokens']:,} prompt" in (end.message or "")
    assert "1 request" in (end.message or "")
    assert usage.path == "/v1/chat/completions"
