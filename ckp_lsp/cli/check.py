"""``ckp check``: every finding of the banks, files or folders named."""

from __future__ import annotations

import argparse
import gc
import os
import sys
from pathlib import Path
from typing import Any

from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.bank.checked import cached_findings, findings_of, unchanged_findings
from ckp_lsp.core.bank.findings import Finding, Severity
from ckp_lsp.core.format.full_reader import is_template_text
from ckp_lsp.core.project.discovery import markdown_entries, why_not_knowledge
from ckp_lsp.core.project.workspace import resolve_targets

from ..faces.banks import loader
from ..faces.clock import today
from ..faces.findings_json import SEVERITY_NAMES, json_chunks, summary
from ..faces.paths import display_path
from .output import paint

_COLOURS = {Severity.ERROR: "31", Severity.WARNING: "33", Severity.INFORMATION: "36", Severity.HINT: "2"}


def add_parser(sub: Any) -> None:
    p = sub.add_parser("check", help="report the findings of banks, folders holding banks, or files")
    p.add_argument("paths", nargs="*", type=Path, default=[Path(".")], metavar="PATH")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument(
        "--select", default="", help="only these codes (comma-separated; a prefix selects a group)"
    )
    p.add_argument("--ignore", default="", help="leave out these codes (comma-separated prefixes)")
    p.add_argument(
        "--no-cache",
        action="store_true",
        help="read every file again, and leave the cache (.ckp-cache/ or $CKP_CACHE_DIR) alone",
    )
    p.add_argument(
        "--changed",
        nargs="?",
        const="HEAD",
        default=None,
        metavar="BASE",
        help="only the knowledge files changed since the git revision BASE (default HEAD) and the files "
        "they relate to, with the index: a pull request's check",
    )
    p.set_defaults(run=run)


def _codes(value: str) -> tuple[str, ...]:
    return tuple(c.strip().upper() for c in value.split(",") if c.strip())


def collect(
    paths: list[Path], cached: bool = False
) -> tuple[list[tuple[Path, Finding]], list[str], int, list[str]]:
    """Findings of ``paths`` as (file, finding), the problems met, how many files were checked, and
    a note for each bank named whole that has no knowledge file and for each file named that is no
    knowledge file (it is not checked, nor counted)."""
    targets = resolve_targets(paths, cached=cached, today=(day := today()), load=loader(day))
    empty: list[str] = []
    results: list[tuple[Path, Finding]] = []
    checked = 0
    for t in targets.targets:
        kept = None
        if t.cache is not None and t.files is None:
            kept = unchanged_findings(t.root, t.config, t.cache, t.with_index, t.today)
        if kept is not None:
            rels, unreadable, found = kept
        else:
            bank = t.bank
            unreadable = bank.unreadable
            rels = sorted(bank.files) if t.files is None else named_knowledge_files(bank, t.files, empty)
            if t.cache is not None and t.files is None:
                found = cached_findings(bank, t.cache, t.with_index)
            else:
                found = findings_of(bank, rels, t.with_index)
        checked += len(rels) + (t.files is not None and t.with_index)  # the index, when named
        if not rels and t.files is None:
            empty.append(no_knowledge_files(t.root))
        for rel, why in sorted(unreadable.items()):
            targets.problems.append(f"{t.root / rel}: skipped ({why})")
        results.extend((t.root / rel, f) for rel, findings in found for f in findings)
    return results, targets.problems + _config_problems(targets), checked, empty


def named_knowledge_files(
    bank: Bank, named: set[str], notes: list[str], left: str = "not checked"
) -> list[str]:
    """The files named that are knowledge files of ``bank``; a note for each other one, ending in
    what is ``left`` undone (a file the bank skipped is told by its reason already)."""
    out = []
    for rel in sorted(named):
        if rel in bank.unreadable:
            continue
        why = why_not_knowledge(rel, bank.config.exclude)
        if why is None and rel not in bank.files:
            why = "in a folder the search for knowledge files skips"
        elif why is None and bank.files[rel].header is None and _is_template(bank, rel):
            why = "a template: no header, and its lines are mostly placeholders"
        if why is None:
            out.append(rel)
        else:
            notes.append(f"{display_path(bank.root / rel)}: not a knowledge file ({why}); {left}")
    return out


def _is_template(bank: Bank, rel: str) -> bool:
    try:
        return is_template_text(bank.disk.read(bank.root / rel).text)
    except OSError:
        return False


