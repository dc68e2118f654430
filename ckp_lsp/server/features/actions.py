"""Code actions: quick fixes attached to their diagnostics, fix-all, recompile, regenerate index."""

from __future__ import annotations

from collections.abc import Sequence
from weakref import WeakKeyDictionary

from lsprotocol import types

from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.bank.checks import check_file
from ckp_lsp.core.bank.findings import Finding
from ckp_lsp.core.edit.fixes import Edit, Fix, fix_text, fixes_for, revalidate_all
from ckp_lsp.core.edit.header_changes import describe
from ckp_lsp.core.edit.rewrite import header_region
from ckp_lsp.core.format.text import BOM, Span, split_lines, utf16_len, visible_controls

from ...core.compile.compiler import compile_header
from ...core.compile.model import CompileError
from ..convert import to_range, to_span
from .index_upkeep import index_edit

FIX_ALL = "source.fixAll.ckp"
RECOMPILE = "ckp.recompile"


def text_edit(
    uri: str,
    version: int | None,
    edits: list[Edit],
    confirm: types.ChangeAnnotation | None = None,
    bom: bool = False,
) -> types.WorkspaceEdit:
    """A WorkspaceEdit of core edits on one document (versioned when the editor has it open).

    ``bom``: the edits' spans are the core's (the text without the BOM the editor's text starts
    with), as a fix's are; an edit of a prefix the BOM is part of (``replace_prefix_edit``) is not.

    With ``confirm`` every edit carries that change annotation: an editor that supports them
    shows its label and description with the change (VS Code's Refactor Preview, its undo), and
    asks the user first when it needs confirmation.
    """
    changes: list[types.TextEdit | types.AnnotatedTextEdit] = [
        types.TextEdit(range=to_range(e.span, bom), new_text=e.text)
        if confirm is None
        else types.AnnotatedTextEdit(range=to_range(e.span, bom), new_text=e.text, annotation_id=RECOMPILE)
        for e in edits
    ]
    return types.WorkspaceEdit(
        document_changes=[
            types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version),
                edits=changes,
            )
        ],
        change_annotations={RECOMPILE: confirm} if confirm is not None else None,
    )


def recompile_annotation(changes: str) -> types.ChangeAnnotation:
    """The annotation a recompile's edit carries: what it changes. It asks no confirmation: the
    action's title said what changes, the edit is undone at once, and an edit that needs one
    starts unticked in VS Code's Refactor Preview, so that its default choice would apply
    nothing."""
    return types.ChangeAnnotation(
        label="Recompile CKP header", needs_confirmation=False, description=f"Recompile header: {changes}"
    )


def header_lines(text: str) -> int:
    """How many lines the header of ``text`` spans (1 for a file without one: its first line)."""
    region = header_region(text.removeprefix("\ufeff"))
    return max(region.body_line, 1)


def recompile_action(
    bank: Bank, rel: str, uri: str, text: str, line: int, offline: bool
) -> types.CodeAction | None:
    """*Recompile header* on the header's lines (None elsewhere), its title saying what changes.

    The offline compiler is fast and deterministic, so its result is computed here for the title
    (``Recompile header: TLDR, +2 −1 keywords, −1 MID``); an LLM's answer is known only once asked.
    """
    if not text or line >= header_lines(text):
        return None
    command = types.Command(title="Recompile CKP header", command=RECOMPILE, arguments=[uri])
    if not offline:
        return types.CodeAction(
            title=f"Recompile header ({bank.config.llm.provider})",
            kind=types.CodeActionKind.RefactorRewrite,
            command=command,
        )
    changes = _offline_changes(bank, rel, text)
    if isinstance(changes, CompileError):
        return types.CodeAction(
            title="Recompile header",
            kind=types.CodeActionKind.RefactorRewrite,
            disabled=types.CodeActionDisabled(reason=str(changes)),
        )
    if changes == "no change":
        return types.CodeAction(
            title="Recompile header: no change",
            kind=types.CodeActionKind.RefactorRewrite,
            disabled=types.CodeActionDisabled(reason="the offline compiler would write the same header"),
        )
    return types.CodeAction(
        title=f"Recompile header: {changes}", kind=types.CodeActionKind.RefactorRewrite, command=command
    )


#: for each bank, (its revision, file, text) -> what the offline compiler would change. An editor
#: asks for code actions at every move of the cursor: the header is compiled once per text and bank
#: state. What is kept of a bank goes with it, and holds at most ``_CHANGES_KEPT`` texts.
_CHANGES: WeakKeyDictionary[Bank, dict[tuple[int, str, str], str | CompileError]] = WeakKeyDictionary()
_CHANGES_KEPT = 16


