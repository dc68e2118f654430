"""``ckp``: the command line over the core."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .. import __version__
from . import check, index_cmd

COMMANDS = [check, index_cmd]


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="ckp", description="Check, index, route and compile CKP memory banks.")
    p.add_argument("--version", action="version", version=f"ckp {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    for module in COMMANDS:
        module.add_parser(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    p = parser()
    args = p.parse_args(argv)
    if not getattr(args, "run", None):
        p.print_help(sys.stderr)
        return 2
    try:
        return int(args.run(args))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