def no_knowledge_files(root: Path) -> str:
    """Why a bank has nothing to check, and what to do: it holds no Markdown file, or only files that
    are not knowledge files (an entry file such as ``MEMORY.md``, a README, an index, templates)."""
    names = sorted(rel for rel, _ in markdown_entries(root))
    where = display_path(root)
    write = "write one knowledge file per topic in it (`ckp init` starts a bank, `ckp compile --all` adds headers)"
    if not names:
        return f"no knowledge files in {where}: it holds no Markdown file; {write}"
    shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    looked = f"{len(names)} Markdown file{'s' if len(names) != 1 else ''} looked at ({shown})"
    return (
        f"no knowledge files in {where}: {looked}, and an entry file, README, index or template is not "
        f"one (see 'knowledge file' in docs/format.md); {write}, or take a file's name out of the "
        "`exclude` setting if it holds knowledge"
    )


def _config_problems(targets: Any) -> list[str]:
    seen = set(targets.problems)
    problems = (p for t in targets.targets for p in t.config.problems if p not in seen)
    return [f"configuration: {p}" for p in dict.fromkeys(problems)]


def changed_only(
    paths: list[Path], base: str, cached: bool = False
) -> tuple[list[tuple[Path, Finding]], list[str], int, list[str]]:
    """``collect`` of the knowledge files changed since ``base`` and every file they relate to
    (the index too when one changed); git is read by ``faces.git``."""
    from ckp_lsp.core.edit.review import related_files
    from ckp_lsp.core.format.knowledge import read_knowledge_file

    from ..faces.git import GitError, bank_changes

    targets = resolve_targets(paths, cached=cached, today=(day := today()), load=loader(day))
    results: list[tuple[Path, Finding]] = []
    problems = list(targets.problems)
    checked = 0
    for t in targets.targets:
        try:
            _, changes = bank_changes(t.root, t.config.exclude, base)
        except (GitError, ValueError) as exc:
            problems.append(f"{display_path(t.root)}: --changed {base}: {exc}")
            continue
        gone = [
            kf.concept
            for c in changes
            if c.old is not None and (kf := read_knowledge_file(c.rel, c.old)).concept
        ]
        bank = t.bank
        rels = related_files(bank, [c.rel for c in changes], gone)
        found = findings_of(bank, rels, with_index=bool(changes))
        checked += len(rels)
        results.extend((t.root / rel, f) for rel, findings in found for f in findings)
    return results, problems + _config_problems(targets), checked, []


def run(args: argparse.Namespace) -> int:
    gc.disable()  # a short run that frees little: collecting would only walk the bank again and again
    if args.changed is not None:
        results, problems, checked, empty = changed_only(args.paths, args.changed, cached=not args.no_cache)
        if checked == 0 and not results and not problems:
            print(f"No knowledge file changed since {args.changed}: nothing checked.")
            return 0
    else:
        results, problems, checked, empty = collect(args.paths, cached=not args.no_cache)
    select, ignore = _codes(args.select), _codes(args.ignore)
    results = [
        (p, f)
        for p, f in results
        if (not select or f.code.startswith(select)) and not (ignore and f.code.startswith(ignore))
    ]
    for problem in problems + empty:
        print(f"ckp: {problem}", file=sys.stderr)
    if checked == 0 and not results and not empty:
        print("ckp: nothing to check", file=sys.stderr)
        return 2
    if args.format == "json":
        sys.stdout.writelines(json_chunks(results, checked))
    else:
        _print_text(results, checked)
    return 1 if any(f.severity == Severity.ERROR for _, f in results) else 0


def _print_text(results: list[tuple[Path, Finding]], checked: int) -> None:
    colour = sys.stdout.isatty() and "NO_COLOR" not in os.environ
    for path, f in results:
        where = f"{display_path(path)}:{f.span.start_line + 1}:{f.span.start_col + 1}:"
        sev = paint(SEVERITY_NAMES[f.severity], _COLOURS[f.severity], colour)
        print(f"{paint(where, '1', colour)} {sev} {paint(f.code, '1', colour)} {f.message}")
    s = summary(results, checked)
    if not checked and not results:
        print("No knowledge files found: nothing checked.")
        return
    files = f"{s['files']} file{'s' if s['files'] != 1 else ''}"
    if not results:
        print(f"All checks passed ({files}).")
        return
    parts = [f"{s['errors']} error(s)", f"{s['warnings']} warning(s)", f"{s['information']} info"]
    print(f"Found {len(results)} finding(s) in {files}: " + ", ".join(parts) + ".")
