"""The offline compiler on the Mentat sample: strip every header, ``ckp compile --all``, and the bank
must check clean of errors and still route each of the sample's questions to the files it needs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from ckp_lsp.cli.main import main
from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.bank.checks import check_file
from ckp_lsp.core.bank.findings import Severity
from ckp_lsp.core.compile import compiler
from ckp_lsp.core.compile.answer import sentence_count
from ckp_lsp.core.edit.rewrite import body_of
from ckp_lsp.core.format.text import decode
from ckp_lsp.core.project.config import config_for_bank
from ckp_lsp.core.project.discovery import find_banks
from ckp_lsp.core.routing import route
from ckp_lsp.faces.banks import load_bank
from tests.copies import copy_tree

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "mentat"
QUERIES: list[dict[str, Any]] = yaml.safe_load((SAMPLE / "queries.yaml").read_text(encoding="utf-8"))
ORIGINAL = load_bank(SAMPLE / "memory-bank")
#: the sample's concepts, as its queries name them, and the files that declare them
FILE_OF = {concept: paths[0] for concept, paths in ORIGINAL.by_concept.items()}
ROUTED = [q for q in QUERIES if q.get("must_load")]


@pytest.fixture(scope="module")
def recompiled(tmp_path_factory: pytest.TempPathFactory) -> tuple[Bank, dict[str, str]]:
    """The sample with every header stripped and recompiled offline; the bodies as they were."""
    compiler._CACHE.clear()
    root = tmp_path_factory.mktemp("mentat") / "memory-bank"
    copy_tree(SAMPLE / "memory-bank", root)
    bodies = {}
    for rel in ORIGINAL.files:
        path = root / rel
        bodies[rel] = body_of(decode(path.read_bytes())[0])
        path.write_text(bodies[rel], encoding="utf-8", newline="")
    stripped = load_bank(root)
    assert all(kf.header is None for kf in stripped.files.values())
    assert main(["compile", "--all", str(root)]) == 0
    return load_bank(root), bodies


def test_every_file_gets_a_header_and_keeps_its_body(recompiled: tuple[Bank, dict[str, str]]) -> None:
    bank, bodies = recompiled
    assert sorted(bank.files) == sorted(bodies)
    for rel, body in bodies.items():
        text = decode((bank.root / rel).read_bytes())[0]
        assert text.endswith(body), rel
        kf = bank.files[rel]
        assert kf.concept and kf.tldr and kf.keywords, rel


def test_the_recompiled_bank_has_no_error(recompiled: tuple[Bank, dict[str, str]]) -> None:
    bank, _ = recompiled
    errors = [
        f"{rel}: {f.code} {f.message}"
        for rel in sorted(bank.files)
        for f in check_file(bank, rel)
        if f.severity == Severity.ERROR
    ]
    assert errors == []


@pytest.mark.parametrize("query", ROUTED, ids=[q["query"] for q in ROUTED])
def test_each_sample_question_still_loads_the_files_it_needs(
    recompiled: tuple[Bank, dict[str, str]], query: dict[str, Any]
) -> None:
    bank, _ = recompiled
    result = route(bank, query["query"])
    loaded = {e.file for e in result.loaded}
    needed = {FILE_OF[c] for c in query["must_load"]}
    chosen = {rel: [i.text for i in bank.files[rel].keywords] for rel in sorted(needed - loaded)}
    assert needed <= loaded, f"{result.declaration}; keywords of the files not loaded: {chosen}"


@pytest.mark.parametrize("rel", sorted(ORIGINAL.files))
def test_each_file_is_found_by_a_question_in_its_own_keywords(
    recompiled: tuple[Bank, dict[str, str]], rel: str
) -> None:
    bank, _ = recompiled
    keywords = [i.text for i in bank.files[rel].keywords]
    question = (
        f"How does {keywords[0]} work with {keywords[1]}?" if len(keywords) > 1 else f"What is {keywords[0]}?"
    )
    result = route(bank, question)
    assert rel in {e.file for e in result.loaded}, f"{question!r}: {result.declaration}"


def test_an_out_of_domain_question_still_loads_nothing(recompiled: tuple[Bank, dict[str, str]]) -> None:
    bank, _ = recompiled
    for query in (q for q in QUERIES if q.get("out_of_domain")):
        result = route(bank, query["query"])
        assert result.out_of_domain and not result.loaded, result.declaration


#: every sample a user can try (those with questions to route), in any language and shape
SAMPLES = sorted(p.parent for p in SAMPLE.parent.glob("*/queries.yaml"))


@pytest.mark.parametrize("sample", SAMPLES, ids=[p.name for p in SAMPLES])
def test_every_sample_recompiles_to_a_fixed_point_with_one_sentence_tldrs(
    sample: Path, tmp_path: Path
) -> None:
    """Headers stripped, `compile --all` twice: the second run changes no byte, the bank has no
    error, and every TLDR is one sentence."""
    project = tmp_path / sample.name
    copy_tree(sample, project)
    (root,) = find_banks([project])
    for rel in load_bank(root, config_for_bank(root)).files:
        path = root / rel
        path.write_text(body_of(decode(path.read_bytes())[0]), encoding="utf-8", newline="")
    assert main(["compile", "--all", str(root)]) == 0
    first = {p: p.read_bytes() for p in sorted(root.rglob("*.md"))}
    assert main(["compile", "--all", str(root)]) == 0
    assert {p: p.read_bytes() for p in sorted(root.rglob("*.md"))} == first
    bank = load_bank(root, config_for_bank(root))
    errors = [
        f"{rel}: {f.code}"
        for rel in bank.files
        for f in check_file(bank, rel)
        if f.severity == Severity.ERROR
    ]
    assert errors == []
    for rel, kf in bank.files.items():
        assert kf.tldr and sentence_count(kf.tldr) == 1, (rel, kf.tldr)
        assert not kf.tldr.endswith(("。.", "..", ":.")), (rel, kf.tldr)
