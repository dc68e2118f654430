"""``ckp hook HOST EVENT``: what an agent host runs on every prompt (or session start).

It reads the host's hook input on stdin, finds the project's bank, routes the prompt as
``ckp route`` does and prints the host's output: the declaration line and the files within
``--max-chars``. Out of domain it prints nothing. A hook must never block the user's prompt: on
any error it prints nothing on stdout, one line on stderr, and exits 0.

Only what routing needs is imported (this runs before every prompt).
"""

from __future__ import annotations

import gc
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .quick_args import Option, Quick

if TYPE_CHECKING:
    import argparse

    from ckp_lsp.core.agent.hooks import HookInput
    from ckp_lsp.core.bank.bank import Bank

#: where a project keeps its bank by convention, looked at before the project is searched
_USUAL = ("memory-bank", ".memory-bank", ".claude/memory", "memory")


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "hook",
        help="the prompt hook an agent host runs: prints the memory a prompt needs (ckp hooks install sets it up)",
    )
    p.add_argument("host", metavar="HOST", help="claude-code, codex, cline, cursor or copilot")
    p.add_argument("event", metavar="EVENT", help="the host's event, e.g. UserPromptSubmit, SessionStart")
    p.add_argument(
        "--bank",
        type=Path,
        default=None,
        metavar="DIR",
        help="the bank, relative to the project (default: the project's bank, found as ckp init finds it)",
    )
    p.add_argument(
        "--max-chars",
        type=int,
        default=None,
        metavar="N",
        help="the most characters added to the prompt (default 10,000; 2,000 at a session's start)",
    )
    p.set_defaults(run=run)


#: the arguments ``add_parser`` declares, as ``cli.main`` reads them without argparse
QUICK = Quick(
    (("host", str), ("event", str)),
    {"--bank": Option("bank", Path), "--max-chars": Option("max_chars", int)},
)


def run(args: argparse.Namespace) -> int:
    try:
        out = answer(args, sys.stdin.buffer.read, os.environ)
    except Exception as exc:  # a hook never blocks a prompt: one line, and the prompt goes on
        from ckp_lsp.core.agent.hooks import HookError

        why = str(exc) if isinstance(exc, (HookError, OSError)) else f"{type(exc).__name__}: {exc}"
        print(f"ckp hook: {' '.join(why.split()) or type(exc).__name__}", file=sys.stderr)
        return 0
    if out:
        sys.stdout.write(out)
        sys.stdout.flush()
    return 0


def answer(args: argparse.Namespace, read: Any, env: os._Environ[str] | dict[str, str]) -> str:
    """What the hook prints for the input ``read()`` gives."""
    from ckp_lsp.core.agent.agent_text import for_agent
    from ckp_lsp.core.agent.hooks import (
        DEFAULT_MAX_CHARS,
        MAX_INPUT,
        ROUTED_PROMPT_CHARS,
        SESSION,
        HookError,
        kind_of,
        parse_input,
        render,
    )

    kind_of(args.host, args.event)  # an event that cannot add context is said before stdin is read
    data = read(MAX_INPUT + 1)
    if len(data) > MAX_INPUT:
        raise HookError(f"the hook input is over {MAX_INPUT >> 20} MB")
    try:
        raw = data.decode("utf-8")
    except UnicodeDecodeError:
        raise HookError("the hook input is not UTF-8") from None
    inp = parse_input(args.host, args.event, raw)
    project = _project(inp, env)
    root = _bank_root(project, args.bank)
    label = _label(root, project)
    if inp.kind == SESSION:
        from ckp_lsp.core.agent.hooks import SUMMARY_MAX_CHARS
        from ckp_lsp.core.agent.memory_text import session_summary

        bank = _read_bank(root)
        _compiled(any(kf.concept for kf in bank.files.values()), label or str(root))
        limit = args.max_chars if args.max_chars is not None else SUMMARY_MAX_CHARS
        return render(args.host, args.event, for_agent(session_summary(bank, label, limit)))
    from ckp_lsp.core.agent.memory_text import prompt_context

    from ..core.routing.snapshot import ranked_router
    from .lazy_bank import read_headers

    gc.disable()  # a one-shot process: the collector would only walk the bank's objects
    router = ranked_router(root, load=read_headers)
    _compiled(any(router.table.concepts), label or str(root))
    result = router.route(inp.prompt[:ROUTED_PROMPT_CHARS])
    if result.out_of_domain:
        return ""
    texts = _texts(root, [e.file for e in result.loaded])
    limit = args.max_chars if args.max_chars is not None else DEFAULT_MAX_CHARS
    context, _ = prompt_context(result, texts, label, limit)
    return render(args.host, args.event, for_agent(context))


