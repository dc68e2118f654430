"""The project's own documentation: the format reference covers every code and field, the links
that diagnostics and hovers carry lead into it, and nothing points outside the repository."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ckp_lsp.core.bank.findings import CODES
from ckp_lsp.core.format.field_docs import FIELD_DOCS
from ckp_lsp.server.convert import FORMAT_DOC, doc_url

ROOT = Path(__file__).resolve().parents[2]
FORMAT = (ROOT / "docs" / "format.md").read_text(encoding="utf-8")


def anchors(markdown: str) -> set[str]:
    """The anchors GitHub makes of a page's headings."""
    out = set()
    for m in re.finditer(r"^#{1,6} (.+)$", markdown, re.MULTILINE):
        slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
        out.add(slug)
    return out


@pytest.mark.parametrize("code", sorted(CODES))
def test_every_code_has_its_section(code: str) -> None:
    assert code.lower() in anchors(FORMAT)
    assert f"| [{code}](#{code.lower()}) |" in FORMAT  # and a row of the summary table


@pytest.mark.parametrize("key", sorted(FIELD_DOCS))
def test_every_field_has_its_section(key: str) -> None:
    assert key.lower() in anchors(FORMAT)


def test_every_link_inside_the_reference_has_its_target() -> None:
    targets = set(re.findall(r"\]\(#([^)]+)\)", FORMAT))
    assert targets and targets <= anchors(FORMAT), targets - anchors(FORMAT)
    assert "dates-and-staleness" in anchors(FORMAT)  # the hovers on dates link there


def test_links_point_at_the_repository_the_extension_names() -> None:
    package = json.loads((ROOT / "vscode-client" / "package.json").read_text(encoding="utf-8"))
    repository = package["repository"]["url"].removesuffix(".git")
    assert f"{repository}/blob/main/docs/format.md" == FORMAT_DOC
    assert doc_url("CKP050") == f"{FORMAT_DOC}#ckp050"


def test_the_product_stands_alone() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "(docs/format.md)" in readme
    shipped = [ROOT / "README.md", ROOT / "samples" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    shipped += sorted((ROOT / "ckp_lsp").rglob("*.py"))
    for path in shipped:
        assert "../shared" not in path.read_text(encoding="utf-8"), path


def test_the_readme_route_example_is_what_ckp_route_prints(capsys: pytest.CaptureFixture[str]) -> None:
    from tests.unit.builders import run_cli

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = '$ ckp route samples/mentat/memory-bank "How does mentat fetch ISTAT data via SDMX?"\n'
    start = readme.index(command) + len(command)
    shown = readme[start : readme.index("```", start)]
    code, out, _ = run_cli(
        capsys,
        "route",
        str(ROOT / "samples/mentat/memory-bank"),
        "How does mentat fetch ISTAT data via SDMX?",
    )
    assert code == 0 and out == shown
