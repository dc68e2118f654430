"""``textDocument/codeAction``: quick fixes, fix-all and the source actions."""

from __future__ import annotations

from lsprotocol import types

from ..server import CkpServer, guarded, server


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(
        code_action_kinds=[
            types.CodeActionKind.QuickFix,
            types.CodeActionKind.RefactorRewrite,
            types.CodeActionKind.Source,
            "source.fixAll.ckp",
        ]
    ),
)
@guarded([])
async def code_action(ls: CkpServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    await ls.indexer.ready.wait()
    # Imported on first use: the compiler it brings is a tenth of the server's start-up.
    from ..features import actions
    from ..features.index_upkeep import fresh_index

    uri = params.text_document.uri
    doc = ls.doc_at(uri)
    if doc is None:
        return []
    only = params.context.only
    opened = ls.workspace.text_documents.get(uri)
    version = opened.version if opened is not None else None
    if doc.is_index:
        fresh_index(ls, doc.bank)
        return actions.regenerate_index(doc.bank, params.context.diagnostics)
    text = opened.source if opened is not None else ""
    offline = doc.bank.config.llm.provider == "offline"
    out: list[types.CodeAction] = []
    if not only or any(k.startswith("quickfix") for k in only):
        out += actions.quick_fixes(doc.bank, doc.rel, uri, version, params.context.diagnostics, offline, text)
    if not only or any("source.fixAll".startswith(k) or k.startswith("source.fixAll") for k in only):
        fix = actions.fix_all(doc.bank, doc.rel, uri, version, text)
        if fix is not None:
            out.append(fix)
    if not only or any(
        k.startswith(("refactor", "source")) and not k.startswith("source.fixAll") for k in only
    ):
        recompile = actions.recompile_action(doc.bank, doc.rel, uri, text, params.range.start.line, offline)
        out += [recompile] if recompile is not None else []
        fresh_index(ls, doc.bank)
        out += actions.regenerate_index(doc.bank)
    return out
