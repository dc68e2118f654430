"""ARCHITECTURE.md describes the house as it is: every module and folder it names exists, and every
package of ``ckp_lsp`` is in its table."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "ckp_lsp"
#: a path in backquotes: a module (``core/bank/bank.py``), a folder (``core/routing/``) or a file
NAMED = re.compile(r"`(\w[\w.-]*(?:/[\w.-]+)*(?:\.py|\.md|/))`")
#: the paths written from the repository's root; every other one is relative to ``ckp_lsp/``
FROM_ROOT = ("ckp_lsp/", "tests/", "docs/", "vscode-client/", "benchmarks/")


def named_paths(text: str) -> set[str]:
    return {m for m in NAMED.findall(text) if "/" in m}


def missing(text: str, root: Path = ROOT) -> set[str]:
    """The paths ``text`` names that do not exist."""
    return {
        p
        for p in named_paths(text)
        if not (root / p if p.startswith(FROM_ROOT) else root / "ckp_lsp" / p).exists()
    }


def test_every_module_the_architecture_names_exists() -> None:
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    assert {"core/bank/bank.py", "server/state.py", "mcp/tools.py"} <= named_paths(text)
    assert missing(text) == set()


def test_every_package_is_in_the_table() -> None:
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    packages = {
        p.parent.relative_to(PACKAGE).as_posix() + "/"
        for p in PACKAGE.rglob("__init__.py")
        if p.parent != PACKAGE
    }
    assert "core/routing/" in packages
    assert packages - named_paths(text) == set()


def test_a_module_named_that_is_gone_is_caught() -> None:
    text = "| `core/bank/bank.py` | `core/collector.py` | `tests/unit/test_gone.py` | `core/routing/` |"
    assert missing(text) == {"core/collector.py", "tests/unit/test_gone.py"}
