"""``ckp init``: start a bank for a project (or adopt the one it has), and give its agent the rules."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ckp_lsp.core.format.dates import CkpDate
from ckp_lsp.core.project.bank_names import Lookalike
from ckp_lsp.core.project.discovery import lookalike_folders

from ..faces.paths import display_path

if TYPE_CHECKING:
    from ..faces.banks import Written


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "init",
        help="create memory-bank/ with a knowledge file describing the project, or adopt the bank it has",
    )
    p.add_argument("project", type=Path, nargs="?", default=Path("."), metavar="PROJECT_DIR")
    p.add_argument(
        "--bank-dir",
        type=Path,
        default=None,
        metavar="DIR",
        help="the bank to adopt (a folder of knowledge files) or to create; default: the bank the project "
        "has (memory-bank/, memory_bank/, .claude/memory/, memory/, a folder .ckp.toml or the agent's rules "
        "name), else PROJECT_DIR/memory-bank",
    )
    p.add_argument(
        "--agent-file",
        type=Path,
        default=None,
        metavar="FILE",
        help="add the agent rules to FILE (AGENT.md, CLAUDE.md, GEMINI.md; relative to PROJECT_DIR) "
        "between ckp:rules markers",
    )
    p.add_argument(
        "--hooks",
        action="append",
        default=[],
        metavar="HOST",
        help="also install HOST's prompt hook (claude-code, codex, cline, cursor, copilot; repeatable), "
        "as `ckp hooks install HOST` does",
    )
    p.set_defaults(run=run)


def _bank_name(bank: Path, project: Path) -> str:
    """How the rules name the bank: relative to the project when it lies inside it, else absolute."""
    bank, project = bank.resolve(), project.resolve()
    return bank.relative_to(project).as_posix() if bank.is_relative_to(project) else bank.as_posix()


def run(args: argparse.Namespace) -> int:
    from ckp_lsp.core.edit.writes import WriteRefused
    from ckp_lsp.core.project.agent_rules import add_rules, agent_rules
    from ckp_lsp.core.project.init import AlreadyDone, InitError, existing_bank
    from ckp_lsp.core.project.within import escape

    from ..faces.clock import today

    # What could not be written is said for its file, never as a traceback.
    failed = (InitError, WriteRefused, OSError)

    project: Path = args.project
    if not project.is_dir():
        print(f"ckp: {project}: no such folder", file=sys.stderr)
        return 2
    bank_dir = args.bank_dir
    adopted = existing_bank(project) if bank_dir is None else None
    if bank_dir is None and adopted is None and (unrecognised := lookalike_folders(project)):
        # Never a second bank beside the one the project keeps under a name ckp does not know.
        print(_unrecognised(project, unrecognised), file=sys.stderr)
        return 1
    if bank_dir is not None and bank_dir.is_dir() and _has_knowledge(bank_dir):
        adopted = bank_dir  # `--bank-dir DIR` names a folder of knowledge files: adopt it
    why = escape(adopted or bank_dir or project / "memory-bank", project)
    if why is not None:
        print(f"ckp: {why}", file=sys.stderr)
        return 2
    status = 0
    if adopted is not None and _has_knowledge(adopted):
        # The project keeps a bank already: it gets headers and an index, and no file of ours.
        bank_dir = adopted
        try:
            status = _adopt(adopted, today())
        except failed as exc:
            print(f"ckp: {exc}", file=sys.stderr)
            status = 1
    else:
        bank_dir = bank_dir if bank_dir is not None else (adopted or project / "memory-bank")
        try:
            result = init_bank(project, bank_dir, today=today())
        except AlreadyDone as exc:
            print(f"{exc}.")
        except failed as exc:
            # Nothing was written; the agent file below is still brought up to date.
            print(f"ckp: {exc}", file=sys.stderr)
            status = 1
        else:
            print(f"Created {display_path(result.file)} (CONCEPT {result.concept}).")
            if result.index_written:
                print(f"Wrote {display_path(result.bank / '_index.md')}.")
    if not status:
        _merge_driver(project, bank_dir)
    if args.hooks:
        from ckp_lsp.core.project.hook_config import HOSTS

        from .hooks_cmd import install

        for host in args.hooks:
            if host not in HOSTS:
                print(f"ckp: unknown host {host!r}: one of {', '.join(HOSTS)}", file=sys.stderr)
                status = status or 2
                continue
            status = install(host, project, bank_dir if bank_dir.is_dir() else None, False) or status
    from .agent_rules_cmd import installed_hooks

    rules = agent_rules(_bank_name(bank_dir, project), installed_hooks(project))
    if args.agent_file is None:
        if status:
            return status
        print(
            "\nAdd these rules to AGENT.md, CLAUDE.md or GEMINI.md (or run again with --agent-file FILE):\n"
        )
        print(rules)
        return status
    agent_file = args.agent_file if args.agent_file.is_absolute() else project / args.agent_file
    try:
        changed = add_rules(agent_file, rules, project)
    except failed as exc:
        print(f"ckp: {exc}", file=sys.stderr)
        return 1
    where = display_path(agent_file)
    print(f"Added the CKP rules to {where}." if changed else f"{where} already holds the current CKP rules.")
    return status


def _merge_driver(project: Path, bank: Path) -> None:
    """In a git repository, git merges the bank's ``_index.md`` by its rows from now on."""
    from ..faces.git import GitError, install_merge_driver, repository_root

    here = project.resolve()
    if not any((p / ".git").exists() for p in (here, *here.parents)):
        return
    try:
        done = install_merge_driver(repository_root(here), bank)
    except (GitError, OSError, ValueError) as exc:
        print(f"ckp: git's merge driver for _index.md was not installed: {exc}", file=sys.stderr)
        return
    for line in done:
        print(f"Git: {line}.")


