"""``ckp index``: write ``_index.md`` (or check that it is current)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ckp_lsp.core.format.index import ADDED_SECTION, adds_section, update_index_text

from ..faces.banks import read_bank, write_index
from ..faces.paths import display_path
from .output import bank_here, bank_root


def add_parser(sub: Any) -> None:
    p = sub.add_parser("index", help="regenerate a bank's _index.md (everything outside the markers is kept)")
    p.add_argument(
        "bank",
        type=Path,
        nargs="?",
        metavar="BANK",
        help="default: the bank of the working folder, as ckp check finds it",
    )
    p.add_argument("--check", action="store_true", help="exit 1 when the index is out of date; write nothing")
    p.add_argument("--format", choices=("table", "blocks", "compact"), default=None)
    p.add_argument(
        "--install-merge-driver",
        action="store_true",
        help="make git merge this bank's _index.md by its rows (.gitattributes and the repository's own config)",
    )
    p.add_argument(
        "--merge-driver",
        nargs=4,
        metavar=("BASE", "OURS", "THEIRS", "PATH"),
        help="what git runs as the merge driver (%%O %%A %%B %%P): writes the merged index into OURS",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.merge_driver:
        return merge_driver(*args.merge_driver)
    root = bank_root(args.bank) if args.bank is not None else bank_here("ckp index BANK")
    if root is None:
        return 2
    if args.install_merge_driver:
        return install(root)
    bank = read_bank(root)
    for rel, why in sorted(bank.unreadable.items()):
        print(f"ckp: {root / rel}: skipped ({why})", file=sys.stderr)
    new = update_index_text(bank.index_text, bank, args.format)
    where = display_path(bank.index_path)
    if new == bank.index_text:
        print(f"{where} is up to date ({len(bank.by_concept)} concepts).")
        _over_budget(bank, new, args.format)
        return 0
    if args.check:
        print(f"{where} is out of date: run `ckp index {display_path(root)}`.")
        return 1
    added = f": {ADDED_SECTION}" if adds_section(bank.index_text) else ""
    written = write_index(bank, new)
    if written is not None and not written.ok:
        print(f"ckp: {written.refused}", file=sys.stderr)
        return 1
    print(f"Wrote {where}{added} ({len(bank.by_concept)} concepts).")
    _over_budget(bank, new, args.format)
    if bank.files and not bank.by_concept:
        print(
            f"ckp: none of the {len(bank.files)} knowledge files has a CKP header yet, so the index lists "
            f"nothing: run `ckp compile --all {display_path(root)}`, then `ckp index` again",
            file=sys.stderr,
        )
    return 0


def _over_budget(bank: Any, text: str, form: str | None) -> None:
    """Says when the index is over its budget (CKP071), and what the compact form would make it."""
    from ckp_lsp.core.bank.index_checks import over_budget
    from ckp_lsp.core.format.fields import token_estimate

    over = over_budget(bank, text)
    if over is None:
        return
    used, budget = over
    compact = ""
    if (form or bank.config.index_format) != "compact":
        smaller = token_estimate(len(update_index_text(bank.index_text, bank, "compact")))
        compact = f' (`--format compact`, or index_format = "compact" in .ckp.toml: ~{smaller:,})'
    print(
        f"ckp: {display_path(bank.index_path)} is ~{used:,} tokens, over its budget of {budget:,} (CKP071): "
        f"an agent that reads it pays that on every question{compact}; shorten TLDRs and keywords or "
        "split the bank (`ckp_route` and the prompt hooks do not put the index in context)",
        file=sys.stderr,
    )


def install(root: Path) -> int:
    """``--install-merge-driver``: idempotent; says what it did, or that all was there."""
    from ..faces.git import GitError, install_merge_driver, repository_root

    try:
        done = install_merge_driver(repository_root(root), root)
    except (GitError, OSError, ValueError) as exc:
        print(f"ckp: cannot install the merge driver for {display_path(root)}: {exc}", file=sys.stderr)
        return 1
    for line in done:
        print(f"ckp: {line}")
    if not done:
        print(f"The merge driver for {display_path(root / '_index.md')} is installed already.")
    return 0


def merge_driver(base: str, ours: str, theirs: str, path: str) -> int:
    """git's merge driver: the merged index into ``ours`` (exit 0), or git's own merge of the
    text when the rows cannot be merged so (exit 1 on a conflict; ``ckp index`` then repairs it)."""
    from ckp_lsp.core.format.index_merge import merge_index
    from ckp_lsp.core.format.text import decode

    from ..faces.git import GitError, merge_file

    try:
        texts = [decode(Path(p).read_bytes())[0] for p in (base, ours, theirs)]
        merged = merge_index(*texts)
        if merged is not None:
            with open(ours, "w", encoding="utf-8", newline="") as f:
                f.write(merged)
            return 0
        conflicts = merge_file(Path(ours), Path(base), Path(theirs))
    except (OSError, GitError) as exc:
        print(
            f"ckp: cannot merge {path}: {exc}; run `ckp index` on its bank after the merge", file=sys.stderr
        )
        return 1
    if conflicts:
        print(
            f"ckp: {path}: conflicts outside the generated rows; resolve them, then run `ckp index`",
            file=sys.stderr,
        )
    return 1 if conflicts else 0
