"""The README's "Guarantees" cite tests that exist: every bullet names its tests, and every file
and test function it names is there."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _section() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index("## Guarantees")
    return readme[start : readme.index("\n## ", start + 1)]


def test_every_guarantee_names_its_tests() -> None:
    bullets = re.findall(r"^- \*\*.*?(?=^- \*\*|^The tests)", _section(), re.M | re.S)
    assert len(bullets) >= 15
    for bullet in bullets:
        assert "*Tests" in bullet, bullet.splitlines()[0]


def test_every_cited_test_file_and_function_exists() -> None:
    cited = re.findall(r"`(test_\w+\.py)(?:::(\w+))?`", _section())
    assert cited
    for name, function in cited:
        files = [p for p in (ROOT / "tests" / "unit", ROOT / "tests" / "e2e") if (p / name).is_file()]
        assert files, f"{name} is cited in the Guarantees but does not exist"
        if function:
            assert any(f"def {function}(" in (p / name).read_text(encoding="utf-8") for p in files), function
