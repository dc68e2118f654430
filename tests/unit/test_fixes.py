"""Quick fixes of SPEC §4: each removes its finding and changes nothing else, in every header form."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

import pytest

from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.bank.checks import check_file
from ckp_lsp.core.bank.findings import Finding
from ckp_lsp.core.edit.fixes import SAFE_CODES, Edit, apply_edits, fix_text, fixes_for
from ckp_lsp.core.format.text import Span
from ckp_lsp.faces.clock import this_month
from tests.unit.builders import bank_of_texts

Fields = Mapping[str, "str | list[str]"]

#: how a header is written: bare, or front matter with lists as a comma string, a block list, a
#: flow list (plain or quoted items); some with CRLF line endings
FORMS = ["bare", "bare-crlf", "inline", "inline-quoted", "block", "block-crlf", "flow", "flow-quoted"]


def render(form: str, fields: Fields) -> str:
    """A knowledge file with ``fields`` as its header in ``form``, user keys and a body."""
    style = form.removesuffix("-crlf")
    if style == "bare":
        lines = [f"{k}: {', '.join(v) if isinstance(v, list) else v}" for k, v in fields.items()]
        lines += ["", "# Auth", "", "Body text: it stays.", ""]
    else:
        lines = ["---", "title: Authentication", "tags: [security, auth]"]
        for key, value in fields.items():
            if not isinstance(value, list):
                lines.append(f"{key}: {value}")
            elif style == "block":
                lines += [f"{key}:", *(f"  - {v}" for v in value)]
            elif style == "flow":
                lines.append(f"{key}: [{', '.join(value)}]")
            elif style == "flow-quoted":
                lines.append(f"{key}: [{', '.join(f'{chr(34)}{v}{chr(34)}' for v in value)}]")
            elif style == "inline-quoted":
                lines.append(f'{key}: "{", ".join(value)}"')
            else:
                lines.append(f"{key}: {', '.join(value)}")
        lines += ["owner: platform-team", "---", "", "Body text: it stays.", ""]
    return ("\r\n" if form.endswith("-crlf") else "\n").join(lines)


def bare(concept: str, validated: str = "2026-10") -> str:
    return f"CONCEPT: {concept}\nTLDR: About {concept}.\nANSWERS_WHEN: {concept}\nVALIDATED: {validated}\n\nBody.\n"


OTHERS = {f"{c}.md": bare(c) for c in ("jwt", "oauth2", "cors", "http-headers")}
BASE: dict[str, str | list[str]] = {
    "CONCEPT": "auth",
    "TLDR": "Authentication of the API.",
    "ANSWERS_WHEN": ["auth", "login", "guard"],
    "SIMILAR_HIGH": ["jwt:2026-10", "oauth2:2026-10"],
    "SIMILAR_MID": ["cors:2026-10"],
    "CONFIDENCE": "high",
    "VALIDATED": "2026-10",
}
MONTH = this_month()

#: code -> (fields that raise it, fields after its preferred fix); unchanged fields come from BASE
CASES: dict[str, tuple[Fields, Fields]] = {
    "CKP050": (
        {"SIMILAR_HIGH": ["jwt:2026-09", "oauth2:2026-10"]},
        {"SIMILAR_HIGH": [f"jwt:{MONTH}", "oauth2:2026-10"]},
    ),
    "CKP046": (
        {"SIMILAR_HIGH": ["jwt:2026-10", "oauth2"]},
        {"SIMILAR_HIGH": ["jwt:2026-10", f"oauth2:{MONTH}"]},
    ),
    "CKP041": (
        {"SIMILAR_HIGH": ["jwt:2026-10", "oauht2:2026-10"]},
        {"SIMILAR_HIGH": ["jwt:2026-10", "oauth2:2026-10"]},
    ),
    "CKP042": (
        {"SIMILAR_HIGH": ["jwt:2026-10", "auth:2026-10", "oauth2:2026-10"]},
        {"SIMILAR_HIGH": ["jwt:2026-10", "oauth2:2026-10"]},
    ),
    "CKP043": (
        {"SIMILAR_MID": ["cors:2026-10", "http-headers:2026-10", "cors:2026-10"]},
        {"SIMILAR_MID": ["cors:2026-10", "http-headers:2026-10"]},
    ),
    # The entry to remove comes first in its list.
    "CKP044": ({"SIMILAR_MID": ["jwt:2026-10", "cors:2026-10"]}, {"SIMILAR_MID": ["cors:2026-10"]}),
    "CKP045": (
        {
            "SIMILAR_HIGH": ["jwt:2026-10", "oauth2:2026-10", "http-headers:2026-10", "cors:2026-10"],
            "SIMILAR_MID": [],
        },
        {"SIMILAR_HIGH": ["jwt:2026-10", "oauth2:2026-10", "http-headers:2026-10"], "SIMILAR_MID": []},
    ),
    "CKP003": ({"VALIDATE": "2026-10"}, {"VALIDATED": "2026-10"}),
    "CKP010": ({"CONCEPT": "Auth Flow"}, {"CONCEPT": "auth-flow"}),
    "CKP030": (
        {"ANSWERS_WHEN": ["auth", "Login", "guard", "login"]},
        {"ANSWERS_WHEN": ["auth", "Login", "guard"]},
    ),
    "CKP060": ({"CONFIDENCE": "hihg"}, {"CONFIDENCE": "high"}),
}


def fields_with(change: Fields) -> dict[str, str | list[str]]:
    """BASE with ``change`` applied in place; [] drops a field, and a key that is not BASE's
    stands where the BASE key it misspells (is a prefix of) was."""
    out: dict[str, str | list[str]] = {}
    for key, value in BASE.items():
        key = next((k for k in change if k not in BASE and key.startswith(k)), key)
        value = change.get(key, value)
        if value != []:
            out[key] = value
    return out


def codes(findings: list[Finding]) -> Counter[str]:
    return Counter(f.code for f in findings)


def file_bank(text: str) -> Bank:
    return bank_of_texts({**OTHERS, "auth.md": text})


def first_fix_applied(text: str, code: str) -> str:
    """``text``, as auth.md beside OTHERS, with the first fix of its one ``code`` finding applied."""
    bank = file_bank(text)
    [finding] = [f for f in check_file(bank, "auth.md") if f.code == code]
    return apply_edits(text, fixes_for(bank, bank.files["auth.md"], finding)[0].edits)


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("code", sorted(CASES))
def test_a_fix_removes_its_finding_and_changes_nothing_else(code: str, form: str) -> None:
    bad, good = CASES[code]
    text = render(form, fields_with(bad))
    bank = file_bank(text)
    before = check_file(bank, "auth.md")
    [finding] = [f for f in before if f.code == code]
    fixes = fixes_for(bank, bank.files["auth.md"], finding)
    assert fixes, f"no fix for {code}"
    fix = next((fx for fx in fixes if fx.preferred), fixes[0])
    assert fix.findings == [finding]
    assert fix.safe == (code in SAFE_CODES)
    fixed = apply_edits(text, fix.edits)
    assert fixed == render(form, fields_with(good))
    bank.set_file("auth.md", fixed)
    after, expected = codes(check_file(bank, "auth.md")), codes(before) - Counter({code: 1})
    assert after[code] == expected[code]
    assert not after - expected, "the fix raised a new finding"  # it may resolve a consequence (CKP002)


def test_a_rename_offers_the_closest_concepts_best_first() -> None:
    bank = file_bank(render("bare", fields_with({"SIMILAR_HIGH": ["oaut:2026-10"]})))
    [finding] = [f for f in check_file(bank, "auth.md") if f.code == "CKP041"]
    fixes = fixes_for(bank, bank.files["auth.md"], finding)
    assert fixes[0].title == "Replace with 'oauth2'" and fixes[0].preferred
    assert not any(fx.preferred for fx in fixes[1:])
    assert not any(fx.safe for fx in fixes)  # a guess is never applied unseen


def test_a_block_list_with_a_comment_after_its_key_loses_only_the_duplicate() -> None:
    text = render("block", fields_with(CASES["CKP030"][0])).replace(
        "ANSWERS_WHEN:\n", "ANSWERS_WHEN:  # keywords\n"
    )
    fixed = first_fix_applied(text, "CKP030")
    assert fixed == text.replace("  - guard\n  - login\n", "  - guard\n")


def test_a_multi_line_flow_list_keeps_its_lines() -> None:
    text = render("flow", fields_with(CASES["CKP030"][0])).replace(
        "[auth, Login, guard, login]", "[auth, Login,\n  guard, login]"
    )
    fixed = first_fix_applied(text, "CKP030")
    assert "ANSWERS_WHEN: [auth, Login,\n  guard]\n" in fixed


# --- fix_text: every safe fix at once --------------------------------------------------------


@pytest.mark.parametrize("form", FORMS)
def test_fix_text_applies_every_safe_fix_and_nothing_else(form: str) -> None:
    bad: Fields = {
        "CONCEPT": "Auth Flow",
        "ANSWERS_WHEN": ["auth", "login", "Auth", "guard", "LOGIN"],
        "SIMILAR_HIGH": ["jwt:2026-10", "jwt:2026-10", "oauth2:2026-09"],  # CKP043, and a stale one
        "SIMILAR_MID": ["oauth2:2026-10", "cors:2026-10", "http-headers"],  # CKP044, and no date
        "CONFIDENCE": "Hihg",
    }
    good: Fields = {
        "CONCEPT": "auth-flow",
        "ANSWERS_WHEN": ["auth", "login", "guard"],
        "SIMILAR_HIGH": ["jwt:2026-10", "oauth2:2026-09"],
        "SIMILAR_MID": ["cors:2026-10", "http-headers"],
        "CONFIDENCE": "high",
    }
    text = render(form, fields_with(bad))
    bank = file_bank(text)
    fixed, applied = fix_text(bank, "auth.md", text)
    assert fixed == render(form, fields_with(good))
    assert applied == 6
    bank.set_file("auth.md", fixed)
    left = codes(check_file(bank, "auth.md"))
    assert not set(left) & SAFE_CODES
    assert left == Counter({"CKP050": 1, "CKP046": 1})  # not certain enough to apply unseen


def test_fix_text_leaves_a_file_without_safe_findings_alone() -> None:
    text = render("block", fields_with(CASES["CKP050"][0]))
    assert fix_text(file_bank(text), "auth.md", text) == (text, 0)


# --- apply_edits -----------------------------------------------------------------------------


def test_apply_edits_counts_utf16_columns_and_keeps_crlf() -> None:
    text = "CONCEPT: 🔑-x\r\nANSWERS_WHEN: 🔑 key, lock\r\n\r\nBody 🔑\r\n"
    # "lock" starts at UTF-16 column 22 of line 1: the key emoji counts twice.
    edits = [Edit(Span(1, 22, 1, 26), "padlock"), Edit(Span(0, 9, 0, 13), "key-x")]
    assert apply_edits(text, edits) == "CONCEPT: key-x\r\nANSWERS_WHEN: 🔑 key, padlock\r\n\r\nBody 🔑\r\n"


def test_apply_edits_removes_whole_lines() -> None:
    text = "a\r\nb\r\nc"
    assert apply_edits(text, [Edit(Span(1, 0, 2, 0), "")]) == "a\r\nc"
    assert apply_edits(text, []) == text


@pytest.mark.parametrize(
    ("code", "key", "plain", "written", "fixed"),
    [
        (
            "CKP030",
            "ANSWERS_WHEN",
            "[auth, Login, guard, login]",
            "['auth', \"Login\", 'guard', \"login\"]",
            "['auth', \"Login\", 'guard']",
        ),
        (
            "CKP030",
            "ANSWERS_WHEN",
            "[auth, Login, guard, login]",
            "[\"login\", 'auth', \"Login\", 'guard']",
            "[\"login\", 'auth', 'guard']",
        ),
        (
            "CKP030",
            "ANSWERS_WHEN",
            "[auth, Login, guard, login]",
            "['auth', \"login\", 'Login', \"guard\"]",
            '[\'auth\', "login", "guard"]',
        ),
        (
            "CKP044",
            "SIMILAR_MID",
            "[jwt:2026-10, cors:2026-10]",
            "[\"jwt:2026-10\", 'cors:2026-10']",
            "['cors:2026-10']",
        ),
    ],
)
def test_removing_from_a_flow_list_of_mixed_quotes_keeps_each_kept_items_quotes(
    code: str, key: str, plain: str, written: str, fixed: str
) -> None:
    text = render("flow", fields_with(CASES[code][0])).replace(f"{key}: {plain}", f"{key}: {written}")
    assert written in text
    result = first_fix_applied(text, code)
    assert f"{key}: {fixed}\n" in result
    assert result.replace(f"{key}: {fixed}", "") == text.replace(f"{key}: {written}", "")


def test_replacements_for_an_unknown_concept_are_concept_names_only() -> None:
    """A display name declared as CONCEPT (CKP010) is never offered: written into an entry it would be
    a new CKP040."""
    bank = bank_of_texts(
        {
            "a.md": "CONCEPT: login\nTLDR: t.\nANSWERS_WHEN: login\nSIMILAR_HIGH: jwt-authentication:2026-10\n",
            "b.md": "CONCEPT: JWT Authentication\nTLDR: t.\nANSWERS_WHEN: jwt\n",
            "c.md": "CONCEPT: jwt-auth\nTLDR: t.\nANSWERS_WHEN: auth\n",
        }
    )
    [finding] = [f for f in check_file(bank, "a.md") if f.code == "CKP041"]
    assert "JWT Authentication" not in finding.message and "did you mean 'jwt-auth'?" in finding.message
    titles = [fx.title for fx in fixes_for(bank, bank.files["a.md"], finding)]
    assert titles == ["Replace with 'jwt-auth'"]
