"""``textDocument/codeAction``: quick fixes, fix-all and the source actions."""

from __future__ import annotations

from lsprotocol import types

from ..server import CkpServer, table
from ..snapshot import Snapshot

_KINDS = [
    types.CodeActionKind.QuickFix,
    types.CodeActionKind.RefactorRewrite,
    types.CodeActionKind.Source,
    "source.fixAll.ckp",
]


@table.document(types.TEXT_DOCUMENT_CODE_ACTION, [], types.CodeActionOptions(code_action_kinds=_KINDS))
def code_action(ls: CkpServer, snap: Snapshot, params: types.CodeActionParams) -> list[types.CodeAction]:
    # Imported on first use: the compiler it brings is a tenth of the server's start-up.
    from ..features import actions
    from .index_upkeep import fresh_index

    only, bank, rel, uri, version = params.context.only, snap.bank, snap.rel, snap.uri, snap.version
    if snap.doc.is_index:
        fresh_index(ls, bank)
        return actions.regenerate_index(bank, params.context.diagnostics)
    text = snap.editor_text
    offline = bank.config.llm.provider == "offline"
    out: list[types.CodeAction] = []
    if not only or any(k.startswith("quickfix") for k in only):
        out += actions.quick_fixes(bank, rel, uri, version, params.context.diagnostics, offline, text)
    if not only or any("source.fixAll".startswith(k) or k.startswith("source.fixAll") for k in only):
        fix = actions.fix_all(bank, rel, uri, version, text)
        if fix is not None:
            out.append(fix)
    if not only or any(
        k.startswith(("refactor", "source")) and not k.startswith("source.fixAll") for k in only
    ):
        recompile = actions.recompile_action(bank, rel, uri, text, params.range.start.line, offline)
        out += [recompile] if recompile is not None else []
        fresh_index(ls, bank)
        out += actions.regenerate_index(bank)
    return out
