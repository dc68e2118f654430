"""Wall time of ``ckp route`` (a subprocess, start-up included) on a generated bank.

``python benchmarks/route_bench.py [--files 10000] [--runs 7] [--bank DIR]``: generates the bank
once (cached under the system temp folder), writes its index, then times each query. Compiled
bytecode is cached (under the temp folder) as it is for an installed package, even when
PYTHONDONTWRITEBYTECODE is set; the first, uncached run is left out of the median.
"""

from __future__ import annotations

import argparse
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

QUERIES = (
    "How does the billing ledger reconcile invoice payments?",
    "Which service retries failed webhook deliveries to partners?",
    "kubernetes deploy canary release",
    "How is the paymnet gateway configured?",  # a typo
    "How do I bake sourdough bread?",  # out of domain
)
TARGET_MS = 300


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


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--files", type=int, default=10_000)
    p.add_argument("--runs", type=int, default=7, help="runs per query; the median is reported")
    p.add_argument("--bank", type=Path, default=None, help="an existing bank instead of a generated one")
    args = p.parse_args(argv)
    bank = args.bank or prepare(Path(tempfile.gettempdir()) / f"ckp-route-bench-{args.files}", args.files)
    ckp = _ckp()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / "ckp-route-bench-pycache")
    subprocess.run([*ckp, "route", str(bank), "warm up"], capture_output=True, env=env)
    print(f"ckp route on {bank} ({args.files:,} files), median of {args.runs} runs, start-up included:")
    print(
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (CPU time is what an idle machine waits)"
    )
    medians = []
    for query in QUERIES:
        walls, cpus = [], []
        for _ in range(args.runs):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            done = subprocess.run([*ckp, "route", str(bank), query], capture_output=True, text=True, env=env)
            walls.append((time.perf_counter() - start) * 1000)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus.append((after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000)
            if done.returncode != 0:
                print(done.stderr, file=sys.stderr)
                return 1
        medians.append(statistics.median(walls))
        line = done.stdout.splitlines()[0]
        print(
            f"  {medians[-1]:6.0f} ms wall {statistics.median(cpus):6.0f} ms CPU  {query}\n"
            f"            {line[:110]}{'…' if len(line) > 110 else ''}"
        )
    worst = max(medians)
    print(
        f"worst median {worst:.0f} ms wall (target {TARGET_MS} ms): {'ok' if worst <= TARGET_MS else 'OVER'}"
    )
    return 0 if worst <= TARGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())
