"""Prompt tokens per file of an LLM compile, by bank size: ``python benchmarks/prompt_bench.py``.

For banks of 40, 1,000 and 10,000 generated files (``--sizes``), builds the prompt an LLM provider
is sent for ``--files`` of their files — as ``compile_header`` does, with at most ``llm.candidates``
(40) other concepts — and prints its size in tokens (characters / 4 rounded up, the estimate of
the format) beside the size of a prompt listing the whole bank, and the time spent choosing the
candidates. No network: the prompt is what would be sent.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from genbank import prepare

from ckp_lsp.core.compile.candidates import DEFAULT_CANDIDATES, candidates
from ckp_lsp.core.compile.compiler import compile_input
from ckp_lsp.core.compile.prompt import build_prompt
from ckp_lsp.core.format.fields import token_estimate
from ckp_lsp.faces.banks import load_bank


def measure(n: int, files: int) -> tuple[list[int], list[int], list[float]]:
    """Prompt tokens with candidates and with the whole bank, and seconds to choose, per file."""
    bank = load_bank(prepare(n))
    rels = sorted(bank.files)[1 : 1 + files]  # the first is the hub every file names
    bounded, whole, seconds = [], [], []
    for rel in rels:
        text = (bank.root / rel).read_text(encoding="utf-8")
        inp = compile_input(bank, rel, text)
        started = time.perf_counter()
        shown = replace(inp, others=candidates(inp, DEFAULT_CANDIDATES))
        seconds.append(time.perf_counter() - started)
        p = build_prompt(shown)
        bounded.append(token_estimate(len(p.system + p.user)))
        w = build_prompt(inp)
        whole.append(token_estimate(len(w.system + w.user)))
    return bounded, whole, seconds


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="40,1000,10000", help="bank sizes, comma-separated")
    parser.add_argument("--files", type=int, default=10, help="files measured per bank")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    print(
        f"prompt tokens per file (chars/4), median and max of {args.files} files; at most "
        f"{DEFAULT_CANDIDATES} candidates\n"
    )
    print(
        f"{'files':>7} | {'with candidates':>17} | {'whole bank':>17} | {'ratio':>6} | choosing: first / next (ms)"
    )
    print(f"{'-' * 7}-+-{'-' * 17}-+-{'-' * 17}-+-{'-' * 6}-+-{'-' * 27}")
    first = None
    for n in sizes:
        bounded, whole, seconds = measure(n, args.files)
        med = statistics.median(bounded)
        first = first or med
        print(
            f"{n:>7,} | {med:>8,.0f} / {max(bounded):>6,} | {statistics.median(whole):>8,.0f} / "
            f"{max(whole):>6,} | {med / first:>5.2f}x | {1000 * seconds[0]:>8,.0f} / "
            f"{1000 * statistics.median(seconds[1:] or seconds):,.0f}"
        )
    print("\nratio: the median prompt with candidates against the smallest bank's")
    print("choosing: the first file of a run prepares the bank's concepts; the next reuse them")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
