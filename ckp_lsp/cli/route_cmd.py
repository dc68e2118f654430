"""``ckp route``: which files an agent following the pattern loads for a query, and why."""

from __future__ import annotations

import gc
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..faces.paths import display_path
from .output import bank_here, bank_root
from .quick_args import Option, Quick

if TYPE_CHECKING:
    import argparse

    from ..core.routing.result import RouteResult, RouteTokens


def add_parser(sub: Any) -> None:
    p = sub.add_parser("route", help="show which files a query loads (SPEC §6) and the tokens it costs")
    p.add_argument(
        "bank",
        type=Path,
        nargs="?",
        metavar="BANK",
        help="the bank (default: the bank of the working folder, as ckp check finds it: the bank it is in, the one below it, or the one of its project)",
    )
    p.add_argument("query", metavar="QUERY")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument(
        "--mode",
        choices=("ranked", "index"),
        default="ranked",
        help="ranked: every file ranked by the query's words (the default, what the tools use); "
        "index: what an agent reading only _index.md loads",
    )
    p.add_argument(
        "--max-tokens",
        type=int,
        default=None,
        metavar="N",
        help="give the loaded files within N tokens: primaries first, then relationships; a file that "
        "does not fit comes as its TLDR and the sections whose headings match the query",
    )
    p.set_defaults(run=run)


#: the arguments ``add_parser`` declares, as ``cli.main`` reads them without argparse
QUICK = Quick(
    (("bank", Path), ("query", str)),
    {
        "--format": Option("format", str, ("text", "json"), "text"),
        "--mode": Option("mode", str, ("ranked", "index"), "ranked"),
        "--max-tokens": Option("max_tokens", int),
    },
    optional=1,
)


def run(args: argparse.Namespace) -> int:
    # Imported when the command runs: `ckp --help`, which lists every command, stays quick.
    from ckp_lsp.core.project.config import config_for_bank

    from ..core.routing.result import describe
    from ..core.routing.snapshot import index_router, ranked_router
    from .lazy_bank import read_headers

    root = bank_root(args.bank) if args.bank is not None else bank_here("ckp route BANK QUERY")
    if root is None:
        return 2
    # Reading a large bank allocates many small objects and frees none of them: the cyclic
    # garbage collector would only walk them again and again.
    collecting = gc.isenabled()
    gc.disable()
    config = config_for_bank(root)
    try:
        if args.mode == "index":
            index = index_router(root, config, load=read_headers)
            table = index.table
            result = index.route(args.query)
        else:
            ranked = ranked_router(root, config, load=read_headers)
            table = ranked.table
            result = ranked.route(args.query)
    finally:
        if collecting:
            gc.enable()
    if len(table) and not any(table.concepts):
        # Nothing can match a bank without headers: say so rather than "out of domain".
        print(
            f"ckp: {display_path(root)} is not compiled: none of its {len(table)} knowledge files has a "
            f"CKP header, so no query can match. Run `ckp compile --all {display_path(root)}` "
            f"and `ckp index {display_path(root)}` first.",
            file=sys.stderr,
        )
        return 1
    if args.max_tokens is not None:
        return _budgeted(root, result, args.max_tokens, args.format)
    if args.format == "json":
        import json

        print(json.dumps(result.as_dict(), indent=2, ensure_ascii=False))
        return 0
    print(result.declaration)
    width = max((len(e.file) for e in result.loaded), default=0)
    for e in result.loaded:
        flag = f", over the budget of {result.file_budget_tokens:,} for one file" if e.over_budget else ""
        print(f"  {e.file:<{width}}  {describe(e)}  (~{e.tokens:,} tokens{flag})")
    if result.matched_not_loaded:
        shown = ", ".join(
            f"{e.concept or e.file} ({e.relevance:.1f})" if e.relevance else f"{e.concept} ({e.score})"
            for e in result.matched_not_loaded[:5]
        )
        more = len(result.matched_not_loaded) - 5
        print(f"Also matched, not loaded: {shown}" + (f" and {more} more" if more > 0 else ""))
    print(_cost_line(result.tokens))
    return 0


def _budgeted(root: Path, result: RouteResult, max_tokens: int, form: str) -> int:
    """The route within ``max_tokens`` tokens of file text (the rule of ``core.routing.budget``)."""
    from ckp_lsp.core.format.fields import token_estimate
    from ckp_lsp.core.project.within import Folder
    from ckp_lsp.core.routing.budget import declaration, fit, tokens_to_chars

    if max_tokens < 1:
        print("ckp: --max-tokens must be at least 1", file=sys.stderr)
        return 2
    texts = {}
    disk = Folder(root)
    for e in result.loaded:
        try:
            texts[e.file] = disk.read(root / e.file).text
        except OSError:
            continue  # left out, and named so
    b = fit(result, texts, tokens_to_chars(max_tokens))
    line = declaration(result, b)
    if form == "json":
        import json

        value = result.as_dict()
        value["declaration"] = line
        value["budget"] = b.as_dict()
        print(json.dumps(value, indent=2, ensure_ascii=False))
        return 0
    print(line)
    for g in b.given:
        what = (
            "whole"
            if g.part == "whole"
            else "TLDR and "
            + (f"sections {', '.join(repr(h) for h in g.sections)}" if g.sections else "no section")
        )
        print(f"  {g.file}  {what}  (~{token_estimate(len(g.text)):,} tokens)")
    for e in b.dropped:
        print(f"  {e.file}  left out: not even its TLDR fits")
    print(f"Budget: ~{token_estimate(b.used_chars):,} of {max_tokens:,} tokens given.")
    return 0


def _cost_line(t: RouteTokens) -> str:
    return (
        f"Tokens: {t.with_ckp:,} with CKP (index {t.index:,} + loaded {t.loaded:,}), "
        f"{t.without_ckp:,} without: "
        + (f"{t.reduction:.0%} less." if t.reduction >= 0 else f"{-t.reduction:.0%} more.")
    )
