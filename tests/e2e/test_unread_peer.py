"""A peer that sends and never reads takes no memory: the real ``ckp mcp`` and the real language
server, over pipes, stop reading once their answers back up, and their resident memory
(``/proc/PID/status``) stays under a bound. Bounded in time: 20 s of flooding per face."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from tests.copies import copy_tree

from .conftest import SAMPLES

ROOT = Path(__file__).resolve().parents[2]
FLOOD = 20.0  # seconds of requests
SETTLED = 12.0  # by then the pipes are full and reading has stopped, even on a loaded machine
MAX_RSS_MB = 250


def rss_mb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) // 1024
    raise AssertionError("no VmRSS")


def flood(argv: list[str], first: list[bytes], request: Callable[[int], bytes]) -> tuple[int, int, int]:
    """Start ``argv``, send ``first`` then requests as fast as the pipe takes them, never read
    its stdout: (requests written by SETTLED, requests written by FLOOD, the highest RSS in MB)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=ROOT
    )
    assert proc.stdin is not None
    written = [0]

    def write() -> None:
        try:
            for data in first:
                proc.stdin.write(data)  # type: ignore[union-attr]
            n = 1
            while True:
                proc.stdin.write(request(n))  # type: ignore[union-attr]
                proc.stdin.flush()  # type: ignore[union-attr]
                written[0] = n
                n += 1
        except (OSError, ValueError):
            pass

    threading.Thread(target=write, daemon=True).start()
    started, highest, at_settled = time.monotonic(), 0, None
    try:
        while (elapsed := time.monotonic() - started) < FLOOD:
            time.sleep(0.25)
            highest = max(highest, rss_mb(proc.pid))
            if at_settled is None and elapsed >= SETTLED:
                at_settled = written[0]
    finally:
        proc.kill()
        proc.wait(10)
    return at_settled or 0, written[0], highest


def lsp_frame(obj: object) -> bytes:
    body = json.dumps(obj).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def test_ckp_mcp_stops_reading_a_peer_that_never_reads(tmp_path: Path) -> None:
    ws = copy_tree(SAMPLES / "mentat", tmp_path / "ws")

    def line(obj: object) -> bytes:
        return json.dumps(obj).encode() + b"\n"

    first = [
        line(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"},
                },
            }
        ),
        line({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ]
    args = {"query": "How does mentat fetch ISTAT data via SDMX?", "include_content": True}

    def request(n: int) -> bytes:
        return line(
            {
                "jsonrpc": "2.0",
                "id": n,
                "method": "tools/call",
                "params": {"name": "ckp_route", "arguments": args},
            }
        )

    settled, last, highest = flood([sys.executable, "-m", "ckp_lsp.cli.main", "mcp", str(ws)], first, request)
    assert last > 0, "nothing was sent"
    assert last - settled < 100, f"still reading: {settled} requests by {SETTLED} s, {last} by {FLOOD} s"
    assert highest < MAX_RSS_MB, f"{highest} MB"


def test_the_language_server_stops_reading_a_peer_that_never_reads(tmp_path: Path) -> None:
    ws = copy_tree(SAMPLES / "mentat", tmp_path / "ws")
    doc = ws / "memory-bank" / "patterns" / "jwt.md"
    uri = doc.as_uri()
    first = [
        lsp_frame(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {"processId": None, "rootUri": ws.as_uri(), "capabilities": {}},
            }
        ),
        lsp_frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}),
        lsp_frame(
            {
                "jsonrpc": "2.0",
                "method": "textDocument/didOpen",
                "params": {
                    "textDocument": {
                        "uri": uri,
                        "languageId": "markdown",
                        "version": 1,
                        "text": doc.read_text(),
                    }
                },
            }
        ),
    ]

    def request(n: int) -> bytes:
        # every symbol of the workspace: answers of some kilobytes, which fill the pipe soon
        return lsp_frame({"jsonrpc": "2.0", "id": n, "method": "workspace/symbol", "params": {"query": ""}})

    settled, last, highest = flood([sys.executable, "-m", "ckp_lsp", "--stdio"], first, request)
    assert last > 0, "nothing was sent"
    assert last - settled < 100, f"still reading: {settled} requests by {SETTLED} s, {last} by {FLOOD} s"
    assert highest < MAX_RSS_MB, f"{highest} MB"
