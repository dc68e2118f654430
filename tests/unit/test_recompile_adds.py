"""Offline, a recompile never makes a header worse: a complete header keeps every keyword,
relationship and CONFIDENCE its author wrote, it may only add, and it says what it added; the
Mentat sample recompiled with --force still meets all of its bench questions."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from ckp_lsp.cli.main import main
from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.compile import compiler
from ckp_lsp.core.compile.compiler import compile_header
from ckp_lsp.core.compile.merge import ADDED_KEYWORDS, merged_keywords
from ckp_lsp.core.edit.header_changes import describe, header_diff
from ckp_lsp.core.format.knowledge import read_knowledge_file
from ckp_lsp.core.format.text import decode
from ckp_lsp.core.routing.bench import load_queries, run_bench
from ckp_lsp.faces.banks import load_bank
from ckp_lsp.faces.clock import today
from tests.copies import copy_tree

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "mentat"

JWT = """\
CONCEPT: jwt
TLDR: How the services sign and verify their access tokens.
ANSWERS_WHEN: jwt, RS256, JWKS
SIMILAR_HIGH: oauth2:2025-01
CONFIDENCE: low
VALIDATED: 2025-01

# JWT

Access tokens are JSON Web Tokens signed with a private key; services verify the signature
against the public keys. The `TokenVerifier` checks expiry and audience on every request, and
the `KeyRotation` job replaces the signing key each month. Refresh tokens are opaque and stored
hashed in PostgreSQL, so a stolen database leaks no usable refresh token.

## Rotation

The `KeyRotation` job publishes the next key a week before it signs with it.
"""

OAUTH = """\
CONCEPT: oauth2
TLDR: The login flow that ends in our own access token.
ANSWERS_WHEN: oauth2, login, PKCE

# OAuth2

Users log in through the authorization code flow with PKCE; the callback issues our own token.
"""


@pytest.fixture
def bank(tmp_path: Path) -> Bank:
    root = tmp_path / "memory-bank"
    root.mkdir()
    (root / "jwt.md").write_text(JWT)
    (root / "oauth2.md").write_text(OAUTH)
    compiler._CACHE.clear()
    return load_bank(root, today=today())


def test_a_complete_header_keeps_every_keyword_relationship_and_confidence(bank: Bank) -> None:
    compiled = compile_header(bank, "jwt.md", JWT)
    before, after = read_knowledge_file("jwt.md", JWT), read_knowledge_file("jwt.md", compiled.text)
    assert after.keyword_texts[:3] == ["jwt", "RS256", "JWKS"]  # the author's, first and in order
    assert [(c, t, d) for c, t, d, _ in after.relations][:1] == [("oauth2", "HIGH", "2025-01")]
    assert after.confidence == "low" and after.tldr == before.tldr and after.validated_text == "2025-01"
    assert compiled.text.endswith(JWT[JWT.index("# JWT") :])  # the body, byte for byte


def test_a_recompile_adds_a_few_distinctive_keywords_and_says_so(bank: Bank) -> None:
    compiled = compile_header(bank, "jwt.md", JWT)
    added = header_diff(JWT, compiled.text)["added"].get("ANSWERS_WHEN", [])
    assert 1 <= len(added) <= ADDED_KEYWORDS
    assert header_diff(JWT, compiled.text)["removed"] == {}
    assert describe(JWT, compiled.text, names=True).startswith(f"+{len(added)} keyword")
    assert all(k in describe(JWT, compiled.text, names=True) for k in added)


def test_a_second_recompile_adds_nothing(bank: Bank) -> None:
    once = compile_header(bank, "jwt.md", JWT).text
    bank.set_file("jwt.md", once)
    assert compile_header(bank, "jwt.md", once).text == once


def test_an_added_keyword_names_a_topic_the_list_does_not_cover() -> None:
    own = ["jwt", "access token", "RS256"]
    assert merged_keywords(own, ["jwt", "token", "TokenVerifier", "rotation"]) == [
        "jwt",
        "access token",
        "RS256",
        "TokenVerifier",
        "rotation",
    ]
    assert merged_keywords([], ["jwt", "token"]) == ["jwt", "token"]


def test_a_header_without_keywords_or_confidence_gets_them(bank: Bank) -> None:
    text = JWT.replace("ANSWERS_WHEN: jwt, RS256, JWKS\n", "ANSWERS_WHEN:\n").replace("CONFIDENCE: low\n", "")
    after = read_knowledge_file("jwt.md", compile_header(bank, "jwt.md", text).text)
    assert after.keyword_texts and after.keyword_texts[0] == "jwt"
    assert after.confidence in ("high", "medium", "low")


def test_cli_compile_says_what_it_added(bank: Bank, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compile", str(bank.root / "jwt.md")]) == 0
    out = capsys.readouterr().out
    added = header_diff(JWT, decode((bank.root / "jwt.md").read_bytes())[0])["added"]["ANSWERS_WHEN"]
    assert f"jwt.md: +{len(added)} keyword" in out and all(k in out for k in added), out


def test_mentat_recompiled_offline_with_force_keeps_its_bench(tmp_path: Path) -> None:
    root = tmp_path / "mentat" / "memory-bank"
    copy_tree(SAMPLE / "memory-bank", root)
    before = {p: read_knowledge_file(p.name, p.read_text()) for p in sorted(root.rglob("*.md"))}
    compiler._CACHE.clear()
    assert main(["compile", "--all", str(root), "--force"]) == 0
    assert main(["index", str(root)]) == 0
    for path, old in before.items():
        new = read_knowledge_file(path.name, path.read_text())
        assert new.keyword_texts[: len(old.keyword_texts)] == old.keyword_texts, path
        assert {(c, t) for c, t, _, _ in old.relations} <= {(c, t) for c, t, _, _ in new.relations}, path
        assert new.confidence == old.confidence and new.tldr == old.tldr, path
    queries = load_queries(SAMPLE / "queries.yaml")
    report = run_bench(load_bank(root, today=today()), queries, (), None)
    met = [o for o in report.outcomes if o.ok]
    assert len(queries) == len(yaml.safe_load((SAMPLE / "queries.yaml").read_text())) == 11
    assert len(met) == 11, [o.query for o in report.outcomes if not o.ok]
