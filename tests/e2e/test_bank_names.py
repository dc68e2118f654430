"""Over stdio: the language server finds a bank under another spelling (``memory_bank/``) and one
an agent's rules file names (``CLAUDE.md``: "memory in docs/memory/"), as ``ckp check`` does."""

from __future__ import annotations

from pathlib import Path

from .harness import Session, wait_for

NOTE = "CONCEPT: auth\nTLDR: How tokens are signed.\nANSWERS_WHEN: auth, auth\n\nTokens are signed.\n"


async def test_the_server_finds_a_memory_underscore_bank_and_one_a_rules_file_names(tmp_path: Path) -> None:
    ws = tmp_path / "shop"
    (ws / ".git").mkdir(parents=True)
    (ws / "memory_bank").mkdir()
    (ws / "memory_bank/auth.md").write_text(NOTE)
    (ws / "docs/memory").mkdir(parents=True)
    (ws / "docs/memory/billing.md").write_text(NOTE.replace("auth", "billing"))
    (ws / "CLAUDE.md").write_text("# Shop\n\nThe memory bank is in `docs/memory/`.\n")
    async with Session.indexed(ws) as session:
        published = session.client.diagnostics  # type: ignore[attr-defined]

        def both() -> bool:
            return any(u.endswith("/memory_bank/auth.md") and published[u] for u in published) and any(
                u.endswith("/docs/memory/billing.md") and published[u] for u in published
            )

        await wait_for(both, "diagnostics of memory_bank/auth.md and docs/memory/billing.md")
        auth = next(published[u] for u in published if u.endswith("/memory_bank/auth.md"))
        assert "CKP030" in {d.code for d in auth}  # the duplicate keyword, found in its bank
        assert not (ws / "memory-bank").exists()
