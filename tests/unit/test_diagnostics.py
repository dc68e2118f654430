"""Every diagnostic code of SPEC §4: where it fires (code, severity, tight range, advice) and where not."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

import pytest

from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.bank.checks import check_file
from ckp_lsp.core.bank.findings import CODES, Finding, Severity
from ckp_lsp.core.bank.index_checks import check_index
from ckp_lsp.core.format.text import Span
from ckp_lsp.core.project.config import Config
from tests.unit.builders import bank_of_texts, bare_header, span_of_text


def _next_month() -> str:
    now = dt.date.today()
    return f"{now.year + now.month // 12:04d}-{now.month % 12 + 1:02d}"


def _keywords(n: int) -> str:
    return ", ".join(f"k{i}" for i in range(1, n + 1))


def _index(*rows: str) -> str:
    head = "| CONCEPT | FILE | TLDR | ANSWERS_WHEN | SIMILAR_HIGH | SIMILAR_MID | CONFIDENCE | VALIDATED |"
    return "\n".join(
        [
            "<!-- ckp:index:start -->",
            head,
            "|---|---|---|---|---|---|---|---|",
            *rows,
            "<!-- ckp:index:end -->",
            "",
        ]
    )


JWT_ROW = "| jwt | jwt.md | How access tokens are signed. | jwt, access token |  |  |  | 2025-05 |"
INDEX_OK = _index(JWT_ROW)
INDEX_DRIFT = _index(JWT_ROW.replace("How access tokens are signed.", "An older summary."))

NEXT_MONTH = _next_month()
TLDR_200 = ("Signs tokens " + "very " * 40)[:199] + "."
LONG_TLDR = TLDR_200[:-1] + "y."  # 201 characters
assert len(TLDR_200) == 200 and len(LONG_TLDR) == 201
OAUTH2 = bare_header(CONCEPT="oauth2", TLDR="Login flows.", ANSWERS_WHEN="oauth2, login")
NOT_UTF8 = b"CONCEPT: jwt\nTLDR: Caf\xe9 tokens.\nANSWERS_WHEN: jwt\nVALIDATED: 2025-05\n"
DUPLICATE_FIELD = "CONCEPT: jwt\nTLDR: Signs tokens.\nANSWERS_WHEN: jwt\nVALIDATED: 2025-05\nTLDR: Again.\n"
CONFLICTED = INDEX_OK.replace(JWT_ROW, f"<<<<<<< HEAD\n{JWT_ROW}\n=======\n{JWT_ROW} \n>>>>>>> theirs")
#: a fake token, built from parts so that the repository holds none
GITHUB_TOKEN = "gh" + "p_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
BAD_YAML = "---\nCONCEPT: jwt\nTLDR: a: b: c\nANSWERS_WHEN: jwt\n---\n"


@dataclass
class Case:
    """Files of a bank, the file to check (``_index.md``: the index) and the finding expected there."""

    code: str
    files: dict[str, str | bytes]
    where: Span
    advice: str
    target: str = "a.md"
    config: Config | None = None
    severity: Severity | None = None
    id: str = ""
    also: list[str] = field(default_factory=list)  # more text the message must hold

    def bank(self) -> Bank:
        return bank_of_texts(self.files, self.config)


def findings_of(bank: Bank, target: str) -> list[Finding]:
    return check_index(bank) if target == "_index.md" else check_file(bank, target)


def _text(case_files: dict[str, str | bytes], rel: str = "a.md") -> str:
    content = case_files[rel]
    assert isinstance(content, str)
    return content


def fires(code: str, files: dict[str, str | bytes], where: Span | str, advice: str, **kw: Any) -> Case:
    """A firing case; ``where`` may be the offending text of a.md (its first occurrence)."""
    span = span_of_text(_text(files), where) if isinstance(where, str) else where
    return Case(code, files, span, advice, **kw)


def _from_item_to_line_end(text: str, item: str) -> Span:
    start = span_of_text(text, item)
    return Span(start.start_line, start.start_col, start.start_line, len(text.split("\n")[start.start_line]))


A_SELF = bare_header(SIMILAR_MID="jwt:2025-05")
A_MALFORMED = bare_header(SIMILAR_HIGH="Not Valid!")
A_HIGH4 = bare_header(SIMILAR_HIGH="b:2025-05, c:2025-05, d:2025-05, e:2025-05")
A_KW23 = bare_header(ANSWERS_WHEN=_keywords(23))
A_MID6 = bare_header(SIMILAR_MID="b:2025-05, c:2025-05, d:2025-05, e:2025-05, f:2025-05, g:2025-05")

FIRES = [
    fires(
        "CKP001",
        {"a.md": "# Release notes\n\nNo header here.\n"},
        Span(0, 0, 0, 15),
        "add CONCEPT, TLDR and ANSWERS_WHEN",
    ),
    fires(
        "CKP002",
        {"a.md": bare_header(TLDR=None)},
        Span(0, 0, 2, 18),  # the whole header: from its first line to the end of its last field
        "add a line 'TLDR: …'",
        id="required",
    ),
    fires(
        "CKP002",
        {"a.md": bare_header(VALIDATED=None)},
        Span(0, 0, 2, 31),
        "add 'VALIDATED: YYYY-MM'",
        severity=Severity.WARNING,
        id="validated-is-a-warning",
    ),
    fires(
        "CKP002",
        {"a.md": bare_header(VALIDATED="")},
        Span(3, 0, 3, 9),
        "write the month the header was last checked",
        severity=Severity.WARNING,
        id="validated-empty",
    ),
    fires(
        "CKP002",
        {"a.md": "---\nCONCEPT: jwt\nTLDR: t.\nVALIDATED: 2025-05\n---\n"},
        Span(0, 0, 4, 3),  # from the opening --- to the closing one
        "add a line 'ANSWERS_WHEN: …'",
        id="front-matter",
    ),
    fires("CKP003", {"a.md": bare_header(VALIDATE="2025-05")}, Span(4, 0, 4, 8), "did you mean VALIDATED?"),
    fires("CKP004", {"a.md": DUPLICATE_FIELD}, Span(4, 0, 4, 4), "keep one", also=["first on line 2"]),
    fires("CKP005", {"a.md": bare_header(TLDR="")}, Span(1, 0, 1, 4), "give it a value"),
    fires("CKP006", {"a.md": BAD_YAML}, Span(2, 0, 2, 13), "fix the YAML"),
    fires(
        "CKP006",
        {"a.md": "---\nCONCEPT: jwt\nANSWERS_WHEN: [jwt, access token\nTLDR: t.\n---\n"},
        Span(2, 14, 2, 32),  # the unclosed [ and the rest of its line, not the line YAML stopped on
        "the '[' here is not closed",
        id="unclosed-bracket",
    ),
    fires("CKP009", {"a.md": NOT_UTF8}, Span(1, 9, 1, 10), "save it as UTF-8"),
    fires(
        "CKP010",
        {"a.md": bare_header(CONCEPT="JWT Authentication")},
        "JWT Authentication",
        "use 'jwt-authentication'",
    ),
    fires(
        "CKP011",
        {"a.md": bare_header(), "b.md": bare_header()},
        Span(0, 9, 0, 12),
        "rename one",
        also=["b.md"],
    ),
    fires("CKP020", {"a.md": bare_header(TLDR=LONG_TLDR)}, LONG_TLDR, "shorten it", id="too-long"),
    fires(
        "CKP020",
        {"a.md": bare_header(TLDR="Signs tokens. Verifies them.")},
        "Signs tokens. Verifies them.",
        "keep one sentence",
        id="two-sentences",
    ),
    fires("CKP030", {"a.md": bare_header(ANSWERS_WHEN="jwt, token, JWT")}, "JWT", "remove it"),
    fires("CKP031", {"a.md": A_KW23}, _from_item_to_line_end(A_KW23, "k21"), "keep at most 20"),
    fires(
        "CKP032",
        {f"{c}.md": bare_header(CONCEPT=c, ANSWERS_WHEN=f"{c}, api") for c in "abcd"},
        Span(2, 17, 2, 20),
        "prefer a more specific keyword",
        also=["b, c, d"],
    ),
    fires("CKP040", {"a.md": A_MALFORMED}, "Not Valid!", "write concept:YYYY-MM"),
    fires(
        "CKP040",
        {"a.md": bare_header(SIMILAR_HIGH="JWT:2025-05")},
        "JWT:2025-05",
        "write concept:YYYY-MM",
        id="upper-case",
    ),
    fires(
        "CKP041",
        {"a.md": bare_header(SIMILAR_HIGH="oauth3:2025-05"), "b.md": OAUTH2},
        "oauth3",
        "did you mean 'oauth2'?",
    ),
    fires("CKP042", {"a.md": A_SELF}, "jwt:2025-05", "remove the entry"),
    fires(
        "CKP043",
        {"a.md": bare_header(SIMILAR_MID="oauth2:2025-05, oauth2:2025-04"), "b.md": OAUTH2},
        "oauth2:2025-04",
        "remove the duplicate",
    ),
    fires(
        "CKP044",
        {"a.md": bare_header(SIMILAR_HIGH="oauth2:2025-05", SIMILAR_MID="oauth2:2025-04"), "b.md": OAUTH2},
        "oauth2:2025-04",
        "keep it in one tier",
    ),
    fires("CKP045", {"a.md": A_HIGH4}, "e:2025-05", "keep at most 3", id="high"),
    fires("CKP045", {"a.md": A_MID6}, "g:2025-05", "keep at most 5", id="mid"),
    fires(
        "CKP046",
        {"a.md": bare_header(SIMILAR_MID="oauth2"), "b.md": OAUTH2},
        Span(4, 13, 4, 19),
        "add ':YYYY-MM'",
    ),
    fires(
        "CKP050",
        {
            "a.md": bare_header(SIMILAR_HIGH="oauth2:2025-05"),
            "b.md": bare_header(CONCEPT="oauth2", VALIDATED="2025-06"),
        },
        "oauth2:2025-05",
        "re-validate the relationship",
        also=["2025-06", "(2025-05)"],
    ),
    fires("CKP051", {"a.md": bare_header(VALIDATED="2025-13")}, "2025-13", "write YYYY-MM or YYYY-MM-DD"),
    fires(
        "CKP052",
        {"a.md": bare_header(VALIDATED=NEXT_MONTH)},
        NEXT_MONTH,
        "use this month or an earlier one",
        also=[f"VALIDATED {NEXT_MONTH} is in the future"],
    ),
    fires("CKP060", {"a.md": bare_header(CONFIDENCE="sure")}, "sure", "use 'medium'"),
    Case(
        "CKP070",
        {"jwt.md": bare_header(), "_index.md": INDEX_DRIFT},
        Span(3, 0, 3, len(INDEX_DRIFT.split("\n")[3])),
        "regenerate the index",
        target="_index.md",
        also=["TLDR"],
    ),
    Case(
        "CKP071",
        {"jwt.md": bare_header(), "_index.md": INDEX_OK},
        Span(0, 0, 0, len("<!-- ckp:index:start -->")),
        "shorten TLDRs and keywords or split the bank",
        target="_index.md",
        config=Config(index_budget_tokens=10),
        also=["budget of 10"],
    ),
    Case(
        "CKP072",
        {"jwt.md": bare_header(), "_index.md": CONFLICTED},
        Span(3, 0, 3, len("<<<<<<< HEAD")),
        "run `ckp index` on the bank after the merge",
        target="_index.md",
        also=["--install-merge-driver"],
    ),
    Case(
        "CKP080",
        {"a.md": bare_header() + f"\nexport GITHUB_TOKEN={GITHUB_TOKEN}\n"},
        Span(7, 20, 7, 20 + len(GITHUB_TOKEN)),
        "quick fix: replace it with '<redacted: GITHUB_TOKEN>'",
        also=["<!-- ckp: allow-secret -->"],
    ),
]


@dataclass
class Quiet:
    code: str
    files: dict[str, str | bytes]
    target: str = "a.md"
    config: Config | None = None
    id: str = ""


QUIET = [
    Quiet("CKP001", {"a.md": bare_header()}),
    Quiet("CKP001", {"a.md": "---\nCONCEPT: jwt\nTLDR: t.\nANSWERS_WHEN: jwt\n---\n"}, id="front-matter"),
    Quiet("CKP002", {"a.md": bare_header()}),
    Quiet("CKP003", {"a.md": "---\ntitle: JWT\ntags: [a]\nCONCEPT: jwt\nTLDR: t.\nANSWERS_WHEN: jwt\n---\n"}),
    Quiet("CKP004", {"a.md": bare_header(SIMILAR_HIGH="oauth2:2025-05", SIMILAR_MID="b:2025-05")}),
    Quiet(
        "CKP005", {"a.md": bare_header(SIMILAR_HIGH="", SIMILAR_MID="")}, id="optional-fields-may-be-empty"
    ),
    Quiet(
        "CKP006", {"a.md": "---\ntitle: 'JWT: tokens'\nCONCEPT: jwt\nTLDR: t.\nANSWERS_WHEN: [jwt]\n---\n"}
    ),
    Quiet("CKP009", {"a.md": bare_header(TLDR="Café tokens \U0001f510.").encode("utf-8")}),
    Quiet("CKP010", {"a.md": bare_header(CONCEPT="jwt-auth.v2_x")}),
    Quiet("CKP011", {"a.md": bare_header(), "b.md": OAUTH2}),
    Quiet("CKP020", {"a.md": bare_header(TLDR=TLDR_200)}, id="exactly-200"),
    Quiet("CKP020", {"a.md": bare_header(TLDR="Uses v1.2 of the API, e.g. for tokens.")}, id="dots-inside"),
    Quiet("CKP030", {"a.md": bare_header(ANSWERS_WHEN="jwt, jwt auth, token")}),
    Quiet("CKP031", {"a.md": bare_header(ANSWERS_WHEN=_keywords(20))}),
    Quiet("CKP032", {f"{c}.md": bare_header(CONCEPT=c, ANSWERS_WHEN=f"{c}, api") for c in "abc"}),
    Quiet("CKP040", {"a.md": bare_header(SIMILAR_HIGH="oauth2:2025-05", SIMILAR_MID="b.c_d-e:2025-05-01")}),
    Quiet("CKP041", {"a.md": bare_header(SIMILAR_HIGH="oauth2:2025-05"), "b.md": OAUTH2}),
    Quiet("CKP042", {"a.md": bare_header(SIMILAR_HIGH="oauth2:2025-05"), "b.md": OAUTH2}),
    Quiet("CKP043", {"a.md": bare_header(SIMILAR_MID="oauth2:2025-05, b:2025-05")}),
    Quiet("CKP044", {"a.md": bare_header(SIMILAR_HIGH="oauth2:2025-05", SIMILAR_MID="b:2025-05")}),
    Quiet(
        "CKP045",
        {
            "a.md": bare_header(
                SIMILAR_HIGH="b:2025-05, c:2025-05, d:2025-05",
                SIMILAR_MID="e:2025-05, f:2025-05, g:2025-05, h:2025-05, i:2025-05",
            )
        },
    ),
    Quiet("CKP046", {"a.md": bare_header(SIMILAR_MID="oauth2:2025-05"), "b.md": OAUTH2}),
    Quiet(
        "CKP050",
        {
            "a.md": bare_header(SIMILAR_HIGH="oauth2:2026-09"),
            "b.md": bare_header(CONCEPT="oauth2", VALIDATED="2026-09-18"),
        },
        id="coarser-precision",
    ),
    Quiet("CKP051", {"a.md": bare_header(VALIDATED="2024-02-29")}),
    Quiet("CKP052", {"a.md": bare_header(VALIDATED=dt.date.today().isoformat())}),
    Quiet("CKP060", {"a.md": bare_header(CONFIDENCE="High")}),
    Quiet("CKP070", {"jwt.md": bare_header(), "_index.md": INDEX_OK}, target="_index.md"),
    Quiet("CKP071", {"jwt.md": bare_header(), "_index.md": INDEX_OK}, target="_index.md"),
    Quiet("CKP072", {"jwt.md": bare_header(), "_index.md": INDEX_OK + "\n=======\n"}, target="_index.md"),
    Quiet("CKP080", {"a.md": bare_header() + "\nexport GITHUB_TOKEN=ghp_your_token_here\n"}),
]


def _case_id(case: Case | Quiet) -> str:
    return f"{case.code}-{case.id}" if case.id else case.code


def test_every_code_has_a_case_that_fires_and_one_that_does_not() -> None:
    assert {c.code for c in FIRES} == set(CODES)
    assert {c.code for c in QUIET} == set(CODES)


@pytest.mark.parametrize("case", FIRES, ids=_case_id)
def test_fires_with_its_severity_a_tight_range_and_advice(case: Case) -> None:
    found = [f for f in findings_of(case.bank(), case.target) if f.code == case.code]
    assert len(found) == 1, found
    finding = found[0]
    assert finding.span == case.where
    assert finding.severity == (case.severity or CODES[case.code][0])
    assert case.advice in finding.message
    for text in case.also:
        assert text in finding.message


@pytest.mark.parametrize("case", QUIET, ids=_case_id)
def test_does_not_fire(case: Quiet) -> None:
    bank = bank_of_texts(case.files, case.config)
    assert case.code not in {f.code for f in findings_of(bank, case.target)}


# --- details of single codes --------------------------------------------------------------------


def test_duplicate_concept_is_reported_on_both_files() -> None:
    bank = bank_of_texts({"a.md": bare_header(), "b.md": bare_header()})
    for rel, other in (("a.md", "b.md"), ("b.md", "a.md")):
        dup = [f for f in check_file(bank, rel) if f.code == "CKP011"]
        assert [f.span for f in dup] == [Span(0, 9, 0, 12)]
        assert other in dup[0].message


def test_duplicate_concept_message_lists_the_other_files_sorted() -> None:
    bank = bank_of_texts({"c.md": bare_header(), "a.md": bare_header(), "b.md": bare_header()})
    dup = [f for f in check_file(bank, "a.md") if f.code == "CKP011"]
    assert "also declared by b.md, c.md: " in dup[0].message
    assert dup[0].data["others"] == ["b.md", "c.md"]


@pytest.mark.parametrize(
    ("written", "slug"),
    [("JWT Authentication", "jwt-authentication"), ("caffè", "caffe"), ("Crème Brûlée", "creme-brulee")],
)
def test_invalid_concept_carries_its_slug_for_the_quick_fix(written: str, slug: str) -> None:
    bank = bank_of_texts({"a.md": bare_header(CONCEPT=written)})
    (finding,) = [f for f in check_file(bank, "a.md") if f.code == "CKP010"]
    assert finding.data["suggestion"] == slug  # accented letters are transliterated, not dropped
    assert f"use '{slug}'" in finding.message


def test_unknown_concept_without_a_close_one_says_to_create_or_remove() -> None:
    bank = bank_of_texts({"a.md": bare_header(SIMILAR_HIGH="zzzzzz:2025-05"), "b.md": OAUTH2})
    (finding,) = [f for f in check_file(bank, "a.md") if f.code == "CKP041"]
    assert "create it or remove the entry" in finding.message
    assert finding.data["suggestion"] is None


def test_unknown_concept_carries_the_suggestion_for_the_quick_fix() -> None:
    bank = bank_of_texts({"a.md": bare_header(SIMILAR_HIGH="oauth3:2025-05"), "b.md": OAUTH2})
    (finding,) = [f for f in check_file(bank, "a.md") if f.code == "CKP041"]
    assert finding.data == {"concept": "oauth3", "suggestion": "oauth2"}


def test_ambiguous_keyword_lists_three_others_and_an_ellipsis_when_more() -> None:
    bank = bank_of_texts({f"{c}.md": bare_header(CONCEPT=c, ANSWERS_WHEN="API") for c in "abcde"})
    (finding,) = [f for f in check_file(bank, "a.md") if f.code == "CKP032"]
    assert "(b, c, d, …)" in finding.message
    assert finding.severity == Severity.INFORMATION


def test_ambiguous_keyword_is_case_insensitive() -> None:
    files = {
        f"{c}.md": bare_header(CONCEPT=c, ANSWERS_WHEN=kw)
        for c, kw in zip("abcd", ["API", "api", "Api", "aPI"], strict=True)
    }
    bank = bank_of_texts(files)
    assert all("CKP032" in {f.code for f in check_file(bank, rel)} for rel in files)


def test_stale_relationship_is_reported_per_entry() -> None:
    files = {
        "a.md": bare_header(SIMILAR_HIGH="b:2025-01, c:2025-01", SIMILAR_MID="d:2025-09"),
        "b.md": bare_header(CONCEPT="b", VALIDATED="2025-02"),
        "c.md": bare_header(CONCEPT="c", VALIDATED="2025-01"),
        "d.md": bare_header(CONCEPT="d", VALIDATED="2025-10"),
    }
    text = _text(files)
    stale = [f for f in check_file(bank_of_texts(files), "a.md") if f.code == "CKP050"]
    assert [f.span for f in stale] == [span_of_text(text, "b:2025-01"), span_of_text(text, "d:2025-09")]
    assert stale[0].data == {"concept": "b", "updated": "2025-02", "validated": "2025-01"}


def test_relationship_without_a_valid_date_is_never_stale() -> None:
    files = {
        "a.md": bare_header(SIMILAR_HIGH="b, c:2025-13"),
        "b.md": bare_header(CONCEPT="b", VALIDATED="2026-01"),
        "c.md": bare_header(CONCEPT="c", VALIDATED="2026-01"),
    }
    assert "CKP050" not in {f.code for f in check_file(bank_of_texts(files), "a.md")}


def test_relationships_to_a_file_without_validated_are_not_stale() -> None:
    files = {"a.md": bare_header(SIMILAR_HIGH="b:2025-01"), "b.md": bare_header(CONCEPT="b", VALIDATED=None)}
    assert "CKP050" not in {f.code for f in check_file(bank_of_texts(files), "a.md")}


def test_one_directional_relationships_are_never_a_diagnostic() -> None:
    files = {
        "a.md": bare_header(CONCEPT="a", SIMILAR_HIGH="b:2025-05"),
        "b.md": bare_header(CONCEPT="b", SIMILAR_MID="a:2025-05"),
        "c.md": bare_header(CONCEPT="c", SIMILAR_HIGH="a:2025-05"),
    }
    bank = bank_of_texts(files)
    assert all(check_file(bank, rel) == [] for rel in files)


def test_no_header_stops_other_findings_and_an_empty_file_points_at_its_start() -> None:
    bank = bank_of_texts({"a.md": ""})
    assert [(f.code, f.span) for f in check_file(bank, "a.md")] == [("CKP001", Span(0, 0, 0, 0))]


def test_no_header_range_counts_utf16_and_stops_at_any_line_break() -> None:
    for text, end in (("# Launch \U0001f680\nbody", 11), ("# Old Mac\rbody", 9), ("# Windows\r\nbody", 9)):
        (finding,) = check_file(bank_of_texts({"a.md": text}), "a.md")
        assert (finding.code, finding.span) == ("CKP001", Span(0, 0, 0, end))


def test_a_yaml_error_stops_the_field_checks() -> None:
    bank = bank_of_texts({"a.md": BAD_YAML})
    assert [f.code for f in check_file(bank, "a.md")] == ["CKP006"]


def test_unknown_field_without_a_close_one_lists_the_ckp_fields() -> None:
    bank = bank_of_texts({"a.md": bare_header(OWNER="me")})
    (finding,) = [f for f in check_file(bank, "a.md") if f.code == "CKP003"]
    assert "CKP fields are CONCEPT, TLDR" in finding.message


def test_quoted_front_matter_values_are_reported_without_their_quotes() -> None:
    text = "---\nCONCEPT: jwt\nTLDR: t.\nANSWERS_WHEN: jwt\nCONFIDENCE: \"sure\"\nVALIDATED: '2025-13'\n---\n"
    found = {f.code: f.span for f in check_file(bank_of_texts({"a.md": text}), "a.md")}
    assert found["CKP060"] == span_of_text(text, "sure")
    assert found["CKP051"] == span_of_text(text, "2025-13")


def test_findings_come_in_document_order() -> None:
    text = bare_header(CONFIDENCE="sure", SIMILAR_HIGH="Bad Entry", VALIDATED="2025-13")
    found = check_file(bank_of_texts({"a.md": text}), "a.md")
    positions = [(f.span.start_line, f.span.start_col) for f in found]
    assert positions == sorted(positions)
    assert [f.code for f in found] == ["CKP051", "CKP060", "CKP040"]


def test_missing_index_is_reported_once_the_bank_has_concepts() -> None:
    assert [f.code for f in check_index(bank_of_texts({"jwt.md": bare_header()}))] == ["CKP070"]
    assert check_index(bank_of_texts({"a.md": "no header\n"})) == []
