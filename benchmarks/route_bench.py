"""Wall time of ``ckp route`` (a subprocess, start-up included) on a generated bank, both routers.

``python benchmarks/route_bench.py [--files 10000] [--runs 7] [--bank DIR] [--code DIR]``: generates the bank
once (cached under the system temp folder), writes its index, then times each query with the
ranked router (the default) and the index pattern (``--mode index``), and, in process, one routing
of a built router (what ``ckp_route`` of a running ``ckp mcp`` costs: p50 and p99) beside plain BM25
over the same files. Compiled bytecode is cached (under the temp folder) as it is for an installed
package, even when PYTHONDONTWRITEBYTECODE is set; the first, uncached run is left out of the
median. ``--code DIR`` times the ``ckp route`` of another checkout of ``ckp_lsp`` (``git archive``
of an older commit unpacked in DIR). Numbers and ratios only: nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from genbank import generate

from ckp_lsp.faces.banks import load_bank

QUERIES = (
    "How does the billing ledger reconcile invoice payments?",
    "Which service retries failed webhook deliveries to partners?",
    "kubernetes deploy canary release",
    "How is the paymnet gateway configured?",  # a typo
    "How do I bake sourdough bread?",  # out of domain
)
#: banks up to this size are also routed in process (building the peer reads every file)
IN_PROCESS_LIMIT = 2000


def _ckp() -> list[str]:
    found = shutil.which("ckp", path=str(Path(sys.executable).parent))
    return [found] if found else [sys.executable, "-m", "ckp_lsp.cli.main"]


def prepare(folder: Path, files: int) -> Path:
    """A bank of ``files`` generated files with a current index (reused when already there)."""
    bank = folder / "memory-bank"
    marker = folder / f".generated-{files}"
    if not marker.exists():
        shutil.rmtree(folder, ignore_errors=True)
        generate(bank, files, seed=0)
        subprocess.run([*_ckp(), "index", str(bank)], check=True, capture_output=True)
        marker.touch()
    return bank


def _in_process(bank: Path, runs: int) -> None:
    """p50 and p99 of one routing by a built router (ranked, index) and by the BM25 peer."""
    from ckp_lsp.core.routing.index_pattern import Router
    from ckp_lsp.core.routing.peer import PlainBM25
    from ckp_lsp.core.routing.ranked import RankedRouter

    loaded = load_bank(bank)
    start = time.perf_counter()
    ranked = RankedRouter(loaded)
    built = (time.perf_counter() - start) * 1000
    index = Router(loaded)
    peer = PlainBM25(ranked.texts)
    print(f"in process (a running ckp mcp): the ranked router built in {built:.0f} ms")
    for query in QUERIES:  # (the first question imports the stemmer and reads the stop words)
        ranked.route(query), index.route(query), peer.top(query, 3)
    gc.freeze()  # as ``ckp mcp`` does once its router is built (``ServedBank.router``)
    times: dict[str, list[float]] = {"ranked (ckp_route)": [], "index pattern": [], "BM25 peer": []}
    for _ in range(max(runs, 20)):
        for query in QUERIES:
            for name, call in (
                ("ranked (ckp_route)", lambda q: ranked.route(q)),
                ("index pattern", lambda q: index.route(q)),
                ("BM25 peer", lambda q: peer.top(q, 3)),
            ):
                t = time.perf_counter()
                call(query)
                times[name].append((time.perf_counter() - t) * 1000)
    base = statistics.median(times["BM25 peer"])
    for name, found in times.items():
        found.sort()
        p99 = found[min(len(found) - 1, int(len(found) * 0.99))]
        print(
            f"  {name:<20} p50 {statistics.median(found):6.2f} ms  p99 {p99:6.2f} ms  ({statistics.median(found) / base:.1f}x BM25)"
        )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--files", type=int, default=10_000)
    p.add_argument("--runs", type=int, default=7, help="runs per query; the median is reported")
    p.add_argument("--bank", type=Path, default=None, help="an existing bank instead of a generated one")
    p.add_argument("--code", type=Path, default=None, help="another checkout of ckp_lsp to time")
    args = p.parse_args(argv)
    bank = args.bank or prepare(Path(tempfile.gettempdir()) / f"ckp-route-bench-{args.files}", args.files)
    ckp = _ckp() if args.code is None else [sys.executable, "-m", "ckp_lsp.cli.main"]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / "ckp-route-bench-pycache")
    cwd = str(args.code.resolve()) if args.code is not None else None  # (``-m`` imports from here first)
    if cwd is not None:
        env["PYTHONPATH"] = cwd
    for mode in ("ranked", "index"):
        subprocess.run(
            [*ckp, "route", "--mode", mode, str(bank), "warm up"], capture_output=True, env=env, cwd=cwd
        )
    print(f"ckp route on {bank} ({args.files:,} files), median of {args.runs} runs, start-up included:")
    print(
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (CPU time is what an idle machine waits)"
    )
    worst: dict[str, float] = {}
    for query in QUERIES:
        print(f"  {query}")
        for mode in ("ranked", "index"):
            walls, cpus = [], []
            for _ in range(args.runs):
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                start = time.perf_counter()
                done = subprocess.run(
                    [*ckp, "route", "--mode", mode, str(bank), query],
                    capture_output=True,
                    text=True,
                    env=env,
                    cwd=cwd,
                )
                walls.append((time.perf_counter() - start) * 1000)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpus.append((after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000)
                if done.returncode != 0:
                    print(done.stderr, file=sys.stderr)
                    return 1
            wall = statistics.median(walls)
            worst[mode] = max(worst.get(mode, 0.0), wall)
            line = done.stdout.splitlines()[0]
            print(
                f"    {mode:<6} {wall:6.0f} ms wall {statistics.median(cpus):6.0f} ms CPU  "
                f"{line[:90]}{'…' if len(line) > 90 else ''}"
            )
    print(
        f"worst median: ranked {worst['ranked']:.0f} ms, index {worst['index']:.0f} ms wall "
        f"({worst['ranked'] / worst['index']:.1f}x the index pattern)"
    )
    if args.files <= IN_PROCESS_LIMIT and args.code is None:
        _in_process(bank, args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
