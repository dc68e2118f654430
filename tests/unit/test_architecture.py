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


def test_one_table_of_the_packages_and_a_section_for_each_flow() -> None:
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    heads = [line for line in text.splitlines() if line.startswith("| package |")]
    assert heads == ["| package | concern | modules |"]
    sections = [line[3:] for line in text.splitlines() if line.startswith("## ")]
    assert {"An edit in the editor", "`ckp compile --all`", "An MCP call"} <= set(sections)
    for flow in ("An edit in the editor", "`ckp compile --all`", "An MCP call"):
        body = text.split(f"## {flow}\n", 1)[1].split("\n## ", 1)[0]
        assert len(named_paths(body)) >= 4, flow  # it says which modules the flow goes through
