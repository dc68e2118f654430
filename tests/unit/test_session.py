"""The server's session: one store of open documents, typed settings, a snapshot per request with
one position converter, a server built by a factory, and pygls patched only when asked."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from typing import Any

from lsprotocol import types

from ckp_lsp.core.format.text import BOM, Span
from ckp_lsp.core.project.config import Config
from ckp_lsp.server.client import Settings
from ckp_lsp.server.convert import uri_of
from ckp_lsp.server.documents import Documents
from ckp_lsp.server.factory import create_server
from ckp_lsp.server.server import HandlerTable
from ckp_lsp.server.session import Session
from tests.unit.builders import bare_header, write_files

FILES = {
    "a.md": bare_header(CONCEPT="a", ANSWERS_WHEN="alpha"),
    "b.md": bare_header(CONCEPT="b", ANSWERS_WHEN="beta"),
}


def session_with_bank(tmp_path: Path) -> tuple[Session, Path]:
    root = write_files(tmp_path / "memory-bank", FILES).resolve()
    session = Session()
    session.state.folders = [tmp_path.resolve()]
    session.state.reload_all([session.state.load_bank(root, Config())])
    return session, root


def test_an_open_document_is_found_by_its_uri_however_it_is_escaped(tmp_path: Path) -> None:
    docs = Documents()
    path = tmp_path / "a b.md"
    docs.put(path, "text", bom=True, uri="file:///x/a%20b.md", version=3)
    assert docs.get("file:///x/a b.md") is docs.get("file:///x/a%20b.md") is docs.at(path)
    assert docs.version_of("file:///x/a b.md") == 3 and path in docs.boms
    docs.put(path, "text", bom=False, uri="file:///x/a%20b.md", version=4)  # the BOM deleted
    assert docs.version_of("file:///x/a%20b.md") == 4 and path not in docs.boms
    docs.drop(path)
    assert docs.get("file:///x/a%20b.md") is None and path not in docs and len(docs) == 0


def test_the_state_reads_open_documents_from_the_session_store(tmp_path: Path) -> None:
    session, root = session_with_bank(tmp_path)
    path = root / "a.md"
    session.state.opened(
        path, bare_header(CONCEPT="renamed", ANSWERS_WHEN="alpha"), uri=uri_of(path), version=1
    )
    assert session.documents.at(path) is not None and path in session.state.open
    assert "renamed" in session.state.banks[root].by_concept
    # a change on disk to an open document is the editor's business: ignored until it is closed
    assert not session.state.disk_changed(path)
    session.state.closed(path)
    assert session.documents.at(path) is None and "a" in session.state.banks[root].by_concept


def test_a_snapshot_converts_positions_once_counting_the_bom(tmp_path: Path) -> None:
    session, root = session_with_bank(tmp_path)
    path = root / "a.md"
    text = (root / "a.md").read_text(encoding="utf-8")
    session.state.opened(path, text, bom=True, uri=uri_of(path), version=7)
    snap = session.snapshot(uri_of(path))
    assert snap is not None
    assert (snap.rel, snap.bom, snap.version, snap.text) == ("a.md", True, 7, text)
    assert snap.editor_text == BOM + text
    assert snap.position(types.Position(line=0, character=9)) == (0, 8)
    assert snap.position(types.Position(line=1, character=9)) == (1, 9)
    assert snap.range(Span(0, 0, 1, 2)) == types.Range(
        start=types.Position(line=0, character=1), end=types.Position(line=1, character=2)
    )
    built = types.Range(start=types.Position(line=0, character=3), end=types.Position(line=0, character=5))
    assert snap.editor_range(built).start.character == 4 and snap.editor_range(built).end.character == 6
    assert snap.day == session.state.today and snap.caps is session.caps


def test_a_closed_document_is_read_from_disk_and_a_stranger_gets_no_snapshot(tmp_path: Path) -> None:
    session, root = session_with_bank(tmp_path)
    snap = session.snapshot(uri_of(root / "b.md"))
    assert snap is not None and snap.opened is None and not snap.bom and snap.version is None
    assert snap.text == (root / "b.md").read_text(encoding="utf-8")
    assert snap.position(types.Position(line=0, character=9)) == (0, 9)
    assert session.snapshot(uri_of(tmp_path / "elsewhere.md")) is None


def test_settings_are_validated_once_and_layered() -> None:
    settings = Settings(initial={"staleness": "sometimes"})
    assert settings.config is settings.config  # read once
    assert any("staleness" in p for p in settings.config.problems)
    later = settings.with_client({"staleness": "git"})
    assert later.values == {"staleness": "git"} and later.version == 1
    assert later.config.staleness == "git" and not later.config.problems


def test_a_document_handler_gets_the_server_its_snapshot_and_the_params(tmp_path: Path) -> None:
    session, root = session_with_bank(tmp_path)
    table = HandlerTable()
    seen: list[Any] = []

    @table.document(types.TEXT_DOCUMENT_HOVER, "default")
    def hover(ls: Any, snap: Any, params: Any) -> str:
        seen.append((ls, snap.rel, params))
        return "answer"

    class Ready:
        def __init__(self) -> None:
            self.ready = asyncio.Event()
            self.ready.set()

    class Server:
        def __init__(self) -> None:
            self.session = session
            self.registered: dict[str, Any] = {}
            self.indexer = Ready()

        def feature(self, name: str, options: Any) -> Any:
            return lambda fn: self.registered.setdefault(name, fn)

    ls = Server()
    table.register(ls)  # type: ignore[arg-type]
    run = ls.registered[types.TEXT_DOCUMENT_HOVER]

    def answer(uri: str) -> Any:
        params = types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=0, character=0)
        )
        steps = run(ls, params)
        try:
            next(steps)
        except StopIteration as done:
            return done.value
        raise AssertionError("the banks are read: nothing to wait for")

    assert answer(uri_of(root / "a.md")) == "answer" and seen[0][:2] == (ls, "a.md")
    assert answer(uri_of(tmp_path / "elsewhere.md")) == "default" and len(seen) == 1


def test_the_factory_registers_every_handler_and_importing_patches_nothing() -> None:
    ls = create_server()
    features = ls.protocol.fm.features
    for method in (types.TEXT_DOCUMENT_HOVER, types.TEXT_DOCUMENT_DID_CHANGE, types.INITIALIZE):
        assert method in features
    assert {"ckp.recompile", "ckp.route", "ckp.regenerateIndex"} <= set(ls.protocol.fm.commands)
    # pygls's own code stays until ``main`` (``pygls_compat.install``) patches it
    script = (
        "from ckp_lsp.server.factory import create_server\n"
        "from ckp_lsp.server import pygls_compat\n"
        "from pygls.workspace.text_document import TextDocument\n"
        "create_server()\n"
        "print(TextDocument.__dict__['lines'] is pygls_compat.PYGLS_OWN['lines'])\n"
        "pygls_compat.install()\n"
        "print(TextDocument.__dict__['lines'] is pygls_compat.PYGLS_OWN['lines'])\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "False"]
