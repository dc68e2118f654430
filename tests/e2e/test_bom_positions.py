"""A document whose editor text starts with a byte order mark (U+FEFF): the editor counts it as
one UTF-16 unit on line 0, so the server's findings and quick-fix edits there count it too."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types

from ckp_lsp.core.format.text import BOM

from .conftest import apply_workspace_edit, codes, open_doc, wait_diagnostics
from .harness import Session

#: the duplicate keyword (CKP030, a safe quick fix) sits on line 0
DUPLICATE_FIRST = (
    "ANSWERS_WHEN: api, tokens, api\n"
    "CONCEPT: auth\n"
    "TLDR: How the service checks who is calling.\n"
    "VALIDATED: 2025-05\n"
    "\n"
    "Body.\n"
)
OTHER = "CONCEPT: billing\nTLDR: Invoices and payments.\nANSWERS_WHEN: invoice\nVALIDATED: 2025-05\n\nBody.\n"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    bank = (tmp_path / "ws" / "memory-bank").resolve()
    bank.mkdir(parents=True)
    # On disk without the duplicate: the finding appears only once the editor's text is read.
    (bank / "auth.md").write_text(DUPLICATE_FIRST.replace(", api\n", "\n", 1), encoding="utf-8")
    (bank / "billing.md").write_text(OTHER, encoding="utf-8")
    return bank.parent


def text_of(session: Session, uri: str) -> str:
    return session.client.texts[uri][1]  # type: ignore[attr-defined]


async def test_a_finding_on_line_0_of_a_bom_document_has_the_editors_range(workspace: Path) -> None:
    path = workspace / "memory-bank/auth.md"
    async with Session.indexed(workspace) as session:
        uri = open_doc(session.client, path, BOM + DUPLICATE_FIRST)
        diags = await wait_diagnostics(session.client, uri, lambda d: "CKP030" in codes(d))
        (dup,) = [d for d in diags if d.code == "CKP030"]
        line0 = (BOM + DUPLICATE_FIRST).split("\n")[0]
        start = line0.rindex("api")  # the second "api", counted in the editor's text (BOM included)
        assert start == len("\ufeffANSWERS_WHEN: api, tokens, ")
        assert dup.range == types.Range(
            start=types.Position(line=0, character=start),
            end=types.Position(line=0, character=start + len("api")),
        )


async def test_a_quick_fix_on_line_0_of_a_bom_document_edits_the_right_characters(workspace: Path) -> None:
    path = workspace / "memory-bank/auth.md"
    async with Session.indexed(workspace) as session:
        uri = open_doc(session.client, path, BOM + DUPLICATE_FIRST)
        diags = await wait_diagnostics(session.client, uri, lambda d: "CKP030" in codes(d))
        dup = next(d for d in diags if d.code == "CKP030")
        params = types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=dup.range,
            context=types.CodeActionContext(diagnostics=[dup], only=[types.CodeActionKind.QuickFix]),
        )
        actions = await session.request(session.client.text_document_code_action_async(params))
        fixes = [a for a in actions or [] if isinstance(a, types.CodeAction) and a.edit is not None]
        assert fixes, f"no quick fix offered for {dup}: {actions}"
        fix = next((a for a in fixes if a.is_preferred), fixes[0])
        assert fix.edit is not None
        apply_workspace_edit(session.client, fix.edit)
        assert text_of(session, uri) == BOM + DUPLICATE_FIRST.replace("api, tokens, api", "api, tokens", 1)
        await wait_diagnostics(session.client, uri, lambda d: "CKP030" not in codes(d))
