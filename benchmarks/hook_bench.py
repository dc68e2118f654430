"""The prompt hook as a host runs it: one process per prompt, on a 200- and a 10,000-file bank.

``python benchmarks/hook_bench.py [--runs N]`` starts ``ckp hook claude-code UserPromptSubmit``
with Claude Code's JSON on stdin and ``CLAUDE_PROJECT_DIR`` set, as Claude Code does, and prints
the median wall time of N runs (after one that writes the bank's cache) beside ``python -c pass``
(the floor: starting Python) and ``import ckp_lsp.cli.main`` (starting the CLI). The code is
byte-compiled first, as an installed package is.
"""

from __future__ import annotations

import compileall
import json
import os
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


def _time(argv: list[str], stdin: bytes, env: dict[str, str], runs: int) -> tuple[float, bytes]:
    times = []
    out = b""
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run(argv, input=stdin, capture_output=True, env=env, check=True)
        times.append(time.perf_counter() - start)
        out = done.stdout
    return statistics.median(times), out


def _question(bank: Path) -> str:
    """A question about the bank's first file, in words its keywords hold."""
    first = sorted(bank.rglob("*.md"))[1]
    line = next(x for x in first.read_text(encoding="utf-8").splitlines() if x.startswith("ANSWERS_WHEN:"))
    keywords = [k.strip() for k in line.split(":", 1)[1].split(",")]
    return f"How does the {keywords[1]} handle {keywords[3]}?"


def main(argv: list[str]) -> int:
    runs = int(argv[argv.index("--runs") + 1]) if "--runs" in argv else 7
    compileall.compile_dir(str(ROOT / "ckp_lsp"), quiet=1)
    env = {k: v for k, v in os.environ.items() if k != "CKP_NO_CACHE"}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    floor, _ = _time([sys.executable, "-c", "pass"], b"", env, runs)
    cli, _ = _time([sys.executable, "-c", "import ckp_lsp.cli.main"], b"", env, runs)
    load = os.getloadavg()[0]
    print(f"2 cores (os.cpu_count() = {os.cpu_count()}), load average {load:.1f}; median of {runs} runs")
    print(f"python -c pass: {floor * 1000:.0f} ms (the floor); import ckp_lsp.cli.main: {cli * 1000:.0f} ms")
    print("| files | hook | over the floor | target | context |")
    print("|---:|---:|---:|---:|---:|")
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
        start = [str(script)] if script.exists() else [sys.executable, "-m", "ckp_lsp.cli.main"]
        argv_ = [*start, "hook", "claude-code", "UserPromptSubmit"]
        env_n = {**env, "CLAUDE_PROJECT_DIR": str(project)}
        _time(argv_, stdin, env_n, 1)  # writes the cache, as the first prompt of a session does
        took, out = _time(argv_, stdin, env_n, runs)
        context = json.loads(out)["hookSpecificOutput"]["additionalContext"] if out else ""
        print(
            f"| {n:,} | {took * 1000:.0f} ms | {(took - floor) * 1000:.0f} ms | {target * 1000:.0f} ms "
            f"| {len(context):,} chars |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
