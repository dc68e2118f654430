"""Latency of a ``ckp_route`` call to a running ``ckp mcp`` on a generated bank.

``python benchmarks/mcp_bench.py [--files 10000] [--calls 400] [--bank DIR]``: generates the bank
once (as ``route_bench.py`` does, with its index), starts ``ckp mcp`` with the MCP SDK's own stdio
client, and reports the time to the first answer (start-up and the bank read included), then the
p50 / p99 / max round trip of ``ckp_route`` calls (client to server and back: JSON-RPC over the
pipes, argument validation, routing, the answer) once started. The server's own share of a call
(``tools.route`` in this process, over the same bank) is printed beside it.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

sys.path.insert(0, str(Path(__file__).resolve().parent))

from route_bench import QUERIES, prepare

from ckp_lsp.mcp import tools
from ckp_lsp.mcp.banks import ServedBanks

TARGET_MS = 20.0


def percentile(values: list[float], p: float) -> float:
    """The ``p``-th percentile (nearest rank) of ``values``."""
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(p / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


def _environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / "ckp-bench-pycache")
    return env


async def _measure(bank: Path, calls: int) -> tuple[float, list[float]]:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "ckp_lsp.cli.main", "mcp", str(bank)], env=_environment()
    )
    start = time.perf_counter()
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        first = await session.call_tool("ckp_route", {"query": QUERIES[0]})
        ready = time.perf_counter() - start
        if first.is_error:
            raise SystemExit(f"ckp_route failed: {first.content}")
        for q in QUERIES:  # warm: the router's keyword index is built on the second query
            await session.call_tool("ckp_route", {"query": q})
        times = []
        for n in range(calls):
            query = f"{QUERIES[n % len(QUERIES)]} ({n})"  # never the same text twice
            t = time.perf_counter()
            result = await session.call_tool("ckp_route", {"query": query})
            times.append((time.perf_counter() - t) * 1000)
            if result.is_error:
                raise SystemExit(f"ckp_route failed: {result.content}")
    return ready, times


def _in_process(bank: Path, calls: int) -> list[float]:
    """The server's share: ``tools.route`` (refresh and routing) in this process."""
    banks = ServedBanks(bank, poll_interval=0)
    for q in QUERIES:
        tools.route(banks, q)
    times = []
    for n in range(calls):
        t = time.perf_counter()
        tools.route(banks, f"{QUERIES[n % len(QUERIES)]} ({n})")
        times.append((time.perf_counter() - t) * 1000)
    return times


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--files", type=int, default=10_000)
    p.add_argument("--calls", type=int, default=400)
    p.add_argument("--bank", type=Path, default=None, help="an existing bank instead of a generated one")
    args = p.parse_args(argv)
    bank = args.bank or prepare(Path(tempfile.gettempdir()) / f"ckp-route-bench-{args.files}", args.files)
    load = os.getloadavg()[0]
    print(f"ckp mcp on {bank} ({args.files:,} files), {args.calls} ckp_route calls once started")
    print(
        f"load average {load:.1f} on {os.cpu_count()} CPUs"
        + (" (a busy machine: expect noise)" if load > 1 else "")
    )
    ready, times = anyio.run(_measure, bank, args.calls)
    server = _in_process(bank, args.calls)
    print(f"first answer after start: {ready:.2f} s (start-up, reading the bank, the first route)")
    print(
        f"round trip:   p50 {percentile(times, 50):.2f} ms, p99 {percentile(times, 99):.2f} ms, "
        f"max {max(times):.2f} ms (target: p99 <= {TARGET_MS:g} ms)"
    )
    print(
        f"server share: p50 {percentile(server, 50):.2f} ms, p99 {percentile(server, 99):.2f} ms "
        "(refresh by stats and routing, in process)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
