"""Speed and scale of ``ckp`` and ``ckp-lsp`` on generated banks, as a Markdown table.

``python benchmarks/run.py [--size 10000 | --sizes 100,1000,10000,100000] [--compare]``

For each size: ``ckp check`` and ``ckp route`` wall time (subprocesses, median of warm runs);
the language server driven over stdio as a VS Code-like push client: spawn to every diagnostic
published, didChange to publish, completion, hover, definition and references latencies (p50 and
p99 of 200 each), renaming a concept named by 1,000 files, and the server's peak RSS.
``--compare`` runs rumdl (a Rust Markdown linter and language server, restricted to its link
rules) on the same bank and prints the ratios. Banks are generated once and cached under
``benchmarks/.banks`` (see ``genbank.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import measure
from genbank import BODIES, prepare
from server_bench import Bench, ensure_rumdl

#: targets at 10,000 files on a 2-core machine (seconds, or MB for memory)
TARGETS_10K = {
    "check": 1.0,
    "check_warm": 0.4,
    "spawn": 1.5,
    "spawn_warm": 1.0,
    "change_p99": 0.005,
    "completion_p99": 0.005,
    "hover_p99": 0.002,
    "definition_p99": 0.002,
    "rss": 120.0,
}


# --- the report -------------------------------------------------------------------------------

ROWS = (
    ("check", "`ckp check`, cold: no cache (wall, median of 3)", "s"),
    ("check_rss", "`ckp check` peak RSS, cold", "MB"),
    ("check_warm", "`ckp check`, warm: nothing changed since the last (wall, median of 3)", "s"),
    ("check_warm_rss", "`ckp check` peak RSS, warm", "MB"),
    ("spawn", "server spawn → all diagnostics published, cold: no cache", "s"),
    ("spawn_warm", "server spawn → all diagnostics published, warm", "s"),
    ("change_p50", "didChange → publish p50", "ms"),
    ("change_p99", "didChange → publish p99", "ms"),
    ("completion_p50", "completion p50", "ms"),
    ("completion_p99", "completion p99", "ms"),
    ("hover_p50", "hover p50", "ms"),
    ("hover_p99", "hover p99", "ms"),
    ("definition_p50", "definition p50", "ms"),
    ("definition_p99", "definition p99", "ms"),
    ("references_p50", "references p50", "ms"),
    ("references_p99", "references p99", "ms"),
    ("rename", "rename a concept named by 1,000 files", "ms"),
    ("rss", "server peak RSS", "MB"),
    ("route", "`ckp route` (wall, median)", "s"),
)
#: rumdl's figures: (key, the ckp figure it compares with or "" when none does, label, unit)
RUMDL_ROWS = (
    ("rumdl_check", "check", "rumdl check (link rules, no cache, wall, median of 3)", "s"),
    ("rumdl_check_rss", "check_rss", "rumdl check peak RSS", "MB"),
    ("rumdl_check_warm", "check_warm", "rumdl check, its cache warm (wall, median of 3)", "s"),
    ("rumdl_first", "", "rumdl server: spawn → an opened file's diagnostics (it indexes nothing)", "s"),
    ("rumdl_change_p50", "change_p50", "rumdl server: didChange → publish p50", "ms"),
    ("rumdl_change_p99", "change_p99", "rumdl server: didChange → publish p99", "ms"),
    ("rumdl_rss", "rss", "rumdl server peak RSS", "MB"),
)


def fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "–"
    if unit == "ms":
        return f"{value * 1000:.2f} ms" if value < 0.1 else f"{value * 1000:.0f} ms"
    if unit == "MB":
        return f"{value:.0f} MB"
    return f"{value:.2f} s"


def target_of(key: str, n: int) -> str:
    if key not in TARGETS_10K or n not in (10_000, 100_000):
        return ""
    unit = "MB" if key == "rss" else ("ms" if key.endswith("p99") else "s")
    if n == 100_000:
        return "≤ 1 GB" if key == "rss" else "≤ 12× the 10,000 figure"
    return f"≤ {fmt(TARGETS_10K[key], unit)}"


def median_of(runs: list[Bench]) -> Bench:
    """The first run, each of its figures replaced by the median of all the runs'."""
    first = runs[0]
    for key in first.results:
        first.results[key] = statistics.median(r.results[key] for r in runs if key in r.results)
    return first


