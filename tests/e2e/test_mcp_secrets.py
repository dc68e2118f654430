"""``ckp mcp`` gives an agent no detected secret: every byte the server writes to its stdout is
read, through every tool and resource, and holds placeholders where the bank holds credentials."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.e2e.test_mcp import call
from tests.secret_corpus import fake_secrets, placements

ROOT = Path(__file__).resolve().parents[2]
PLANTED = fake_secrets(seed=11)

#: runs ``ckp mcp`` and copies every byte it writes to stdout to the log as well
RELAY = """
import shutil, subprocess, sys
log = open(sys.argv[1], "wb")
child = subprocess.Popen(sys.argv[2:], stdout=subprocess.PIPE)
while True:
    chunk = child.stdout.read1(65536)
    if not chunk:
        break
    log.write(chunk); log.flush()
    sys.stdout.buffer.write(chunk); sys.stdout.buffer.flush()
sys.exit(child.wait())
"""


def bank_with_secrets(root: Path) -> Path:
    bank = root / "memory-bank"
    bank.mkdir(parents=True)
    for n, p in enumerate(PLANTED):
        for where, text in placements(p).items():
            concept = f"deploy-{n}-{where.replace('_', '-')}"
            text = text.replace("CONCEPT: deploy", f"CONCEPT: {concept}").replace(
                "ANSWERS_WHEN: deploy", f"ANSWERS_WHEN: deploy, {concept}"
            )
            text = text.replace("ANSWERS_WHEN: [deploy", f"ANSWERS_WHEN: [deploy, {concept}")
            (bank / f"{concept}.md").write_text(text, encoding="utf-8")
    return bank


def tails() -> list[str]:
    """A piece of each secret that nothing but the secret holds."""
    out = []
    for p in PLANTED:
        lines = p.value.strip().splitlines()
        out.append((lines[-2] if len(lines) > 1 else lines[-1])[-12:])
    return out


@asynccontextmanager
async def serve(folder: Path, log: Path) -> AsyncIterator[ClientSession]:
    env = {
        "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p),
        "XDG_CONFIG_HOME": str(folder.parent / ".user-config"),
    }
    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", RELAY, str(log), sys.executable, "-m", "ckp_lsp.cli.main", "mcp", str(folder)],
        env=env,
        cwd=str(folder),
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


async def test_nothing_ckp_mcp_sends_holds_a_secret(tmp_path: Path) -> None:
    bank = bank_with_secrets(tmp_path / "ws")
    log = tmp_path / "stdout.log"
    files = sorted(p.name for p in bank.glob("*.md"))
    async with serve(bank.parent, log) as session:
        index = await call(session, "ckp_index")
        assert index["changed"] is True  # the index now holds the headers' secrets on disk
        routed = await call(session, "ckp_route", query="how is the service deployed", include_content=True)
        assert routed["loaded"] and all("content" in e for e in routed["loaded"])
        read_kinds: set[str] = set()
        for name in files:
            got = await call(session, "ckp_read", file=name)
            if got.get("redacted"):
                read_kinds.update(got["redacted"])
                assert "secrets redacted" in got["redaction"]
                assert "<redacted: " in got["text"]
        assert read_kinds == {p.kind for p in PLANTED}
        got = await call(session, "ckp_read", file="_index.md")
        assert got["redacted"] and "<redacted: " in got["text"]
        checked = await call(session, "ckp_check")
        assert {d["code"] for d in checked["diagnostics"]} >= {"CKP080"}
        compiled = await call(session, "ckp_compile", file=next(f for f in files if f.endswith("-body.md")))
        assert "header" in compiled
        resources = await session.list_resources()
        for r in resources.resources:
            contents = await session.read_resource(r.uri)
            for c in contents.contents:
                text = getattr(c, "text", "")
                if "<redacted: " in text:
                    assert "secrets redacted" in text
    sent = log.read_text(encoding="utf-8")
    assert "<redacted: " in sent and len(sent) > 10_000
    for tail in tails():
        assert tail not in sent, tail
    # The bank on disk keeps what it holds: only what leaves is redacted.
    on_disk = "".join((bank / f).read_text(encoding="utf-8") for f in files)
    assert all(t in on_disk for t in tails())
