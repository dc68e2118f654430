"""``ckp``: the command line over the core."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any

from .. import __version__

if TYPE_CHECKING:
    import argparse

#: The command modules of this package, each with ``add_parser(sub)`` and ``run(args)``; module
#: ``x_y_cmd`` (or ``x_y``) registers command ``x-y``. Only the module of the command being run
#: is imported, so a command starts as fast as its own imports (``ckp route`` on a large bank).
COMMANDS = [
    "check",
    "fix_cmd",
    "index_cmd",
    "compile_cmd",
    "route_cmd",
    "bench_cmd",
    "graph_cmd",
    "init_cmd",
    "agent_rules_cmd",
    "mcp_cmd",
    "trust_cmd",
    "hook_cmd",
    "hooks_cmd",
    "diff_cmd",
]


def command_name(module: str) -> str:
    """The command a module registers: ``agent_rules_cmd`` -> ``agent-rules``."""
    return module.removesuffix("_cmd").replace("_", "-")


def _modules(argv: Sequence[str]) -> list[ModuleType]:
    """The command modules to register: the one ``argv`` names, or all of them (help, a typo)."""
    wanted = next((a for a in argv if not a.startswith("-")), None)
    names = [m for m in COMMANDS if command_name(m) == wanted] or COMMANDS
    return [importlib.import_module(f"{__package__}.{m}") for m in names]


def parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    return _parsers(argv)[0]


def _parsers(argv: Sequence[str]) -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The ``ckp`` parser and each command's own."""
    import argparse

    p = argparse.ArgumentParser(prog="ckp", description="Check, index, route and compile CKP memory banks.")
    p.add_argument("--version", action="version", version=f"ckp {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    for module in _modules(argv):
        module.add_parser(sub)
    return p, sub.choices


#: commands with a positional that may be left out before a required one (``ckp route [BANK]
#: QUERY``): argparse's ``parse_args`` would give a positional after an option to the first one
#: (``route BANK --max-tokens 12 QUERY``), so their own parser reads them intermixed
INTERMIXED = ("route",)


def parse(argv: Sequence[str]) -> argparse.Namespace:
    """``argv`` read by argparse (its messages and ``--help`` printed, ``SystemExit`` on either)."""
    p, commands = _parsers(argv)
    if argv and argv[0] in INTERMIXED and argv[0] in commands:
        import argparse

        return commands[argv[0]].parse_intermixed_args(argv[1:], argparse.Namespace(command=argv[0]))
    return p.parse_args(argv)


#: commands a process runs once and ends: the collector stays off from the start (what their
#: imports and routing make lives until the process ends; collecting would only walk it)
ONE_SHOT = ("hook", "route")


def _quick(argv: list[str]) -> Any:
    """A one-shot command's arguments in their plain form, read without argparse (see
    ``quick_args``); None for any other command line."""
    if not argv or argv[0] not in ONE_SHOT:
        return None
    from .quick_args import quick_args

    (module,) = _modules(argv[:1])
    return quick_args(argv[0], argv[1:], module.QUICK, module.run)


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None and len(sys.argv) > 1 and sys.argv[1] in ONE_SHOT:
        import gc

        gc.disable()
    from .output import Shown

    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = Shown(out), Shown(err)
    try:
        return _main(argv)
    finally:
        sys.stdout, sys.stderr = out, err


def _main(argv: Sequence[str] | None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = _quick(argv)
    if args is None:
        args = parse(argv)
        if not getattr(args, "run", None):
            parser(argv).print_help(sys.stderr)
            return 2
    try:
        return int(args.run(args))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
