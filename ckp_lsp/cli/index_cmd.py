"""``ckp index``: write ``_index.md`` (or check that it is current)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..core.index import ADDED_SECTION, adds_section, update_index_text, write_index
from ..core.writes import WriteRefused
from ..faces.banks import read_bank
from .output import bank_root, display_path


def add_parser(sub: Any) -> None:
    p = sub.add_parser("index", help="regenerate a bank's _index.md (everything outside the markers is kept)")
    p.add_argument("bank", type=Path, metavar="BANK")
    p.add_argument("--check", action="store_true", help="exit 1 when the index is out of date; write nothing")
    p.add_argument("--format", choices=("table", "blocks", "compact"), default=None)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    root = bank_root(args.bank)
    if root is None:
        return 2
    bank = read_bank(root)
    for rel, why in sorted(bank.unreadable.items()):
        print(f"ckp: {root / rel}: skipped ({why})", file=sys.stderr)
    new = update_index_text(bank.index_text, bank, args.format)
    where = display_path(bank.index_path)
    if new == bank.index_text:
        print(f"{where} is up to date ({len(bank.by_concept)} concepts).")
        return 0
    if args.check:
        print(f"{where} is out of date: run `ckp index {display_path(root)}`.")
        return 1
    try:
        write_index(bank, new)
    except WriteRefused as exc:
        print(f"ckp: {exc}", file=sys.stderr)
        return 1
    added = f": {ADDED_SECTION}" if adds_section(bank.index_text) else ""
    print(f"Wrote {where}{added} ({len(bank.by_concept)} concepts).")
    if bank.files and not bank.by_concept:
        print(
            f"ckp: none of the {len(bank.files)} knowledge files has a CKP header yet, so the index lists "
            f"nothing: run `ckp compile --all {display_path(root)}`, then `ckp index` again",
            file=sys.stderr,
        )
    return 0
