"""``ckp init``: start a bank for a project, and give its agent the rules to use it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .output import display_path


def add_parser(sub: Any) -> None:
    p = sub.add_parser("init", help="create memory-bank/ with a knowledge file describing the project")
    p.add_argument("project", type=Path, nargs="?", default=Path("."), metavar="PROJECT_DIR")
    p.add_argument(
        "--bank-dir", type=Path, default=None, metavar="DIR", help="default: PROJECT_DIR/memory-bank"
    )
    p.add_argument(
        "--agent-file",
        type=Path,
        default=None,
        metavar="FILE",
        help="add the agent rules to FILE (AGENT.md, CLAUDE.md, GEMINI.md) between ckp:rules markers",
    )
    p.set_defaults(run=run)


def _bank_name(bank: Path, project: Path) -> str:
    """How the rules name the bank: relative to the project when it lies inside it, else absolute."""
    bank, project = bank.resolve(), project.resolve()
    return bank.relative_to(project).as_posix() if bank.is_relative_to(project) else bank.as_posix()


def run(args: argparse.Namespace) -> int:
    from ..core.init import InitError, add_rules, agent_rules, init_bank
    from ..core.writes import WriteRefused

    # What could not be written is said per file, never a traceback.
    failed = (InitError, WriteRefused, OSError)

    bank_dir = args.bank_dir if args.bank_dir is not None else args.project / "memory-bank"
    status = 0
    try:
        result = init_bank(args.project, bank_dir)
    except failed as exc:
        # Nothing was written; the agent file below is still brought up to date.
        print(f"ckp: {exc}", file=sys.stderr)
        status = 1
    else:
        print(f"Created {display_path(result.file)} (CONCEPT {result.concept}).")
        if result.index_written:
            print(f"Wrote {display_path(result.bank / '_index.md')}.")
    rules = agent_rules(_bank_name(bank_dir, args.project))
    if args.agent_file is None:
        if status == 0:
            print(
                "\nAdd these rules to AGENT.md, CLAUDE.md or GEMINI.md (or run again with --agent-file FILE):\n"
            )
            print(rules)
        return status
    try:
        changed = add_rules(args.agent_file, rules)
    except failed as exc:
        print(f"ckp: {exc}", file=sys.stderr)
        return 1
    where = display_path(args.agent_file)
    print(f"Added the CKP rules to {where}." if changed else f"{where} already holds the current CKP rules.")
    return status
