"""Code actions: quick fixes attached to their diagnostics, fix-all, recompile, regenerate index."""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types

from ...core.bank import Bank
from ...core.checks import check_file
from ...core.compile.compiler import compile_header
from ...core.compile.model import CompileError
from ...core.findings import Finding
from ...core.fixes import Edit, Fix, fix_text, fixes_for, revalidate_all
from ...core.rewrite import header_region
from ...core.text import BOM, Span, split_lines, utf16_len
from ..convert import to_range
from .index_upkeep import index_edit

FIX_ALL = "source.fixAll.ckp"
RECOMPILE = "ckp.recompile"
REGENERATE_INDEX = "ckp.regenerateIndex"


def _matches(diag: types.Diagnostic, f: Finding) -> bool:
    return str(diag.code) == f.code and diag.range == to_range(f.span)


def text_edit(uri: str, version: int | None, edits: list[Edit]) -> types.WorkspaceEdit:
    """A WorkspaceEdit of core edits on one document (versioned when the editor has it open)."""
    changes = [types.TextEdit(range=to_range(e.span), new_text=e.text) for e in edits]
    return types.WorkspaceEdit(
        document_changes=[
            types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version),
                edits=changes,
            )
        ]
    )


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
    """Quick fixes for the diagnostics in the request's context."""
    kf = bank.files.get(rel)
    if kf is None:
        return []
    findings = check_file(bank, rel)
    actions: list[types.CodeAction] = []
    for diag in context:
        for f in (f for f in findings if _matches(diag, f)):
            if f.code == "CKP001":
                actions.append(_insert_header(bank, rel, uri, version, diag, offline, text))
                continue
            for fx in fixes_for(bank, kf, f):
                actions.append(_action(fx, uri, version, [diag]))
    every = revalidate_all(kf, findings)
    if every is not None and any(str(d.code) == "CKP050" for d in context):
        stale = [d for d in context if str(d.code) == "CKP050"]
        actions.append(_action(every, uri, version, stale))
    return actions


def _action(fx: Fix, uri: str, version: int | None, diags: list[types.Diagnostic]) -> types.CodeAction:
    return types.CodeAction(
        title=fx.title,
        kind=types.CodeActionKind.QuickFix,
        diagnostics=diags,
        is_preferred=fx.preferred or None,
        edit=text_edit(uri, version, fx.edits),
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


def source_actions(uri: str, is_index: bool, bank: Bank) -> list[types.CodeAction]:
    """Recompile (on knowledge files) and regenerate the index (anywhere in a bank)."""
    actions = []
    if not is_index:
        actions.append(
            types.CodeAction(
                title="Recompile CKP header",
                kind=types.CodeActionKind.RefactorRewrite,
                command=types.Command(title="Recompile CKP header", command=RECOMPILE, arguments=[uri]),
            )
        )
    edit = index_edit(bank)
    if edit is not None:
        actions.append(
            types.CodeAction(title="Regenerate CKP index", kind=types.CodeActionKind.Source, edit=edit)
        )
    return actions


def index_fix(bank: Bank, context: Sequence[types.Diagnostic]) -> list[types.CodeAction]:
    """CKP070 on ``_index.md``: regenerate it."""
    drift = [d for d in context if str(d.code) == "CKP070"]
    edit = index_edit(bank) if drift else None
    if edit is None:
        return []
    return [
        types.CodeAction(
            title="Regenerate the index",
            kind=types.CodeActionKind.QuickFix,
            diagnostics=drift,
            is_preferred=True,
            edit=edit,
        )
    ]
