"""What VS Code's workspace diagnostics cost the server while nothing changes.

``python benchmarks/workspace_pull.py [--size 10000] [--seconds 20]``

VS Code's language client pulls ``workspace/diagnostic`` again 2 s after each answer, with the
last result id of every document. This starts the real server over stdio on a generated bank,
pulls once, then pulls as VS Code does for ``--seconds`` without changing anything, and prints
how many pulls were answered, how long an answer took, and the server's CPU time meanwhile (from
/proc). A server that holds an unchanged pull until something changes answers none of them.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pytest_lsp import client_capabilities

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))  # tests.lsp_driver

from genbank import prepare

from tests.lsp_driver import SERVER, Server

#: VS Code's language client waits this long after an answer before it pulls again (seconds)
VSCODE_DELAY = 2.0


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of the process ``pid``."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def capabilities() -> types.ClientCapabilities:
    """VS Code 1.100's: pulls documents' and the workspace's diagnostics, can be told to pull again."""
    caps = client_capabilities("visual-studio-code")
    assert caps.text_document is not None and caps.workspace is not None
    caps.text_document.diagnostic = types.DiagnosticClientCapabilities(related_document_support=True)
    caps.workspace.diagnostics = types.DiagnosticWorkspaceClientCapabilities(refresh_support=True)
    return caps


async def measure(ws: Path, seconds: float) -> dict[str, float]:
    params = types.InitializeParams(
        capabilities=capabilities(),
        workspace_folders=[types.WorkspaceFolder(uri=ws.as_uri(), name="ws")],
        process_id=os.getpid(),
    )
    # The file watchers it registers are not answered: VS Code watches the disk, the server does
    # not poll it.
    server = await Server.start(SERVER, params, env={**os.environ})
    client, pid = server.client, server.pid
    await server.wait(lambda: bool(server.statuses), 600, step=0.05)
    first = await client.workspace_diagnostic_async(types.WorkspaceDiagnosticParams(previous_result_ids=[]))
    previous = [types.PreviousResultId(uri=i.uri, value=i.result_id) for i in first.items if i.result_id]
    await asyncio.sleep(3)  # the warm-up after the first reading
    cpu0, end = cpu_seconds(pid), time.monotonic() + seconds
    answers: list[float] = []
    while time.monotonic() < end:
        t0 = time.perf_counter()
        pending = client.workspace_diagnostic_async(
            types.WorkspaceDiagnosticParams(previous_result_ids=previous)
        )
        try:
            await asyncio.wait_for(asyncio.shield(pending), max(end - time.monotonic(), 0.01))
        except asyncio.TimeoutError:
            break  # held: nothing changed, nothing to say
        answers.append(time.perf_counter() - t0)
        await asyncio.sleep(VSCODE_DELAY)
    cpu = cpu_seconds(pid) - cpu0
    server.process.kill()  # a held pull is still pending: the server is not asked to shut down
    await server.process.wait()
    with contextlib.suppress(Exception):  # the pending pull fails with the server gone
        await client.stop()
    return {
        "documents": len(previous),
        "answers": len(answers),
        "answer_ms": statistics.median(answers) * 1000 if answers else 0.0,
        "cpu_s": cpu,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=10000)
    parser.add_argument("--seconds", type=float, default=20.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ckp-pull-") as tmp:
        ws = Path(tmp) / "ws"
        shutil.copytree(prepare(args.size), ws / "memory-bank")
        got = asyncio.run(measure(ws, args.seconds))
    load = os.getloadavg()[0]
    print(
        f"workspace/diagnostic at {args.size:,} files, nothing changing, {args.seconds:.0f} s as VS Code pulls "
        f"(load {load:.1f}): {got['answers']:.0f} answers of {got['documents']:.0f} documents' result ids, "
        f"median {got['answer_ms']:.0f} ms each; server CPU {got['cpu_s']:.2f} s "
        f"({100 * got['cpu_s'] / args.seconds:.0f} % of a core)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
