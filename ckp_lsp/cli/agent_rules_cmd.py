"""``ckp agent-rules``: print the rules an agent follows to use a bank (for AGENT.md, CLAUDE.md, GEMINI.md)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def add_parser(sub: Any) -> None:
    p = sub.add_parser("agent-rules", help="print the rules an agent follows to use a bank")
    p.add_argument("--bank-dir", type=Path, default=Path("memory-bank"), metavar="DIR")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..core.init import agent_rules

    print(agent_rules(args.bank_dir.as_posix()))
    return 0
