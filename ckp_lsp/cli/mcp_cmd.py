"""``ckp mcp``: serve the banks under a folder to an agent host over the Model Context Protocol (stdio)."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from typing import Any

#: what ``ckp mcp`` says when the SDK is not installed
MISSING_SDK = (
    "ckp mcp needs the MCP Python SDK, an optional dependency: pip install 'ckp-lsp[mcp]' "
    "(or: pip install 'mcp>=2.3,<2.4')"
)


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "mcp", help="serve the banks to an agent host (Claude Code, Cursor, VS Code, Cline) as MCP tools"
    )
    p.add_argument("path", type=Path, nargs="?", default=Path("."), metavar="PATH", help="default: .")
    p.add_argument(
        "--read-only", action="store_true", help="leave out the tools that write (ckp_compile, ckp_index)"
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if importlib.util.find_spec("mcp") is None:
        print(f"ckp: {MISSING_SDK}", file=sys.stderr)
        return 2
    if not args.path.is_dir():
        print(f"ckp: {args.path}: no such folder", file=sys.stderr)
        return 2
    from ckp_lsp.core.project.within import escape

    why = escape(args.path, Path.cwd())
    if why is not None:
        print(f"ckp: {why}", file=sys.stderr)
        return 2
    from ..mcp.server import run as serve

    serve(args.path, args.read_only)
    return 0
