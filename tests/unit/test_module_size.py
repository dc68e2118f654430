"""No module of ``ckp_lsp`` is over 450 lines: a longer one holds two concerns, to be split by concern."""

from __future__ import annotations

from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "ckp_lsp"
MAX_LINES = 450


def lengths(root: Path = PACKAGE) -> dict[str, int]:
    return {
        p.relative_to(root).as_posix(): len(p.read_text(encoding="utf-8").splitlines())
        for p in root.rglob("*.py")
    }


def over(sizes: dict[str, int]) -> set[str]:
    return {rel for rel, n in sizes.items() if n > MAX_LINES}


def test_no_module_is_over_450_lines() -> None:
    sizes = lengths()
    assert "core/format/knowledge.py" in sizes and "server/server.py" in sizes
    assert over(sizes) == set(), {rel: sizes[rel] for rel in over(sizes)}


@pytest.mark.parametrize(("lines", "caught"), [(450, False), (451, True)])
def test_a_module_grown_over_the_limit_is_caught(tmp_path: Path, lines: int, caught: bool) -> None:
    (tmp_path / "core").mkdir()
    (tmp_path / "core" / "grown.py").write_text("x = 1\n" * lines, encoding="utf-8")
    assert (over(lengths(tmp_path)) == {"core/grown.py"}) is caught
