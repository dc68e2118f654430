"""Renaming a concept: prepareRename, the checks on the new name, the edit, and that applying it
leaves a consistent bank."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lsprotocol import types
from pytest_lsp import client_capabilities

from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.bank.checks import check_file
from ckp_lsp.core.bank.index_checks import check_index
from ckp_lsp.core.format.fields import Header
from ckp_lsp.core.format.index import update_index_text
from ckp_lsp.core.format.text import split_lines, utf16_len
from ckp_lsp.core.navigation.references import plan_rename, rename_problem
from ckp_lsp.core.project.discovery import INDEX_NAME
from ckp_lsp.faces.banks import load_bank
from ckp_lsp.server.client import ClientCapabilities
from ckp_lsp.server.convert import uri_of
from ckp_lsp.server.features.rename import RenameRejected, prepare_rename, rename
from ckp_lsp.server.state import Doc
from tests.copies import copy_tree
from tests.edits import apply_text_edits, apply_to_disk

ROOT = Path(__file__).resolve().parents[2]
CLEAN = ROOT / "tests" / "data" / "navigation" / "clean" / "memory-bank"
BROKEN = ROOT / "samples" / "broken" / "memory-bank"
VSCODE = ClientCapabilities.of(client_capabilities("visual-studio-code"))
#: a client that takes neither documentChanges nor file operations
PLAIN = ClientCapabilities.of(
    types.ClientCapabilities(workspace=types.WorkspaceClientCapabilities(workspace_edit=None))
)


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    root = tmp_path / "memory-bank"
    copy_tree(CLEAN, root)
    return root.resolve()


@pytest.fixture(scope="module")
def bank() -> Bank:
    return load_bank(CLEAN.resolve())


def where(root: Path, rel: str, needle: str, offset: int = 0) -> tuple[int, int]:
    for i, line in enumerate(split_lines((root / rel).read_text(encoding="utf-8"))):
        j = line.find(needle)
        if j >= 0:
            return i, utf16_len(line[: j + offset])
    raise AssertionError(f"{needle!r} not in {rel}")


def findings(bank: Bank) -> list[tuple[str, str]]:
    """Every finding of the bank, files and index, as (path, code)."""
    out = [(rel, f.code) for rel in sorted(bank.files) for f in check_file(bank, rel)]
    return out + [(INDEX_NAME, f.code) for f in check_index(bank)]


def body(path: Path, header: Header | None) -> str:
    """The text after the header."""
    return "\n".join(path.read_text(encoding="utf-8").split("\n")[header.end_line if header else 0 :])


# --- prepareRename -----------------------------------------------------------------------------


def test_prepare_on_concept_returns_its_range_and_name(bank: Bank):
    got = prepare_rename(Doc(bank, "tokens/jwt.md"), 0, 15)
    assert isinstance(got, types.PrepareRenamePlaceholder)
    assert got.placeholder == "jwt"
    assert (got.range.start.line, got.range.start.character, got.range.end.character) == (0, 14, 17)


def test_prepare_on_an_entry_returns_the_concept_part_only(bank: Bank):
    line, col = where(CLEAN, "sessions.md", "oauth2:2026-10", offset=2)
    got = prepare_rename(Doc(bank, "sessions.md"), line, col)
    assert got is not None and got.placeholder == "oauth2"
    assert (got.range.start.character, got.range.end.character) == (col - 2, col - 2 + len("oauth2"))


def test_prepare_on_an_index_cell(bank: Bank):
    line, col = where(CLEAN, INDEX_NAME, "| sessions |", offset=3)
    got = prepare_rename(Doc(bank, INDEX_NAME), line, col)
    assert got is not None and got.placeholder == "sessions"


@pytest.mark.parametrize(
    ("rel", "needle", "offset"),
    [
        ("sessions.md", "jwt:2026-10", 6),  # the entry's date
        ("sessions.md", "Server-side", 0),  # TLDR
        ("sessions.md", "CONCEPT", 2),  # a key
        ("tokens/jwt.md", "Access tokens live", 0),  # the body
        (INDEX_NAME, "| tokens/jwt.md |", 4),  # a FILE cell
    ],
)
def test_prepare_rejects_other_positions(bank: Bank, rel: str, needle: str, offset: int):
    line, col = where(CLEAN, rel, needle, offset)
    assert prepare_rename(Doc(bank, rel), line, col) is None


def test_prepare_rejects_an_unknown_concept():
    broken = load_bank(BROKEN.resolve())
    line, col = where(BROKEN, "logging.md", "oauth:2026-10", 1)
    assert prepare_rename(Doc(broken, "logging.md"), line, col) is None


# --- the new name ------------------------------------------------------------------------------


@pytest.mark.parametrize("new", ["JWT", "-jwt", "json web token", "", "jwt/2", "ünïcode"])
def test_invalid_new_name_is_rejected_with_the_rule(bank: Bank, new: str):
    with pytest.raises(RenameRejected) as err:
        rename(Doc(bank, "tokens/jwt.md"), 0, 15, new, VSCODE)
    assert "not a valid concept name" in err.value.message
    assert err.value.code == types.LSPErrorCodes.RequestFailed


def test_existing_name_is_rejected_naming_its_file(bank: Bank):
    with pytest.raises(RenameRejected) as err:
        rename(Doc(bank, "tokens/jwt.md"), 0, 15, "oauth2", VSCODE)
    assert "'oauth2' already exists" in err.value.message and "oauth2.md" in err.value.message


def test_a_file_in_the_way_is_rejected(copy: Path):
    (copy / "tokens" / "token.md").write_text("Not a knowledge file yet.\n")
    bank = load_bank(copy)
    assert rename_problem(bank, "jwt", "token") is not None
    assert "tokens/token.md already exists" in (rename_problem(bank, "jwt", "token") or "")
    assert rename_problem(bank, "jwt", "token", move_files=False) is None


def test_rename_elsewhere_than_a_concept_is_rejected(bank: Bank):
    line, col = where(CLEAN, "sessions.md", "Server-side")
    with pytest.raises(RenameRejected):
        rename(Doc(bank, "sessions.md"), line, col, "x", VSCODE)


def test_same_name_changes_nothing(bank: Bank):
    edit = rename(Doc(bank, "tokens/jwt.md"), 0, 15, "jwt", VSCODE)
    assert not edit.document_changes and not edit.changes


# --- the edit ----------------------------------------------------------------------------------


def test_edit_with_document_changes_versions_and_a_file_rename(bank: Bank):
    jwt_uri = uri_of(bank.root / "tokens/jwt.md")
    edit = rename(
        Doc(bank, "tokens/jwt.md"), 0, 15, "token", VSCODE, lambda uri: 7 if uri == jwt_uri else None
    )
    assert edit.changes is None and edit.document_changes is not None
    # The file moves first; the text changes follow, the moved file's at its new place.
    first, *texts = edit.document_changes
    token_uri = uri_of(bank.root / "tokens/token.md")
    assert isinstance(first, types.RenameFile)
    assert (first.old_uri, first.new_uri) == (jwt_uri, token_uri)
    assert all(isinstance(c, types.TextDocumentEdit) for c in texts)
    by_uri = {c.text_document.uri: c for c in texts if isinstance(c, types.TextDocumentEdit)}
    assert set(by_uri) == {
        uri_of(bank.root / rel)
        for rel in ("tokens/token.md", "oauth2.md", "sessions.md", "guides/login-flow.md", INDEX_NAME)
    }
    assert by_uri[token_uri].text_document.version is None  # a new document once moved
    assert by_uri[uri_of(bank.root / "sessions.md")].text_document.version is None
    index_texts = {e.new_text for e in by_uri[uri_of(bank.root / INDEX_NAME)].edits}  # type: ignore[union-attr]
    assert index_texts == {"token", "tokens/token.md"}


def test_edit_without_resource_operations_is_plain_changes_and_keeps_the_file(bank: Bank):
    edit = rename(Doc(bank, "tokens/jwt.md"), 0, 15, "token", PLAIN)
    assert edit.document_changes is None and edit.changes is not None
    index_edits = edit.changes[uri_of(bank.root / INDEX_NAME)]
    assert {e.new_text for e in index_edits} == {"token"}  # the FILE cell stays: the file keeps its name
    assert len(index_edits) == 4  # the jwt row's CONCEPT, and the entries of login, oauth2 and sessions


def test_a_file_not_named_after_its_concept_is_not_renamed(bank: Bank):
    edit = rename(Doc(bank, "guides/login-flow.md"), 0, 15, "sign-in", VSCODE)
    assert not any(isinstance(c, types.RenameFile) for c in edit.document_changes or [])


@pytest.mark.parametrize(
    ("rel", "needle", "new", "moved"),
    [
        (
            "tokens/jwt.md",
            "CONCEPT:      jwt",
            "json-web-token",
            ("tokens/jwt.md", "tokens/json-web-token.md"),
        ),
        ("sessions.md", "oauth2:2026-10", "oauth", ("oauth2.md", "oauth.md")),  # from an entry, front matter
        ("oauth2.md", "- jwt:", "token", ("tokens/jwt.md", "tokens/token.md")),
        ("tokens/jwt.md", "sessions:", "session-store", ("sessions.md", "session-store.md")),
        (INDEX_NAME, "| login |", "sign-in", None),
    ],
)
def test_applying_the_edit_renames_everywhere_and_leaves_the_bank_consistent(
    copy: Path, rel: str, needle: str, new: str, moved: tuple[str, str] | None
):
    bank = load_bank(copy)
    assert findings(bank) == []
    line, col = where(copy, rel, needle, offset=len(needle) - 1 if needle.startswith("CONCEPT") else 3)
    old = prepare_rename(Doc(bank, rel), line, col)
    assert old is not None
    bodies = {p: body(copy / p, bank.files[p].header) for p in bank.files}
    apply_to_disk(rename(Doc(bank, rel), line, col, new, VSCODE))
    after = load_bank(copy)
    assert findings(after) == []  # no unknown concept, no index drift
    assert old.placeholder not in after.by_concept and old.placeholder not in after.backlinks
    assert sorted(after.backlinks.get(new, ())) == sorted(
        moved[1] if moved and p == moved[0] else p for p in bank.backlinks.get(old.placeholder, ())
    )
    assert after.by_concept[new] == [moved[1] if moved else bank.by_concept[old.placeholder][0]]
    if moved is not None:
        assert not (copy / moved[0]).exists()
    for p, text in bodies.items():  # bodies are never touched
        target = moved[1] if moved and p == moved[0] else p
        assert body(copy / target, after.files[target].header) == text


def test_applying_plain_changes_keeps_the_bank_consistent(copy: Path):
    bank = load_bank(copy)
    apply_to_disk(rename(Doc(bank, "tokens/jwt.md"), 0, 15, "token", PLAIN))
    after = load_bank(copy)
    assert findings(after) == []
    assert after.by_concept["token"] == ["tokens/jwt.md"]


def test_rename_edits_a_blocks_index_too(copy: Path):
    bank = load_bank(copy)
    (copy / INDEX_NAME).write_text(update_index_text(None, bank, form="blocks"))
    bank = load_bank(copy)
    apply_to_disk(rename(Doc(bank, "tokens/jwt.md"), 0, 15, "token", VSCODE))
    after = load_bank(copy)
    assert check_index(after) == []
    text = (copy / INDEX_NAME).read_text()
    assert "CONCEPT: token" in text and "FILE: tokens/token.md" in text and "jwt:" not in text


# --- properties and speed ----------------------------------------------------------------------

NAMES = st.from_regex(r"[a-z0-9][a-z0-9._-]{0,15}", fullmatch=True)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(concept=st.sampled_from(["jwt", "oauth2", "sessions", "login"]), new=NAMES)
def test_any_valid_new_name_gives_a_consistent_bank(bank: Bank, concept: str, new: str):
    problem = rename_problem(bank, concept, new, move_files=False)
    if new in bank.by_concept and new != concept:
        assert problem is not None
        return
    assert problem is None
    plan = plan_rename(bank, concept, new, move_files=False)
    renamed = Bank(bank.root)
    for rel in bank.files:
        text = (bank.root / rel).read_text(encoding="utf-8")
        renamed.set_file(rel, _apply(text, plan.edits.get(rel, [])))
    renamed.index_text = _apply(bank.index_text or "", plan.edits.get(INDEX_NAME, []))
    assert sorted(renamed.by_concept) == sorted(new if c == concept else c for c in bank.by_concept)
    assert renamed.backlinks.get(new) == bank.backlinks.get(concept)
    assert check_index(renamed) == []


def _apply(text: str, spans: list) -> str:
    edits = [
        types.TextEdit(
            range=types.Range(
                start=types.Position(line=s.start_line, character=s.start_col),
                end=types.Position(line=s.end_line, character=s.end_col),
            ),
            new_text=t,
        )
        for s, t in spans
    ]
    return apply_text_edits(text, edits)


def test_renaming_a_concept_named_by_a_thousand_files_edits_every_one(tmp_path: Path):
    bank = Bank(tmp_path)
    bank.set_file("hub.md", "CONCEPT: hub\nTLDR: The hub.\nANSWERS_WHEN: hub\nVALIDATED: 2026-10\n")
    for i in range(1000):
        bank.set_file(
            f"spokes/s{i:04}.md",
            f"CONCEPT: s{i:04}\nTLDR: Spoke {i}.\nANSWERS_WHEN: spoke {i}\n"
            f"SIMILAR_HIGH: hub:2026-10\nVALIDATED: 2026-10\n\nBody.\n",
        )
    bank.index_text = update_index_text(None, bank)
    edit = rename(Doc(bank, "hub.md"), 0, 10, "center", VSCODE)
    changes = edit.document_changes or []
    assert len(changes) == 1000 + 2 + 1  # the spokes, hub.md, the index, and the file rename
