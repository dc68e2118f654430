"""``index_format = "compact"``: only what routing reads, still recognised by drift detection and
by the route table reader."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.bank.index_checks import check_index
from ckp_lsp.core.format.fields import token_estimate
from ckp_lsp.core.format.index import COMPACT_HEAD, parse_index, update_index_text
from ckp_lsp.core.project.config import Config, load_config
from ckp_lsp.core.routing.index_pattern import Router
from ckp_lsp.core.routing.route_table import read_route_table
from ckp_lsp.faces.banks import load_bank, read_headers
from tests.copies import copy_tree

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "mentat"


@pytest.fixture
def bank_dir(tmp_path: Path) -> Path:
    root = tmp_path / "memory-bank"
    copy_tree(SAMPLE / "memory-bank", root)
    (tmp_path / ".ckp.toml").write_text('index_format = "compact"\n')
    return root


def load(root: Path) -> Bank:
    return load_bank(root, load_config(root.parent))


def write_index(root: Path) -> Bank:
    bank = load(root)
    (root / "_index.md").write_text(update_index_text(bank.index_text, bank), encoding="utf-8")
    return load(root)


def test_the_compact_index_leaves_out_dates_confidence_and_validated(bank_dir: Path) -> None:
    bank = write_index(bank_dir)
    text = bank.index_text or ""
    assert COMPACT_HEAD[0] in text and "CONFIDENCE" not in text and "VALIDATED" not in text
    jwt = next(r for r in parse_index(text).rows if r.concept == "jwt")
    assert jwt.values["SIMILAR_HIGH"] and ":" not in jwt.values["SIMILAR_HIGH"] + jwt.values["SIMILAR_MID"]
    table = load(bank_dir)
    table.config = Config(index_format="table")
    assert token_estimate(len(text)) < token_estimate(len(update_index_text(table.index_text, table)))
    assert update_index_text(text, bank) == text  # regenerating changes no byte


def test_drift_is_found_in_a_compact_index(bank_dir: Path) -> None:
    bank = write_index(bank_dir)
    assert check_index(bank) == []
    # A date or a confidence is not in the compact index: changing one is no drift.
    jwt = next(p for p in bank_dir.rglob("jwt.md"))
    text = jwt.read_text(encoding="utf-8")
    jwt.write_text(text.replace("CONFIDENCE:   high", "CONFIDENCE:   low"), encoding="utf-8")
    assert check_index(load(bank_dir)) == []
    # A keyword is.
    jwt.write_text(text.replace("ANSWERS_WHEN: jwt,", "ANSWERS_WHEN: jwt, zeppelin,"), encoding="utf-8")
    found = check_index(load(bank_dir))
    assert [f.code for f in found] == ["CKP070"] and "ANSWERS_WHEN" in found[0].message
    # And so is a relationship.
    jwt.write_text(text.replace("SIMILAR_HIGH:", "SIMILAR_HIGH: database:2026-01,", 1), encoding="utf-8")
    found = check_index(load(bank_dir))
    assert [f.code for f in found] == ["CKP070"] and "SIMILAR_HIGH" in found[0].message


def test_the_route_table_reader_routes_from_a_compact_index_as_from_the_headers(bank_dir: Path) -> None:
    bank = write_index(bank_dir)
    from_index = Router(read_route_table(bank_dir, bank.config, full_read_limit=0, load=read_headers))
    from_headers = Router(bank)
    queries = [q["query"] for q in yaml.safe_load((SAMPLE / "queries.yaml").read_text())]
    for q in queries:
        a, b = from_index.route(q), from_headers.route(q)
        assert [(e.concept, e.reason) for e in a.loaded] == [(e.concept, e.reason) for e in b.loaded], q
        # (file sizes differ: the reader counts bytes of the files it does not open, as documented)
        assert a.tokens.index == b.tokens.index and a.declaration == b.declaration


def test_every_index_format_is_offered_by_ckp_index_ckp_bench_and_vs_code() -> None:
    import json

    from ckp_lsp.cli.main import parser
    from ckp_lsp.core.project.config import INDEX_FORMATS

    assert "compact" in INDEX_FORMATS
    for argv, flag in ((["index", "b"], "--format"), (["bench", "b", "--queries", "q"], "--index-format")):
        for form in INDEX_FORMATS:
            assert form in vars(parser(argv).parse_args([*argv, flag, form])).values()
        with pytest.raises(SystemExit):
            parser(argv).parse_args([*argv, flag, "tabular"])
    package = json.loads((Path(__file__).parents[2] / "vscode-client" / "package.json").read_text())
    setting = package["contributes"]["configuration"]["properties"]["ckp.index.format"]
    assert tuple(setting["enum"]) == INDEX_FORMATS
