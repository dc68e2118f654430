"""The prompt hook as a host runs it: one process per prompt, on a 200- and a 10,000-file bank.

``python benchmarks/hook_bench.py [--runs N]`` starts ``ckp hook claude-code UserPromptSubmit``
with Claude Code's JSON on stdin and ``CLAUDE_PROJECT_DIR`` set, as Claude Code does, and prints
the median wall and CPU time of N runs (after one that writes the bank's cache) beside ``python -c
pass`` (the floor: starting Python) and ``import ckp_lsp.cli.main`` (starting the CLI). The code is
byte-compiled first, as an installed package is. ``--code DIR`` measures another checkout of
``ckp_lsp`` (e.g. ``git archive`` of an older commit unpacked in DIR) through ``python -m``.
CPU time is what an idle machine waits; on a loaded one the wall time is mostly waiting for a core.
"""

from __future__ import annotations

import compileall
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

import genbank  # noqa: E402

TARGETS = {200: 0.150, 10_000: 0.400}


def _time(
    argv: list[str], stdin: bytes, env: dict[str, str], runs: int, cwd: Path = ROOT
) -> tuple[float, float, bytes]:
    """Median wall and CPU seconds of ``runs`` runs, and the last run's output."""
    walls, cpus = [], []
    out = b""
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        # (run in the checkout measured: ``python -m`` imports from the current folder first)
        done = subprocess.run(argv, input=stdin, capture_output=True, env=env, check=True, cwd=cwd)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
        out = done.stdout
    return statistics.median(walls), statistics.median(cpus), out


def _question(bank: Path) -> str:
    """A question about the bank's first file, in words its keywords hold."""
    first = sorted(bank.rglob("*.md"))[1]
    line = next(x for x in first.read_text(encoding="utf-8").splitlines() if x.startswith("ANSWERS_WHEN:"))
    keywords = [k.strip() for k in line.split(":", 1)[1].split(",")]
    return f"How does the {keywords[1]} handle {keywords[3]}?"


def main(argv: list[str]) -> int:
    runs = int(argv[argv.index("--runs") + 1]) if "--runs" in argv else 7
    code = Path(argv[argv.index("--code") + 1]).resolve() if "--code" in argv else ROOT
    compileall.compile_dir(str(code / "ckp_lsp"), quiet=1)
    env = {k: v for k, v in os.environ.items() if k not in ("CKP_NO_CACHE", "PYTHONDONTWRITEBYTECODE")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(code), env.get("PYTHONPATH")) if p)
    floor, floor_cpu, _ = _time([sys.executable, "-c", "pass"], b"", env, runs)
    cli, _, _ = _time([sys.executable, "-c", "import ckp_lsp.cli.main"], b"", env, runs, code)
    load = os.getloadavg()[0]
    print(
        f"{code}: 2 cores (os.cpu_count() = {os.cpu_count()}), load average {load:.1f}; median of {runs} runs"
    )
    print(
        f"python -c pass: {floor * 1000:.0f} ms wall, {floor_cpu * 1000:.0f} ms CPU (the floor); "
        f"import ckp_lsp.cli.main: {cli * 1000:.0f} ms"
    )
    print("| files | hook wall | hook CPU | CPU over the floor | target | context |")
    print("|---:|---:|---:|---:|---:|---:|")
    for n, target in TARGETS.items():
        bank = genbank.prepare(n)
        project = bank.parent
        stdin = json.dumps(
            {
                "session_id": "bench",
                "transcript_path": str(project / "transcript.jsonl"),
                "cwd": str(project),
                "permission_mode": "default",
                "hook_event_name": "UserPromptSubmit",
                "prompt": _question(bank),
            }
        ).encode()
        script = Path(sys.executable).with_name("ckp")  # the console script a host runs
        mine = script.exists() and code == ROOT
        start = [str(script)] if mine else [sys.executable, "-m", "ckp_lsp.cli.main"]
        argv_ = [*start, "hook", "claude-code", "UserPromptSubmit"]
        env_n = {**env, "CLAUDE_PROJECT_DIR": str(project)}
        _time(argv_, stdin, env_n, 1, code)  # writes the cache, as the first prompt of a session does
        took, cpu, out = _time(argv_, stdin, env_n, runs, code)
        context = json.loads(out)["hookSpecificOutput"]["additionalContext"] if out else ""
        print(
            f"| {n:,} | {took * 1000:.0f} ms | {cpu * 1000:.0f} ms | {(cpu - floor_cpu) * 1000:.0f} ms "
            f"| {target * 1000:.0f} ms | {len(context):,} chars |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
