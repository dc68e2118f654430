"""``ckp hooks install|remove HOST [PROJECT]``: set up (or take down) a host's prompt hook.

The host's configuration is merged, never replaced: every other setting and hook stays, ours is
written once however often this runs. Files are written atomically, only inside the project, and
never through a symbolic link that leads out of it. ``--print`` shows what would be written.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from ..faces.paths import display_path


def add_parser(sub: Any) -> None:
    p = sub.add_parser("hooks", help="install or remove an agent host's prompt hook (ckp hook)")
    p.add_argument("action", choices=("install", "remove"), metavar="ACTION", help="install or remove")
    p.add_argument("host", metavar="HOST", help="claude-code, codex, cline, cursor or copilot")
    p.add_argument("project", type=Path, nargs="?", default=Path("."), metavar="PROJECT_DIR")
    add_options(p)
    p.set_defaults(run=run)


def add_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--print", action="store_true", help="show what would be written, write nothing")
    p.add_argument(
        "--program",
        default="ckp",
        metavar="PATH",
        help="the ckp the host runs (default: ckp, found on the host's PATH)",
    )


def run(args: argparse.Namespace) -> int:
    from ckp_lsp.core.project.hook_config import HOSTS

    if args.host not in HOSTS:
        print(f"ckp: unknown host {args.host!r}: one of {', '.join(HOSTS)}", file=sys.stderr)
        return 2
    if not args.project.is_dir():
        print(f"ckp: {args.project}: no such folder", file=sys.stderr)
        return 2
    if args.action == "remove":
        return remove(args.host, args.project, args.print)
    return install(args.host, args.project, None, args.print, args.program)


def _bank_option(project: Path, bank: Path | None) -> str | None:
    """How the hook names the bank: relative to the project (None: the hook finds it)."""
    if bank is None:
        from ckp_lsp.core.project.init import existing_bank

        bank = existing_bank(project)
        if bank is None:
            return None
    real, root = bank.resolve(), project.resolve()
    return real.relative_to(root).as_posix() if real.is_relative_to(root) else real.as_posix()


def _current(project: Path, paths: list[str]) -> tuple[dict[str, str | None], list[str]]:
    """The texts of the host's files now, and why some cannot be used."""
    from ckp_lsp.core.project.within import inside, read_inside

    texts: dict[str, str | None] = {}
    refused = []
    for rel in paths:
        path = project / rel
        if not inside(path, project):
            refused.append(f"{rel} leads outside the project (to {os.path.realpath(path)}): left as it is")
            continue
        if not path.exists():
            texts[rel] = None
            continue
        if not path.is_file():
            refused.append(f"{rel} is not a regular file: left as it is")
            continue
        try:
            texts[rel] = read_inside(path, project).text
        except OSError as exc:
            refused.append(f"{rel} cannot be read ({exc.strerror or exc}): left as it is")
    return texts, refused


def install(host: str, project: Path, bank: Path | None, show: bool, program: str = "ckp") -> int:
    """Install ``host``'s hook in ``project`` (the bank: ``bank``, else the project's own)."""
    from ckp_lsp.core.project.hook_config import ConfigError, files_of, planned

    texts, refused = _current(project, files_of(host))
    try:
        plans, kept = planned(host, texts, _bank_option(project, bank), program)
    except ConfigError as exc:
        print(f"ckp: {exc}", file=sys.stderr)
        return 1
    plans = [p for p in plans if p.path in texts]
    status = _apply(project, plans, show)
    for why in [*refused, *kept]:
        print(f"ckp: {why}", file=sys.stderr)
    if not show and status == 0:
        print(_after(host))
    return status or (1 if refused else 0)


def remove(host: str, project: Path, show: bool) -> int:
    from ckp_lsp.core.project.hook_config import ConfigError, files_of, removal

    texts, refused = _current(project, files_of(host))
    try:
        plans = removal(host, texts)
    except ConfigError as exc:
        print(f"ckp: {exc}", file=sys.stderr)
        return 1
    status = _apply(project, plans, show)
    for why in refused:
        print(f"ckp: {why}", file=sys.stderr)
    return status or (1 if refused else 0)


def _apply(project: Path, plans: list[Any], show: bool) -> int:
    from ckp_lsp.core.edit.writes import WriteRefused, remove, write_atomic
    from ckp_lsp.core.project.within import inside

    status = 0
    for p in plans:
        path = project / p.path
        where = display_path(path)
        if show:
            print(f"--- {where}" + ("" if p.changed else " (unchanged)"))
            print(
                p.new if p.new is not None else "(deleted)", end="" if (p.new or "").endswith("\n") else "\n"
            )
            continue
        if not p.changed:
            print(
                f"{where} already holds the ckp hook."
                if p.new is not None
                else f"{where}: no ckp hook in it."
            )
            continue
        try:
            if not inside(path, project):  # checked again: it may have become a link since it was read
                raise WriteRefused(f"{path} leads outside the project: nothing was written")
            if p.new is None:
                remove(path, within=project)
                print(f"Removed {where}.")
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            if not inside(path, project):
                raise WriteRefused(f"{path} leads outside the project: nothing was written")
            write_atomic(path, p.new, expected=p.old, new_file=p.old is None, within=project)
            if p.executable:
                mode = path.stat().st_mode
                os.chmod(path, mode | ((mode & 0o444) >> 2))  # executable by whoever may read it
        except (WriteRefused, OSError) as exc:
            print(f"ckp: {exc}", file=sys.stderr)
            status = 1
            continue
        print(f"{'Wrote' if p.old is None else 'Updated'} {where}." if p.new else f"Updated {where}.")
    return status


def _after(host: str) -> str:
    """What the user does next, host by host."""
    notes = {
        "claude-code": "Claude Code runs it on each prompt and at a session's start (see /hooks).",
        "codex": "Codex runs it on each prompt and at a session's start (hooks are on by default; "
        "`[features] hooks = true` in config.toml where they are not).",
        "cline": "Cline runs it on each prompt and at a task's start once hooks are enabled in its settings.",
        "cursor": "Cursor runs it at a session's start: its prompt hook cannot add context, so also "
        "add ckp mcp for each question.",
        "copilot": "GitHub Copilot in VS Code runs it at a session's start: its prompt hook cannot add "
        "context, so also add ckp mcp for each question.",
    }
    return (
        notes[host]
        + " Put the agent rules in the agent's file with `ckp agent-rules` (they now mention the hook)."
    )
