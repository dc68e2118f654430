"""Bidirectional overrides and other control characters in bank text are shown as ``\\uXXXX`` by
the real server: hovers, completion labels, details and documentation, diagnostics, code actions."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from .conftest import open_doc
from .harness import Session, wait_for

#: a TLDR that reads backwards from the override on, and an escape sequence in a keyword
EVIL = "CONCEPT: evil\nTLDR: Safe \u202etxt.exe\x1b[31m here.\nANSWERS_WHEN: evil, evil\nVALIDATED: 2025-05\n\nBody.\n"
USER = "CONCEPT: user\nTLDR: Uses it.\nANSWERS_WHEN: user\nSIMILAR_HIGH: evil:2025-05, e\nVALIDATED: 2025-05\n\nBody.\n"
HIDDEN = ("\u202e", "\x1b", "\u2066")


def visible(text: str | None) -> bool:
    return text is not None and not any(c in text for c in HIDDEN)


async def test_control_characters_reach_no_face_of_the_server_unescaped(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    bank = ws / "memory-bank"
    bank.mkdir(parents=True)
    (bank / "evil.md").write_text(EVIL, encoding="utf-8")
    (bank / "user.md").write_text(USER, encoding="utf-8")
    # a file whose name holds an isolate: its path is a completion item's detail
    (bank / "x\u2066y.md").write_text(EVIL.replace("evil", "other"), encoding="utf-8")
    async with Session.indexed(ws) as session:
        client = session.client
        user_uri = open_doc(client, bank / "user.md")
        doc = types.TextDocumentIdentifier(uri=user_uri)
        hover = await session.request(
            client.text_document_hover_async(
                types.HoverParams(text_document=doc, position=types.Position(line=3, character=16))
            )
        )
        assert hover is not None and "\\u202e" in hover.contents.value and visible(hover.contents.value)
        completion = await session.request(
            client.text_document_completion_async(
                types.CompletionParams(text_document=doc, position=types.Position(line=3, character=28))
            )
        )
        items = completion.items if isinstance(completion, types.CompletionList) else completion
        assert items, "no completion"
        for item in items:
            resolved = await session.request(client.completion_item_resolve_async(item))
            doc_text = getattr(resolved.documentation, "value", resolved.documentation)
            assert visible(item.label) and visible(item.detail) and (doc_text is None or visible(doc_text)), (
                item
            )
        assert any("\\u2066" in (item.detail or "") for item in items)
        evil_uri = open_doc(client, bank / "evil.md")
        await wait_for(lambda: bool(client.diagnostics.get(evil_uri)))
        for d in client.diagnostics[evil_uri]:
            assert visible(d.message), d.message
        actions = await session.request(
            client.text_document_code_action_async(
                types.CodeActionParams(
                    text_document=types.TextDocumentIdentifier(uri=evil_uri),
                    range=types.Range(
                        start=types.Position(line=0, character=0), end=types.Position(line=3, character=0)
                    ),
                    context=types.CodeActionContext(diagnostics=list(client.diagnostics[evil_uri])),
                )
            )
        )
        assert actions
        for action in actions:
            assert visible(action.title), action.title
