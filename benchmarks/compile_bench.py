"""Wall time of ``ckp compile --all`` offline (a subprocess, start-up included) on a generated bank.

``python benchmarks/compile_bench.py [--files 1000] [--runs 3]``: generates the bank once (under the
system temp folder), then times, median of the runs:

- ``fill``: every header removed, so every file gets one (concepts, keywords, TLDRs, relationships);
- ``force``: every header of the compiled bank recompiled;
- ``unchanged``: a second ``compile --all`` on the filled bank, which changes nothing.

Each run works on a fresh copy and writes its files, as a user's run does. The target is 10 s for
1,000 files. CPU time is printed beside the wall time: on a machine busy with other work, the wall
time says more about the machine than about the compiler.
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

ROOT = Path(__file__).resolve().parent.parent


def _headerless(src: Path, dest: Path) -> None:
    """A copy of the bank whose files have lost their headers (the body stays)."""
    sys.path.insert(0, str(ROOT))
    from ckp_lsp.core.edit.rewrite import body_of

    shutil.copytree(src, dest)
    for path in dest.rglob("*.md"):
        if path.name != "_index.md":
            path.write_text(body_of(path.read_text(encoding="utf-8")).lstrip("\n"), encoding="utf-8")


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _compile(bank: Path, *extra: str) -> tuple[float, float]:
    """(wall, CPU) seconds of one ``compile --all``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cpu = _cpu()
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "ckp_lsp.cli.main", "compile", "--all", str(bank), *extra],
        env=env,
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"compile --all failed ({done.returncode}): {done.stderr[-2000:]}")
    return seconds, _cpu() - cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="ckp-compile-bench-"))
    try:
        generated = work / "generated" / "memory-bank"
        generate(generated, args.files)
        base = work / "base" / "memory-bank"
        _headerless(generated, base)
        times: dict[str, list[tuple[float, float]]] = {"fill": [], "force": [], "unchanged": []}
        for run in range(args.runs):
            bank = work / f"run{run}" / "memory-bank"
            shutil.copytree(base, bank)
            times["fill"].append(_compile(bank))
            times["unchanged"].append(_compile(bank))
            times["force"].append(_compile(bank, "--force"))
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        print(
            f"compile --all, offline, {args.files} files, median of {args.runs} ({cores} cores, load {load:.1f}):"
        )
        for name, values in times.items():
            wall = statistics.median(v[0] for v in values)
            cpu = statistics.median(v[1] for v in values)
            runs = ", ".join(f"{v[0]:.2f}" for v in values)
            print(f"  {name:<10} {wall:6.2f} s wall, {cpu:6.2f} s CPU   (runs: {runs})")
        print("  target     10.00 s for 1,000 files")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
