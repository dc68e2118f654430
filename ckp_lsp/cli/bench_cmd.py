"""``ckp bench``: route a file of queries, check their expectations and show the token saving."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..faces.paths import display_path
from .output import bank_root

if TYPE_CHECKING:
    from ckp_lsp.core.routing.bench import BenchReport


def add_parser(sub: Any) -> None:
    p = sub.add_parser("bench", help="route a file of queries: expectations met, tokens with and without CKP")
    p.add_argument("bank", type=Path, metavar="BANK")
    p.add_argument("--queries", type=Path, required=True, metavar="FILE", help="YAML or JSON list of queries")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument(
        "--sizes",
        type=_sizes,
        default=(),
        metavar="N,N,...",
        help="also measure growing subsets of the bank of these many files (e.g. 3,11,30)",
    )
    p.add_argument(
        "--index-format",
        choices=("table", "blocks", "compact"),
        default=None,
        help="measure with the index `ckp index` writes in this form (default: the bank's own _index.md)",
    )
    p.add_argument(
        "--mode",
        choices=("ranked", "index"),
        default="ranked",
        help="the router whose expectations are checked (both are measured): ranked (the default, "
        "what the tools use) or index (what an agent reading only _index.md loads)",
    )
    p.set_defaults(run=run)


def _sizes(value: str) -> tuple[int, ...]:
    try:
        sizes = tuple(int(v) for v in value.split(",") if v.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{value}' is not a comma-separated list of numbers") from None
    if not sizes or min(sizes) < 1:
        raise argparse.ArgumentTypeError("sizes are whole numbers of at least 1")
    return sizes


def run(args: argparse.Namespace) -> int:
    from ckp_lsp.core.routing.bench import BenchError, load_queries, run_bench

    from ..faces.banks import read_bank

    root = bank_root(args.bank)
    if root is None:
        return 2
    try:
        queries = load_queries(args.queries)
    except BenchError as exc:
        print(f"ckp: {exc}", file=sys.stderr)
        return 2
    report = run_bench(
        read_bank(root),
        queries,
        args.sizes,
        args.index_format,
        args.mode,
    )
    for n in report.skipped_sizes:
        print(f"ckp: --sizes {n}: the bank has {report.files} files, size skipped", file=sys.stderr)
    if args.format == "json":
        print(json.dumps(report.as_dict(), indent=2, ensure_ascii=False))
    else:
        _print_text(report, display_path(root))
    return 0 if report.ok else 1


def _print_text(report: BenchReport, where: str) -> None:
    from ckp_lsp.core.routing.bench import MODES, tool_tokens

    print(
        f"{where}: {report.files} knowledge files, {len(report.outcomes)} queries, checked against {report.mode}\n"
    )
    for n, o in enumerate(report.outcomes, 1):
        t = o.result.tokens
        print(f"{n:>2}. {o.query.text}")
        print(f"    {o.result.declaration}")
        verdict = "ok" if o.ok else "FAILED"
        found = "; ".join(
            _found(m, o.measures[m].found, o.measures[m].peer_found, len(o.measures[m].loaded)) for m in MODES
        )
        print(f"    {found}")
        print(
            f"    {t.without_ckp:,} tokens without CKP, {t.with_ckp:,} with the index ({t.reduction:.0%} less), "
            f"{tool_tokens(o.result):,} through ckp_route: {verdict}"
        )
        for why in o.failures:
            print(f"    - {why}")
    print()
    print(
        "| Router | Recall | BM25 at the same files | Mean files | ≤ 4 files | In domain, loaded nothing | Out of domain, loaded something |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for m in MODES:
        f = report.figures(m)
        print(
            f"| {m} | {f['found']}/{f['questions']} ({f['recall']:.0%}) | {f['peer_found']}/{f['questions']} "
            f"({f['peer_recall']:.0%}) | {f['mean_files']:.1f} | {f['within_4_files']}/{f['in_domain']} "
            f"| {f['in_domain_loaded_nothing']}/{f['in_domain']} | {f['out_of_domain_loaded_something']}/{f['out_of_domain']} |"
        )
    print(
        "\nRecall: the questions that loaded every must_load file. BM25: plain Okapi BM25 over the files' "
        "raw text, given as many files as the router loaded."
    )
    print()
    print("| Files | Without CKP | With the index | Through ckp_route, no index |")
    print("|---:|---:|---:|---:|")
    for row in report.sizes:
        print(
            f"| {row.files} | {row.without_ckp:,} | {_share(row.with_ckp, row.reduction)} "
            f"| {_share(row.with_tool, row.tool_reduction)} |"
        )
    print(
        "\nTokens, mean per query. Without CKP: every knowledge file. With the index: _index.md "
        f"({report.index_format}) and the loaded files.\nThrough ckp_route (`ckp mcp`): the tool call, "
        "its answer and the loaded files; the index stays out of the agent's context."
    )
    loaded, expected = report.must_load
    misses = len(report.misses)
    print(
        f"Routing ({report.mode}): {report.passed}/{len(report.outcomes)} queries meet their expectations; "
        f"recall {report.recall:.0%} ({loaded}/{expected} must-load files); "
        f"{report.found_reduction:.0%} fewer tokens with the index over the {report.passed} queries routed correctly, "
        f"{misses} missed a file (a miss saves nothing)."
    )


def _found(mode: str, found: bool | None, peer: bool | None, files: int) -> str:
    if found is None:
        return f"{mode}: {files} file(s)"
    return f"{mode}: {files} file(s), {'found' if found else 'MISSED'} (BM25 {'found' if peer else 'missed'})"


def _share(tokens: int, reduction: float) -> str:
    return f"{tokens:,} ({reduction:.0%} less)" if reduction >= 0 else f"{tokens:,} ({-reduction:.0%} more)"
