"""``ckp agent-rules``: print the rules an agent follows to use a bank (for AGENT.md, CLAUDE.md, GEMINI.md)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def add_parser(sub: Any) -> None:
    p = sub.add_parser("agent-rules", help="print the rules an agent follows to use a bank")
    p.add_argument("--bank-dir", type=Path, default=Path("memory-bank"), metavar="DIR")
    p.add_argument(
        "--project",
        type=Path,
        default=Path("."),
        metavar="DIR",
        help="the project whose installed prompt hooks the rules mention (default: the current folder)",
    )
    p.set_defaults(run=run)


def installed_hooks(project: Path) -> list[str]:
    """The hosts whose configuration in ``project`` runs ``ckp hook``."""
    from ckp_lsp.core.project.hook_config import HOSTS, files_of, installed
    from ckp_lsp.core.project.within import inside, read_inside

    found = []
    for host in HOSTS:
        texts: dict[str, str | None] = {}
        for rel in files_of(host):
            path = project / rel
            try:
                ok = path.is_file() and inside(path, project)
                texts[rel] = read_inside(path, project).text if ok else None
            except OSError:
                texts[rel] = None
        if installed(host, texts):
            found.append(host)
    return found


def run(args: argparse.Namespace) -> int:
    from ckp_lsp.core.project.agent_rules import agent_rules

    print(agent_rules(args.bank_dir.as_posix(), installed_hooks(args.project)))
    return 0
