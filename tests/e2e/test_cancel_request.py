"""Over stdio: ``$/cancelRequest`` on a running Recompile stops the job itself, as cancelling its
progress does: the model's command is killed, and nothing is applied."""

from __future__ import annotations

import asyncio
import contextlib
import shlex
import sys
import time
from pathlib import Path

from lsprotocol import types

from .conftest import open_doc
from .harness import Session, wait_for
from .test_recompile_llm import JWT, SLOW, gone, mentat


async def test_cancel_request_on_a_recompile_kills_the_model_command(tmp_path: Path) -> None:
    ws = mentat(tmp_path)
    (tmp_path / "slow.py").write_text(SLOW)
    pid_file = tmp_path / "pid"
    command = shlex.join([sys.executable, str(tmp_path / "slow.py"), str(pid_file)])
    settings = {"llm": {"provider": "command", "command": command, "timeout": 120}}
    async with Session.indexed(ws, "vscode", settings=settings) as session:
        uri = open_doc(session.client, ws / JWT)
        params = types.ExecuteCommandParams(command="ckp.recompile", arguments=[uri])
        answer = asyncio.ensure_future(
            session.client.protocol.send_request_async(
                types.WORKSPACE_EXECUTE_COMMAND, params, msg_id="recompile-1"
            )
        )
        await wait_for(lambda: pid_file.exists() and pid_file.read_text() != "", "the model was asked")
        session.client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="recompile-1"))
        with contextlib.suppress(Exception):  # answered with RequestCancelled, or "cancelled"
            await asyncio.wait_for(answer, 10)
        pid = int(pid_file.read_text())
        started = time.monotonic()
        while not gone(pid) and time.monotonic() - started < 10:
            await asyncio.sleep(0.05)
        assert gone(pid), "the model's command still runs after $/cancelRequest"
        await asyncio.sleep(0.5)
    assert not session.applied
    assert "Traceback" not in session.stderr
