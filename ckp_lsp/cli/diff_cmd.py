"""``ckp diff BASE``: the header changes of the banks since a git revision, in words a reviewer reads."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..faces.paths import display_path


def add_parser(sub: Any) -> None:
    p = sub.add_parser("diff", help="the header changes of the banks since a git revision, in words")
    p.add_argument("base", metavar="BASE", help="a git revision: a branch, a tag, a commit (origin/main)")
    p.add_argument("paths", nargs="*", type=Path, default=[Path(".")], metavar="PATH")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ckp_lsp.core.edit.review import describe_change
    from ckp_lsp.core.project.workspace import resolve_targets

    from ..faces.banks import loader
    from ..faces.clock import today
    from ..faces.git import GitError, bank_changes

    targets = resolve_targets(args.paths, load=loader(today()))
    for problem in targets.problems:
        print(f"ckp: {problem}", file=sys.stderr)
    if not targets.targets:
        print("ckp: no bank found", file=sys.stderr)
        return 2
    lines: list[dict[str, str]] = []
    for t in targets.targets:
        try:
            _, changes = bank_changes(t.root, t.config.exclude, args.base)
        except (GitError, ValueError) as exc:
            print(f"ckp: {display_path(t.root)}: {exc}", file=sys.stderr)
            return 2
        for c in changes:
            said = describe_change(c.rel, c.old, c.new)
            if said is not None:
                lines.append({"file": display_path(t.root / c.rel), "change": said})
    if args.format == "json":
        print(json.dumps({"base": args.base, "changes": lines}, indent=2, ensure_ascii=False))
        return 0
    for line in lines:
        print(f"{line['change']}  ({line['file']})")
    print(f"{len(lines)} knowledge file{'s' * (len(lines) != 1)} changed since {args.base}.")
    return 0
