"""Routing on real banks: ``python benchmarks/wild_bench.py BANKS QUESTIONS``.

``BANKS/<name>/`` holds a bank as its repository has it; ``QUESTIONS/<name>.yaml`` its questions
(``ckp bench`` queries; ``must_load`` names files relative to the folder named by a
``# root: PATH`` comment line). Each bank is copied to a temporary folder, adopted offline
(``ckp compile --all`` and ``ckp index`` on the copy), and benched: the ranked router and the index
pattern, each beside plain BM25 given as many files. Prints a table per bank and the totals.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from ckp_lsp.faces.banks import load_bank

_ROOT = re.compile(r"^#\s*root:\s*(\S+)", re.MULTILINE)


def _ckp() -> list[str]:
    found = shutil.which("ckp", path=str(Path(sys.executable).parent))
    return [found] if found else [sys.executable, "-m", "ckp_lsp.cli.main"]


def bench_bank(bank: Path, questions: Path, work: Path) -> dict[str, Any] | str:
    """The bench figures of one bank, adopted in ``work``; a message when it cannot be benched."""
    from ckp_lsp.core.routing.bench import load_queries, run_bench

    found = _ROOT.search(questions.read_text(encoding="utf-8"))
    root = found.group(1) if found else "."
    copy = work / bank.name
    shutil.copytree(bank, copy, symlinks=True)
    target = copy / root
    if not target.is_dir():
        return f"no folder {root}"
    compiled = subprocess.run([*_ckp(), "compile", "--all", str(target)], capture_output=True, text=True)
    subprocess.run([*_ckp(), "index", str(target)], capture_output=True, text=True)
    loaded = load_bank(target)
    if not loaded.files:
        return f"{root}: no knowledge files (*.md)"
    report = run_bench(loaded, load_queries(questions))
    out = report.as_dict()
    out["compile_exit"] = compiled.returncode
    out["unanswerable"] = sum(1 for o in report.outcomes if any("which is not" in f for f in o.failures))
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("banks", type=Path)
    p.add_argument("questions", type=Path)
    args = p.parse_args(argv)
    totals: dict[str, dict[str, int]] = {m: {} for m in ("ranked", "index")}
    rows = []
    worse = []
    with tempfile.TemporaryDirectory(prefix="ckp-wild-") as tmp:
        for q in sorted(args.questions.glob("*.yaml")):
            bank = args.banks / q.stem
            if not bank.is_dir():
                continue
            got = bench_bank(bank, q, Path(tmp))
            if isinstance(got, str):
                rows.append(f"| {q.stem} | – | {got} |||||||")
                continue
            r, i = got["modes"]["ranked"], got["modes"]["index"]
            for mode, f in (("ranked", r), ("index", i)):
                for k, v in f.items():
                    if isinstance(v, int):
                        totals[mode][k] = totals[mode].get(k, 0) + v
            if r["found"] < r["peer_found"]:
                worse.append(q.stem)
            rows.append(
                f"| {q.stem} | {got['files']} | {r['found']}/{r['questions']} | {r['peer_found']}/{r['questions']} "
                f"| {r['mean_files']:.1f} | {r['within_4_files']}/{r['in_domain']} "
                f"| {r['out_of_domain'] - r['out_of_domain_loaded_something']}/{r['out_of_domain']} "
                f"| {i['found']}/{i['questions']} | {i['peer_found']}/{i['questions']} | {got['unanswerable']} |"
            )
    print(
        "| bank | files | ranked recall | BM25 at the same files | mean files | ≤ 4 files "
        "| out of domain, nothing loaded | index recall | BM25 at the index's files | questions naming no knowledge file |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    print("\n".join(rows))
    r, i = totals["ranked"], totals["index"]

    def share(a: int, b: int) -> str:
        return f"{a}/{b} ({a / b:.0%})" if b else "–"

    print(
        f"| **all** | | {share(r['found'], r['questions'])} | {share(r['peer_found'], r['questions'])} | "
        f"| {share(r['within_4_files'], r['in_domain'])} "
        f"| {share(r['out_of_domain'] - r['out_of_domain_loaded_something'], r['out_of_domain'])} "
        f"| {share(i['found'], i['questions'])} | {share(i['peer_found'], i['questions'])} | |"
    )
    print(f"\nbanks where the ranked router finds less than BM25: {', '.join(worse) or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