def _unrecognised(project: Path, found: list[Lookalike]) -> str:
    """What ``ckp init`` says when the project holds folders that look like a bank, none recognised."""
    rels = [_bank_name(f.folder, project) for f in found]
    lines = [
        f"ckp: {display_path(project)} has no memory bank ckp recognises, but "
        + ("this folder looks like one:" if len(found) == 1 else "these folders look like one:")
    ]
    lines += [f"  {rel}/  ({f.why})" for rel, f in zip(rels, found, strict=True)]
    banks = ", ".join(f'"{r}"' for r in rels)
    lines += [
        "Nothing was written. Adopt it rather than start a bank beside it:",
        f"  ckp init{'' if project.resolve() == Path.cwd().resolve() else ' ' + display_path(project)} "
        f"--bank-dir {display_path(found[0].folder)}   # headers, the index and the agent rules for it",
        f"  or add  banks = [{banks}]  to .ckp.toml (for every command and the editor), then run ckp init",
        "To start a new bank anyway: ckp init --bank-dir memory-bank",
    ]
    return "\n".join(lines)


def _has_knowledge(bank: Path) -> bool:
    from ckp_lsp.core.project.config import config_for_bank
    from ckp_lsp.core.project.discovery import knowledge_files

    return bool(knowledge_files(bank, config_for_bank(bank).exclude))


@dataclass
class InitResult:
    """What ``init_bank`` wrote."""

    bank: Path
    file: Path
    concept: str
    index_written: bool


def init_bank(project_dir: Path, bank_dir: Path | None = None, *, today: CkpDate) -> InitResult:
    """Start a bank for the project: the file ``core.project.init`` plans, then the index, both
    written through the bank service (atomically, never over a file that appeared meanwhile, the
    bank told). Raises ``InitError`` or ``WriteRefused``, having written nothing more."""
    from ckp_lsp.core.edit.writes import WriteRefused
    from ckp_lsp.core.project.init import plan_init

    from ..faces.banks import loader, read_bank, write_file, write_index

    plan = plan_init(project_dir, bank_dir, today=today, load=loader(today))
    plan.file.parent.mkdir(parents=True, exist_ok=True)
    bank = plan.existing if plan.existing is not None else read_bank(plan.bank, today=today)
    written = write_file(bank, plan.rel, plan.text, expected=None)
    if not written.ok:
        raise WriteRefused(written.refused)
    index = write_index(bank)
    if index is not None and not index.ok:
        raise WriteRefused(index.refused)
    return InitResult(plan.bank, plan.file, plan.concept, index is not None)


@dataclass
class Adopted:
    """What adopting a bank did: the files that got a header or their missing fields, those that
    could not get one (with why), and the index written (None: it was up to date)."""

    compiled: list[str]
    failed: list[tuple[str, str]]
    index: Written | None

    @property
    def index_written(self) -> bool:
        return self.index is not None and self.index.ok


def _adopt(bank: Path, today: CkpDate) -> int:
    """What ``ckp compile --all`` and ``ckp index`` do, for a bank that was there before ``ckp init``:
    files without a header get one and the others their missing fields, through the same offline
    compile as ``compile --all``, then the index is written."""
    from ..faces.banks import compile_offline, read_bank, write_index

    kept = read_bank(bank, today=today)
    compiled = compile_offline(kept)
    done = Adopted(compiled.written, compiled.failed, write_index(kept))
    where = display_path(bank)
    if not done.compiled and not done.failed and not done.index_written:
        print(f"{where} is adopted already: every knowledge file has a header and the index is current.")
        return 0
    print(
        f"Adopted the bank {where}: {len(done.compiled)} file(s) got a header or its missing fields (compiled offline)."
    )
    for rel in done.compiled:
        print(f"  {display_path(bank / rel)}")
    for rel, why in done.failed:
        print(f"ckp: {display_path(bank / rel)}: {why}", file=sys.stderr)
    index = display_path(bank / "_index.md")
    if done.index is not None and not done.index.ok:
        print(f"ckp: {done.index.refused}", file=sys.stderr)
        return 1
    print(f"Wrote {index}." if done.index_written else f"{index} is up to date.")
    print(f"Review the headers, then `ckp check {where}`; `ckp compile --all {where}` fills missing fields.")
    return 1 if done.failed else 0
