"""``ckp fix``: apply the safe quick fixes on disk, like ``ruff --fix``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ckp_lsp.core.bank.checks import check_file
from ckp_lsp.core.edit.fixes import fix_text
from ckp_lsp.core.format.index import ADDED_SECTION, adds_section, update_index_text
from ckp_lsp.core.project.workspace import resolve_targets

from ..faces.banks import loader, read_file, write_file, write_index
from ..faces.clock import today
from ..faces.paths import display_path
from .check import named_knowledge_files
from .output import print_diff


def add_parser(sub: Any) -> None:
    p = sub.add_parser("fix", help="apply the safe quick fixes (and regenerate a drifted index) on disk")
    p.add_argument("paths", nargs="*", type=Path, default=[Path(".")], metavar="PATH")
    p.add_argument("--diff", action="store_true", help="show the changes instead of writing them")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    targets = resolve_targets(args.paths, load=loader(today()))
    seen = set(targets.problems)
    config = [p for t in targets.targets for p in t.bank.config.problems if p not in seen]
    skipped = [
        f"{t.root / rel}: skipped ({why})"
        for t in targets.targets
        for rel, why in sorted(t.bank.unreadable.items())
    ]
    for problem in dict.fromkeys([*targets.problems, *config, *skipped]):
        print(f"ckp: {problem}", file=sys.stderr)
    if not targets.targets:
        print("ckp: nothing to fix", file=sys.stderr)
        return 2
    fixed = files = refused = 0
    for t in targets.targets:
        bank = t.bank
        notes: list[str] = []  # files named that are no knowledge files: never rewritten
        rels = (
            sorted(bank.files)
            if t.files is None
            else named_knowledge_files(bank, t.files, notes, "not fixed")
        )
        for note in notes:
            print(f"ckp: {note}", file=sys.stderr)
        for rel in rels:
            path = bank.root / rel
            try:
                text, bom = read_file(bank, rel)
            except FileNotFoundError:
                continue  # deleted since the bank was read: nothing to fix
            except OSError as exc:
                refused += 1
                print(f"ckp: {path}: cannot be read ({exc.strerror or exc})", file=sys.stderr)
                continue
            new, count = fix_text(bank, rel, text)
            if not count:
                continue
            if args.diff:
                print_diff(path, text, new)
            else:
                written = write_file(bank, rel, new, expected=text, bom=bom, take=False)
                if not written.ok:
                    refused += 1
                    print(f"ckp: {written.refused}", file=sys.stderr)
                    continue
            bank.set_file(
                rel, new, on_disk=not args.diff
            )  # with --diff too: the findings counted after are those of the fixes
            fixed += count
            files += 1
        if t.with_index:
            old_index = bank.index_text
            new_index = update_index_text(old_index, bank)
            if new_index != bank.index_text:
                if args.diff:
                    print_diff(bank.index_path, bank.index_text or "", new_index)
                else:
                    index = write_index(bank, new_index)
                    if index is not None and not index.ok:
                        refused += 1
                        print(f"ckp: {index.refused}", file=sys.stderr)
                        continue
                    if adds_section(old_index):
                        print(f"{display_path(bank.index_path)}: {ADDED_SECTION}.", file=sys.stderr)
                bank.index_text = new_index
                fixed += 1
                files += 1
    remaining = sum(len(check_file(t.bank, rel)) for t in targets.targets for rel in t.bank.files)
    verb = "Would fix" if args.diff else "Fixed"
    print(
        f"{verb} {fixed} finding(s) in {files} file(s); {remaining} remaining (run `ckp check`).",
        file=sys.stderr,
    )
    return 1 if refused else 0
