"""Offline headers on real banks: compile copies with ``ckp compile --all``, print every TLDR for
reading, CONFIDENCE counts, and the index-mode recall of each bank's questions.

usage: python benchmarks/offline_headers.py BANKS_DIR QUESTIONS_DIR WORK_DIR [NAME ...]

Each ``QUESTIONS_DIR/<name>.yaml`` is a list of ``{query, must_load: [path, ...]}`` (paths relative
to the bank root) or ``{query, out_of_domain: true}``, with a ``# root: <folder>`` line naming the
bank's folder inside ``BANKS_DIR/<name>``. The banks are copied to ``WORK_DIR`` (the originals are
never written), Cursor ``.mdc`` rules renamed ``.md``.
"""

from __future__ import annotations

import collections
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from ckp_lsp.core.project.config import config_for_bank
from ckp_lsp.core.routing.index_pattern import Router
from ckp_lsp.faces.banks import load_bank


def root_of(questions: Path) -> str:
    """The bank's folder named by the questions file's `# root:` line."""
    for line in questions.read_text(encoding="utf-8").splitlines():
        if line.startswith("# root:"):
            return line.split(":", 1)[1].strip()
    raise SystemExit(f"{questions}: no '# root:' line")


def prepare(banks: Path, questions: Path, work: Path, name: str) -> Path:
    """A copy of the bank as `WORK/<name>/memory-bank`, its `.mdc` files renamed `.md`."""
    target = work / name / "memory-bank"
    if target.parent.exists():
        shutil.rmtree(target.parent)
    shutil.copytree(banks / name / root_of(questions / f"{name}.yaml"), target)
    for path in list(target.rglob("*.mdc")):
        path.rename(path.with_suffix(".md"))
    return target


def main(argv: list[str]) -> int:
    banks, questions, work = (Path(a) for a in argv[:3])
    names = argv[3:] or sorted(p.stem for p in questions.glob("*.yaml"))
    routed = found = 0
    for name in names:
        root = prepare(banks, questions, work, name)
        subprocess.run([sys.executable, "-m", "ckp_lsp.cli.main", "compile", "--all", str(root)], check=False)
        bank = load_bank(root, config_for_bank(root))
        router = Router(bank)
        hits = total = 0
        for q in yaml.safe_load((questions / f"{name}.yaml").read_text(encoding="utf-8")):
            if q.get("must_load"):
                need = {m[:-4] + ".md" if m.endswith(".mdc") else m for m in q["must_load"]}
                total += 1
                hits += need <= {e.file for e in router.route(q["query"]).loaded}
        routed, found = routed + total, found + hits
        confidence = collections.Counter(kf.confidence or "none" for kf in bank.files.values())
        print(
            f"{name}: {len(bank.files)} files, index-mode recall {hits}/{total}, CONFIDENCE {dict(confidence)}"
        )
        for rel in sorted(bank.files):
            print(f"    {rel}: {bank.files[rel].tldr}")
    print(f"all banks: index-mode recall {found}/{routed} = {found / max(routed, 1):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