def _offline_changes(bank: Bank, rel: str, text: str) -> str | CompileError:
    kept = _CHANGES.setdefault(bank, {})
    key = (bank.revision, rel, text)
    found = kept.get(key)
    if found is None:
        try:
            compiled = compile_header(bank, rel, text)
            found = "no change" if compiled.text == text else describe(text, compiled.text, rel, names=True)
        except CompileError as exc:
            found = exc
        if len(kept) >= _CHANGES_KEPT:
            kept.clear()
        kept[key] = found
    return found


def replace_prefix_edit(old_prefix: str, new_prefix: str) -> Edit:
    """An edit replacing the first ``old_prefix`` characters of a document (its header)."""
    lines = split_lines(old_prefix)
    return Edit(Span(0, 0, len(lines) - 1, utf16_len(lines[-1])), new_prefix)


def quick_fixes(
    bank: Bank,
    rel: str,
    uri: str,
    version: int | None,
    context: Sequence[types.Diagnostic],
    offline: bool,
    text: str,
) -> list[types.CodeAction]:
    """Quick fixes for the diagnostics in the request's context (``text``: the editor's)."""
    kf = bank.files.get(rel)
    if kf is None:
        return []
    findings = check_file(bank, rel)
    # By code and range: an editor may send thousands of diagnostics (3,000 copies of a keyword).
    by_key: dict[tuple[str, Span], list[Finding]] = {}
    for f in findings:
        by_key.setdefault((f.code, f.span), []).append(f)
    actions: list[types.CodeAction] = []
    bom = text.startswith(BOM)  # the diagnostics' ranges count it on line 0, the findings' not
    for diag in context:
        key = (str(diag.code), to_span(diag.range, bom))
        for f in by_key.get(key, ()):
            if f.code == "CKP001":
                actions.append(_insert_header(bank, rel, uri, version, diag, offline, text))
                continue
            for fx in fixes_for(bank, kf, f):
                actions.append(_action(fx, uri, version, [diag], bom))
    every = revalidate_all(bank, kf, findings)
    if every is not None and any(str(d.code) == "CKP050" for d in context):
        stale = [d for d in context if str(d.code) == "CKP050"]
        actions.append(_action(every, uri, version, stale, bom))
    return actions


def _action(
    fx: Fix, uri: str, version: int | None, diags: list[types.Diagnostic], bom: bool
) -> types.CodeAction:
    return types.CodeAction(
        title=visible_controls(fx.title),
        kind=types.CodeActionKind.QuickFix,
        diagnostics=diags,
        is_preferred=fx.preferred or None,
        edit=text_edit(uri, version, fx.edits, bom=bom),
    )


def _insert_header(
    bank: Bank, rel: str, uri: str, version: int | None, diag: types.Diagnostic, offline: bool, text: str
) -> types.CodeAction:
    title = "Insert a compiled CKP header"
    if offline:
        bom = BOM if text.startswith(BOM) else ""  # kept in front of the header, never compiled
        try:
            compiled = compile_header(bank, rel, text[len(bom) :])
            edit = text_edit(
                uri, version, [replace_prefix_edit(bom + compiled.replaced, bom + compiled.header)]
            )
            return types.CodeAction(
                title=title,
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diag],
                is_preferred=True,
                edit=edit,
            )
        except CompileError:
            pass
    return types.CodeAction(
        title=title,
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[diag],
        command=types.Command(title=title, command=RECOMPILE, arguments=[uri]),
    )


def fix_all(bank: Bank, rel: str, uri: str, version: int | None, text: str) -> types.CodeAction | None:
    """``source.fixAll.ckp``: every safe fix at once."""
    bom = BOM if text.startswith(BOM) else ""  # the findings are those of the text after it
    text = text[len(bom) :]
    new, count = fix_text(bank, rel, text)
    if not count:
        return None
    old_prefix = bom + text[: header_region(text).body_offset]
    new_prefix = bom + new[: header_region(new).body_offset]
    return types.CodeAction(
        title=f"Fix all safe CKP findings ({count})",
        kind=FIX_ALL,
        edit=text_edit(uri, version, [replace_prefix_edit(old_prefix, new_prefix)]),
    )


REGENERATE_TITLE = "Regenerate the index"


def regenerate_index(bank: Bank, context: Sequence[types.Diagnostic] = ()) -> list[types.CodeAction]:
    """One *Regenerate the index* action when the index would change: a quick fix of the CKP070
    findings in ``context`` (on ``_index.md``), else a source action."""
    edit = index_edit(bank)
    if edit is None:
        return []
    drift = [d for d in context if str(d.code) == "CKP070"]
    return [
        types.CodeAction(
            title=REGENERATE_TITLE,
            kind=types.CodeActionKind.QuickFix if drift else types.CodeActionKind.Source,
            diagnostics=drift or None,
            is_preferred=True if drift else None,
            edit=edit,
        )
    ]
