"""Code actions as pure functions: what Recompile says it changes and where it is offered, one
Regenerate action, and the change annotation that asks the user to confirm."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types

from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.compile.compiler import compile_header
from ckp_lsp.core.edit.fixes import Edit
from ckp_lsp.core.edit.header_changes import MINUS, describe, header_diff
from ckp_lsp.core.format.text import Span
from ckp_lsp.faces.banks import load_bank
from ckp_lsp.faces.clock import today
from ckp_lsp.server.client import ClientCapabilities
from ckp_lsp.server.features.actions import (
    REGENERATE_TITLE,
    recompile_action,
    recompile_annotation,
    regenerate_index,
    text_edit,
)
from tests.copies import copy_tree

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
URI = "file:///bank/domain/geography.md"


@pytest.fixture
def mentat(tmp_path: Path) -> Bank:
    copy_tree(SAMPLES / "mentat" / "memory-bank", tmp_path / "memory-bank")
    return load_bank(tmp_path / "memory-bank", today=today())


def test_describe_names_each_changed_field_with_counts() -> None:
    old = "CONCEPT: a\nTLDR: One.\nANSWERS_WHEN: x, y, z\nSIMILAR_MID: b:2026-01, c:2026-01\nVALIDATED: 2026-01\n"
    new = "CONCEPT: a\nTLDR: Two.\nANSWERS_WHEN: x, y, w, v\nSIMILAR_MID: b:2026-02\nVALIDATED: 2026-01\n"
    assert describe(old, new) == f"TLDR, +2 {MINUS}1 keywords, {MINUS}1 MID, 1 relationship date"
    assert describe(old, old) == "no change"
    # Order and case alone are no change of keywords.
    assert describe(old, old.replace("x, y, z", "Z, y, x")) == "no change"


def test_recompile_title_says_what_the_offline_compiler_would_change(mentat: Bank) -> None:
    rel = "domain/geography.md"
    text = (mentat.root / rel).read_text()
    action = recompile_action(mentat, rel, URI, text, 3, offline=True)
    assert action is not None and action.disabled is None
    assert (
        action.title.startswith("Recompile header: ") and action.kind == types.CodeActionKind.RefactorRewrite
    )
    new = compile_header(mentat, rel, text).text
    expected = describe(text, new, rel, names=True)
    assert action.title == f"Recompile header: {expected}"
    # An offline recompile of a complete header only adds, and the title names what it adds.
    added = header_diff(text, new, rel)["added"]
    assert added and MINUS not in action.title
    assert all(item in action.title for items in added.values() for item in items)
    assert action.command is not None and action.command.arguments == [URI]


def test_recompile_is_offered_on_the_header_only(mentat: Bank) -> None:
    rel = "patterns/jwt.md"
    text = (mentat.root / rel).read_text()
    header_end = text.split("\n").index("")  # the blank line after a bare header
    assert recompile_action(mentat, rel, URI, text, 0, offline=True) is not None
    assert recompile_action(mentat, rel, URI, text, header_end - 1, offline=True) is not None
    assert recompile_action(mentat, rel, URI, text, header_end, offline=True) is None
    assert recompile_action(mentat, rel, URI, text, header_end + 5, offline=True) is None


def test_recompile_with_an_llm_names_the_provider_and_asks_nothing_yet(mentat: Bank) -> None:
    rel = "patterns/jwt.md"
    text = (mentat.root / rel).read_text()
    action = recompile_action(mentat, rel, URI, text, 0, offline=False)
    assert action is not None and action.title == "Recompile header (offline)"  # the bank's provider
    assert action.command is not None and action.command.command == "ckp.recompile"


def test_recompile_that_would_change_nothing_is_disabled_with_the_reason(mentat: Bank) -> None:
    rel = "patterns/jwt.md"
    text = compile_header(mentat, rel, (mentat.root / rel).read_text()).text
    (mentat.root / rel).write_text(text)
    bank = load_bank(mentat.root, today=today())
    action = recompile_action(bank, rel, URI, text, 0, offline=True)  # a second run changes nothing
    assert action is not None and action.title == "Recompile header: no change"
    assert action.disabled is not None and action.command is None


def test_the_index_offers_one_regenerate_action(tmp_path: Path) -> None:
    copy_tree(SAMPLES / "broken" / "memory-bank", tmp_path / "memory-bank")
    bank = load_bank(tmp_path / "memory-bank")
    drift = types.Diagnostic(
        range=types.Range(start=types.Position(line=2, character=0), end=types.Position(line=2, character=5)),
        message="the index is missing rate-limiting",
        code="CKP070",
    )
    with_drift = regenerate_index(bank, [drift])
    assert [(a.title, a.kind) for a in with_drift] == [(REGENERATE_TITLE, types.CodeActionKind.QuickFix)]
    assert with_drift[0].diagnostics == [drift] and with_drift[0].edit is not None
    anywhere = regenerate_index(bank)
    assert [(a.title, a.kind) for a in anywhere] == [(REGENERATE_TITLE, types.CodeActionKind.Source)]


def test_an_up_to_date_index_offers_no_regenerate_action(mentat: Bank) -> None:
    assert regenerate_index(mentat) == []


def test_an_annotated_edit_carries_the_annotation_on_every_text_edit() -> None:
    edits = [Edit(Span(0, 0, 1, 0), "CONCEPT: a\n")]
    plain = text_edit(URI, 4, edits)
    assert plain.change_annotations is None
    annotated = text_edit(URI, 4, edits, recompile_annotation("TLDR"))
    assert annotated.change_annotations is not None
    [(key, note)] = annotated.change_annotations.items()
    # no confirmation: VS Code would show the change unticked, and its default choice apply nothing
    assert note.needs_confirmation is False and note.description == "Recompile header: TLDR"
    [doc] = annotated.document_changes or []
    assert isinstance(doc, types.TextDocumentEdit) and doc.text_document.version == 4
    assert all(isinstance(e, types.AnnotatedTextEdit) and e.annotation_id == key for e in doc.edits)


def test_annotations_only_for_clients_that_take_them() -> None:
    def caps(support: bool) -> types.ClientCapabilities:
        return types.ClientCapabilities(
            workspace=types.WorkspaceClientCapabilities(
                workspace_edit=types.WorkspaceEditClientCapabilities(
                    document_changes=True,
                    change_annotation_support=types.ChangeAnnotationsSupportOptions(groups_on_label=True)
                    if support
                    else None,
                )
            )
        )

    assert ClientCapabilities.of(caps(True)).change_annotations
    assert not ClientCapabilities.of(caps(False)).change_annotations
    assert not ClientCapabilities.of(types.ClientCapabilities()).change_annotations
    assert not ClientCapabilities.of(None).change_annotations


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[object, ...]]:
    """Every call of the offline compiler that the code actions make."""
    from ckp_lsp.server.features import actions

    made: list[tuple[object, ...]] = []
    real = actions.compile_header
    monkeypatch.setattr(actions, "compile_header", lambda *a: made.append(a) or real(*a))
    return made


def test_the_title_is_compiled_once_per_text_while_the_cursor_moves(
    mentat: Bank, calls: list[tuple[object, ...]]
) -> None:
    rel = "stack/database.md"
    text = (mentat.root / rel).read_text()
    titles = {recompile_action(mentat, rel, URI, text, line, offline=True).title for line in range(4)}  # type: ignore[union-attr]
    assert len(titles) == 1 and len(calls) == 1
    recompile_action(mentat, rel, URI, text + "\nMore body.\n", 0, offline=True)  # another text
    assert len(calls) == 2


def test_what_is_kept_of_a_bank_goes_with_it_and_is_bounded(
    tmp_path: Path, mentat: Bank, calls: list[tuple[object, ...]]
) -> None:
    import gc

    from ckp_lsp.server.features import actions

    rel = "stack/database.md"
    text = (mentat.root / rel).read_text()
    # Another bank of the same files, at the same revision: its titles are its own, not the first's.
    other = load_bank(copy_tree(mentat.root, tmp_path / "other" / "memory-bank"), today=today())
    other_root = other.root
    assert other.revision == mentat.revision
    recompile_action(mentat, rel, URI, text, 0, offline=True)
    recompile_action(other, rel, URI, text, 0, offline=True)
    assert len(calls) == 2
    for n in range(actions._CHANGES_KEPT + 5):
        recompile_action(other, rel, URI, text + f"\nBody {n}.\n", 0, offline=True)
    assert len(actions._CHANGES[other]) <= actions._CHANGES_KEPT
    del other
    calls.clear()  # the calls recorded hold the bank too
    gc.collect()
    roots = {b.root for b in actions._CHANGES}
    assert mentat.root in roots and other_root not in roots


def test_the_root_uris_kept_are_bounded() -> None:
    from ckp_lsp.server.convert import _root_uri, uri_in

    for n in range(1100):
        assert uri_in(Path(f"/banks/b{n}"), "a b.md") == f"file:///banks/b{n}/a%20b.md"
    assert _root_uri.cache_info().currsize <= 1024