def report(benches: list[Bench], compare: bool, info: dict[str, str]) -> str:
    runs = int(info.get("runs", "1"))
    out = [
        f"Machine: {info['cpu']}, {info['cores']} cores; Python {info['python']}; {info['date']}; "
        f"load average at start {info['load']}, at end "
        + " ".join(f"{x:.2f}" for x in os.getloadavg())
        + f"; bodies: {info.get('bodies', 'uniform')}",
        *([f"Each figure is the median of {runs} runs."] if runs > 1 else []),
        "",
    ]
    if len(benches) == 1:
        b = benches[0]
        head = ["measure", f"{b.n:,} files", "target"]
        if compare:
            head += ["rumdl", "rumdl ÷ ckp"]
        out += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for key, label, unit in ROWS:
            row = [label, fmt(b.results.get(key), unit), target_of(key, b.n)]
            if compare:
                twin = next((r for r in RUMDL_ROWS if r[1] == key), None)
                if twin is not None and twin[0] in b.results and b.results.get(key):
                    row += [fmt(b.results[twin[0]], unit), f"{b.results[twin[0]] / b.results[key]:.1f}×"]
                else:
                    row += ["", ""]
            out.append("| " + " | ".join(row) + " |")
        if compare and "rumdl_first" in b.results:
            label = next(r[2] for r in RUMDL_ROWS if r[0] == "rumdl_first")
            row = [label, "", "", fmt(b.results["rumdl_first"], "s"), ""]
            out.append("| " + " | ".join(row) + " |")
    else:
        head = ["measure", *(f"{b.n:,} files" for b in benches)]
        out += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        rows = list(ROWS)
        if compare:
            rows += [(k, label, unit) for k, _, label, unit in RUMDL_ROWS]
        for key, label, unit in rows:
            out.append("| " + " | ".join([label, *(fmt(b.results.get(key), unit) for b in benches)]) + " |")
        base = next((b for b in benches if b.n == 10_000), None)
        big = next((b for b in benches if b.n == 100_000), None)
        if base is not None and big is not None:
            growth = [
                f"{label}: {big.results[k] / base.results[k]:.1f}×"
                for k, label, _ in ROWS
                if base.results.get(k) and big.results.get(k)
            ]
            out += ["", "Growth from 10,000 to 100,000 files: " + "; ".join(growth) + "."]
    for b in benches:
        for note in b.notes:
            out.append(f"\n- {b.n:,} files: {note}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--size", type=int, default=10_000, help="files in the bank (default 10,000)")
    p.add_argument(
        "--sizes", default=None, help="comma-separated sizes for a scaling run, e.g. 100,1000,10000"
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--bodies",
        choices=BODIES,
        default="uniform",
        help="body sizes: uniform 1-3 KB (default) or real (median 5 KB, a tail to 100 KB, a few of 1 MB)",
    )
    p.add_argument("--compare", action="store_true", help="run rumdl on the same bank and print the ratios")
    p.add_argument("--no-server", action="store_true", help="only the command-line measurements")
    p.add_argument("--out", type=Path, default=None, help="also write the table to this file")
    p.add_argument("--no-cli", action="store_true", help="only the language-server measurements")
    p.add_argument("--spawn-only", action="store_true", help="of the server, measure only its start")
    p.add_argument("--requests", type=int, default=200, help="requests of each kind (default 200)")
    p.add_argument(
        "--repeat", type=int, default=1, help="run everything N times; each figure is the median of the N"
    )
    p.add_argument("--code", type=Path, default=None, help="measure the ckp_lsp of this source tree instead")
    p.add_argument(
        "--profile-server", type=Path, default=None, metavar="FILE", help="cProfile the server into FILE"
    )
    args = p.parse_args(argv)
    sizes = [int(s.replace("_", "")) for s in args.sizes.split(",")] if args.sizes else [args.size]
    measure.CODE = args.code
    if args.compare:
        ensure_rumdl()
    info = measure.machine()
    info["bodies"] = args.bodies
    benches = []
    for n in sizes:
        print(f"== {n:,} files: preparing the bank…", file=sys.stderr)
        # Resolved: the server names files by their real paths (``.banks`` may be a link).
        bank = prepare(n, args.seed, args.bodies).resolve()
        runs = []
        for run in range(max(1, args.repeat)):
            b = Bench(
                bank,
                n,
                random.Random(args.seed),
                measure.environment(),
                profile=args.profile_server,
                spawn_only=args.spawn_only,
                requests=args.requests,
            )
            what = f"== {n:,} files" + (f", run {run + 1} of {args.repeat}" if args.repeat > 1 else "")
            if not args.no_cli:
                print(f"{what}: ckp check, ckp route", file=sys.stderr)
                b.cli()
            if not args.no_server:
                print(f"{what}: ckp-lsp", file=sys.stderr)
                asyncio.run(b.server())
            if args.compare:
                print(f"{what}: rumdl", file=sys.stderr)
                b.rumdl_cli()
                if not args.no_server:
                    asyncio.run(b.rumdl_server())
            runs.append(b)
        benches.append(median_of(runs))
    info["runs"] = str(max(1, args.repeat))
    table = report(benches, args.compare, info)
    print(table)
    if args.out is not None:
        args.out.write_text(table + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
