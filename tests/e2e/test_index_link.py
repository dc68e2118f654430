"""Over stdio: the server never offers or applies an index edit through an ``_index.md`` that is a
symbolic link leading outside the bank (dangling or not), while a bank without one still gets it."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types

from .conftest import action_params, open_doc
from .harness import Session

JWT = "CONCEPT: jwt\nTLDR: How access tokens are signed.\nANSWERS_WHEN: jwt, token\nVALIDATED: 2025-05\n\nBody.\n"
OUTSIDE = "# Someone else's file\n<!-- ckp:index:start -->\n<!-- ckp:index:end -->\n"


@pytest.mark.parametrize("target", ["dangling", "existing"])
async def test_regenerate_index_never_writes_through_a_link_out_of_the_bank(
    tmp_path: Path, target: str
) -> None:
    outside = tmp_path / "outside" / "index.md"
    outside.parent.mkdir()
    if target == "existing":
        outside.write_text(OUTSIDE)
    bank = tmp_path / "ws" / "memory-bank"
    bank.mkdir(parents=True)
    (bank / "jwt.md").write_text(JWT)
    (bank / "_index.md").symlink_to(outside)
    async with Session.indexed(tmp_path / "ws") as session:
        client = session.client
        uri = open_doc(client, bank / "jwt.md")
        result = await session.request(
            client.workspace_execute_command_async(
                types.ExecuteCommandParams(command="ckp.regenerateIndex", arguments=[uri])
            )
        )
        assert result == {"applied": False}
        actions = await session.request(
            client.text_document_code_action_async(action_params(uri, only=[types.CodeActionKind.Source]))
        )
        titles = [a.title for a in actions or [] if isinstance(a, types.CodeAction)]
        assert "Regenerate CKP index" not in titles
        assert session.applied == []
    assert (outside.read_text() == OUTSIDE) if target == "existing" else not outside.exists()
    assert (bank / "_index.md").is_symlink()
