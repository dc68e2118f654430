"""The server's start as the VS Code extension runs it (bundled libraries) next to a pip install.

``python benchmarks/vsix_spawn.py [--libs vscode-client/bundled/libs] [--size 10000] [--repeat 5]
[--bank samples/broken/memory-bank] [--also OTHER/bundled/libs]``

Both runs start the same ``ckp_lsp`` source (this checkout) with the same interpreter, as
``python -m ckp_lsp --stdio``; only where the libraries come from differs:

- pip-installed: ``PYTHONPATH`` = this checkout, the dependencies from the environment's
  site-packages (pip's compiled wheels);
- bundled: ``PYTHONPATH`` = the extension's ``bundled/libs`` (``npm run package`` or
  ``scripts/bundle-libs.py --target ...`` fills it; a universal build has no compiled modules).

- ``--also``: another build's ``bundled/libs`` (an older .vsix unpacked, another branch's build),
  started the same way, for a before/after of the bundle.

Measured: spawn → every diagnostic published (``server_bench.py``), on a generated bank of
``--size`` files or a copy of ``--bank`` (a sample bank: what a first start in an editor waits
for), the runs alternating so that a change of the machine's load touches each. Prints the medians
and their ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import measure
from genbank import prepare
from server_bench import Bench

REPO = Path(__file__).resolve().parents[1]


def native_state(code: Path, env: dict[str, str]) -> str:
    """What the server would log at start about its compiled modules, with these libraries."""
    proc = subprocess.run(
        [sys.executable, "-P", "-c", "from ckp_lsp.server import native; print(native.describe())"],
        env={**env, "PYTHONPATH": str(code)},
        capture_output=True,
        text=True,
    )
    return (proc.stdout or proc.stderr).strip().splitlines()[-1]


def spawn(code: Path, bank: Path, n: int) -> float:
    measure.CODE = code  # measure.environment() and measure.tool() start `python -P -m ckp_lsp` on it
    bench = Bench(bank, n, random.Random(0), measure.environment(), spawn_only=True)
    asyncio.run(bench.server())
    return bench.results["spawn"]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--libs", type=Path, default=REPO / "vscode-client" / "bundled" / "libs")
    p.add_argument("--size", type=int, default=10_000, help="files in the bank (default 10,000)")
    p.add_argument("--repeat", type=int, default=5, help="runs of each (default 5); medians are printed")
    p.add_argument("--bank", type=Path, help="a bank to copy and start on, instead of a generated one")
    p.add_argument("--also", type=Path, action="append", default=[], help="another bundled/libs to compare")
    args = p.parse_args(argv)
    variants = {"pip-installed": REPO}
    for libs in [args.libs, *args.also]:
        libs = libs.resolve()
        if not (libs / "ckp_lsp").is_dir():
            raise SystemExit(f"{libs} holds no bundled server: run `npm run package` in vscode-client first")
        build_file = libs.parent / "build.json"
        build = json.loads(build_file.read_text()) if build_file.exists() else {}
        name = f"bundled ({build.get('target', '?')} build)"
        variants[name if libs == args.libs.resolve() else f"{name}, {libs}"] = libs
    if args.bank is not None:
        bank = Path(tempfile.mkdtemp(prefix="ckp-vsix-spawn-")) / "memory-bank"
        shutil.copytree(args.bank, bank, ignore=shutil.ignore_patterns(".ckp-cache"))
        size = sum(1 for _ in bank.rglob("*.md"))
        described = f"a copy of {args.bank} ({size} files)"
    else:
        bank, size = prepare(args.size, 0), args.size
        described = f"{size:,} generated files"
    info = measure.machine()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    states = {name: native_state(code, env) for name, code in variants.items()}
    times: dict[str, list[float]] = {name: [] for name in variants}
    for name, code in variants.items():  # a warm-up each: bytecode cached, files in the page cache
        print(f"warm-up: {name}", file=sys.stderr)
        spawn(code, bank, size)
    for i in range(args.repeat):
        for name, code in variants.items():
            times[name].append(spawn(code, bank, size))
            print(f"run {i + 1}: {name}: {times[name][-1]:.2f} s", file=sys.stderr)
    pip_median = statistics.median(times["pip-installed"])
    print(
        f"Machine: {info['cpu']}, {info['cores']} cores; Python {info['python']}; {info['date']}; "
        f"load average at start {info['load']}, at end " + " ".join(f"{x:.2f}" for x in os.getloadavg())
    )
    print(f"Bank: {described}; spawn → every diagnostic published, median of {args.repeat}\n")
    print("| server | spawn | ÷ pip-installed | runs | compiled modules |")
    print("|---|---|---|---|---|")
    for name in variants:
        median = statistics.median(times[name])
        runs = ", ".join(f"{t:.2f}" for t in times[name])
        state = states[name].split("; ", 1)[-1]
        print(f"| {name} | {median:.2f} s | {median / pip_median:.2f}× | {runs} | {state} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