def _compiled(compiled: bool, label: str) -> None:
    """Nothing can match a bank without headers: say so rather than stay silent."""
    if not compiled:
        from ckp_lsp.core.agent.hooks import HookError

        raise HookError(f"{label} is not compiled: run `ckp compile --all {label}`")


def _project(inp: HookInput, env: Any) -> Path:
    """The project folder: the one the host names (``CLAUDE_PROJECT_DIR``, the input's ``cwd`` or
    workspace roots), else the folder the hook runs in."""
    named = env.get("CLAUDE_PROJECT_DIR") if inp.host == "claude-code" else None
    for folder in [named, *inp.folders, os.getcwd()]:
        if folder and os.path.isdir(folder):
            return Path(folder)
    from ckp_lsp.core.agent.hooks import HookError

    raise HookError("no project folder: the host named none that exists")


def _bank_root(project: Path, bank: Path | None) -> Path:
    from ckp_lsp.core.agent.hooks import HookError
    from ckp_lsp.core.project.discovery import is_bank_root
    from ckp_lsp.core.project.within import escape, inside

    home = project
    if bank is not None:
        home, root = (project, bank) if bank.is_absolute() else _above(project, bank)
        if not root.is_dir():
            raise HookError(f"{root}: no such bank folder")
    else:
        from ckp_lsp.core.project.config import banks_named_in

        usual = [project / n for n in _USUAL]
        near = next((c for c in [*banks_named_in(project), *usual] if c.is_dir() and is_bank_root(c)), None)
        if near is None:
            from ckp_lsp.core.project.discovery import find_banks

            found = find_banks([project])
            if not found:
                raise HookError(f"no memory bank in {project}")
            near = found[0]
        root = near
    # A link out of the project: what it leads to is not this project's memory (and its cache
    # would be written there). An absolute --bank is the user's own choice of folder, its links
    # judged against the project holding them.
    why = escape(root, home)
    if why is not None:
        raise HookError(why)
    if (bank is None or not bank.is_absolute()) and not inside(root, home):
        raise HookError(f"{root} leads outside the project (to {os.path.realpath(root)}): not read")
    return root


def _above(project: Path, bank: Path) -> tuple[Path, Path]:
    """(folder, ``bank`` below it): below ``project``, or below the nearest folder above it that
    holds it, up to the project's root (a host started in a sub-folder names that folder); never
    above the project's root, nor in ``/``, the home or the temporary folder."""
    from ckp_lsp.core.project.discovery import never_banks, project_root

    start = Path(os.path.abspath(project))
    top = project_root(start)
    if top is not None:
        never = never_banks(start)
        for folder in (start, *start.parents):
            if folder in never:
                break
            if (folder / bank).is_dir():
                return folder, folder / bank
            if folder == top:
                break
    return project, project / bank


def _label(root: Path, project: Path) -> str:
    """The bank's folder as the agent names it: relative to the project when inside it."""
    try:
        rel = root.relative_to(project).as_posix()
        return "" if rel == "." else rel
    except ValueError:
        return root.as_posix()


def _read_bank(root: Path) -> Bank:
    """The bank, through its cache (the files unchanged since the last reading are not read)."""
    from ckp_lsp.core.bank.cache import FileCache
    from ckp_lsp.core.project.config import config_for_bank

    from .lazy_bank import read_headers

    gc.disable()  # a one-shot process: the collector would only walk the bank's objects
    return read_headers(root, config_for_bank(root), FileCache.for_bank(root))


def _texts(root: Path, files: list[str]) -> dict[str, str]:
    """The loaded files' text; one that cannot be read is left out (the budget names it)."""
    from ckp_lsp.core.project.within import Folder

    out = {}
    disk = Folder(root)
    for rel in files:
        try:
            out[rel] = disk.read(root / rel).text
        except OSError:
            continue
    return out
