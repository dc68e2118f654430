"""``ckp graph``: the relationships of a bank as a Mermaid or Graphviz graph."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .output import bank_root


def add_parser(sub: Any) -> None:
    p = sub.add_parser("graph", help="print the relationship graph (HIGH solid, MID dashed, stale red)")
    p.add_argument("bank", type=Path, metavar="BANK")
    p.add_argument("--format", choices=("mermaid", "dot"), default="mermaid")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ckp_lsp.core.navigation.graph import build_graph, to_dot, to_mermaid

    from ..faces.banks import read_bank

    root = bank_root(args.bank)
    if root is None:
        return 2
    graph = build_graph(read_bank(root))
    sys.stdout.write(to_dot(graph) if args.format == "dot" else to_mermaid(graph))
    return 0
