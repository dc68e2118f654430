"""Reading the banks while the server starts: the first message, the banks it names, their
findings, and what the server does when its settings differ or files change meanwhile."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from ckp_lsp.core.bank import Bank
from ckp_lsp.core.checks import check_file, check_index
from ckp_lsp.core.config import Config, config_for_bank
from ckp_lsp.core.discovery import INDEX_NAME
from ckp_lsp.server.preload import Preload, folders_of, read_first_message
from ckp_lsp.server.state import Doc, WorkspaceState
from ckp_lsp.server.watch import diff, scan
from tests.unit.builders import copy_bank

ROOT = Path(__file__).resolve().parents[2]
BROKEN = ROOT / "samples" / "broken" / "memory-bank"


def message(method: str, params: dict[str, object]) -> bytes:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


@pytest.fixture
def pipe() -> Iterator[tuple[int, int]]:
    r, w = os.pipe()
    yield r, w
    for fd in (r, w):
        with contextlib.suppress(OSError):
            os.close(fd)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    copy_bank(BROKEN, tmp_path / "ws" / "memory-bank")
    return tmp_path / "ws"


def test_the_first_message_is_read_whole_and_what_follows_is_kept(pipe: tuple[int, int]) -> None:
    r, w = pipe
    first = message("initialize", {"rootUri": "file:///tmp/x"})
    os.write(w, first + b"Content-Length: 2\r\n\r\n{}")
    consumed, body = read_first_message(r)
    assert consumed.startswith(first)  # all that was read goes back to the server's reader
    assert json.loads(body or b"")["method"] == "initialize"


def test_a_message_without_a_length_or_cut_short_names_nothing(pipe: tuple[int, int]) -> None:
    r, w = pipe
    os.write(w, b"Content-Type: text\r\n\r\n{}")
    assert read_first_message(r) == (b"Content-Type: text\r\n\r\n{}", None)
    os.write(w, b"Content-Length: 99\r\n\r\n{")
    os.close(w)
    assert read_first_message(r) == (b"Content-Length: 99\r\n\r\n{", None)


def test_folders_come_from_workspace_folders_then_root_uri_then_root_path() -> None:
    assert folders_of(
        {"workspaceFolders": [{"uri": "file:///a%20b", "name": "x"}], "rootUri": "file:///c"}
    ) == [Path("/a b")]
    assert folders_of({"rootUri": "file:///c"}) == [Path("/c")]
    assert folders_of({"rootPath": "/d"}) == [Path("/d")]
    assert folders_of({"rootUri": "untitled:x"}) == []


def test_the_child_hands_back_the_input_and_the_banks_with_their_findings(
    pipe: tuple[int, int], workspace: Path
) -> None:
    r, w = pipe
    sent = message("initialize", {"workspaceFolders": [{"uri": workspace.as_uri(), "name": "ws"}]})
    os.write(w, sent)
    preload = Preload.start(r)
    assert preload is not None
    assert preload.consumed() == sent
    root = (workspace / "memory-bank").resolve()
    got = preload.bank(root, config_for_bank(root))
    assert got is not None
    bank, found = got
    loaded = Bank.load(root, config_for_bank(root))
    assert list(bank.files) == list(loaded.files) and bank.index_text == loaded.index_text
    expected = {rel: f for rel in loaded.files if (f := check_file(loaded, rel))}
    expected[INDEX_NAME] = check_index(loaded)
    assert found == {rel: f for rel, f in expected.items() if f}
    assert found  # the broken bank has findings
    assert preload.snapshot == scan([root])


def test_banks_read_with_other_settings_are_not_taken(pipe: tuple[int, int], workspace: Path) -> None:
    r, w = pipe
    os.write(w, message("initialize", {"rootUri": workspace.as_uri(), "initializationOptions": {"ckp": {}}}))
    preload = Preload.start(r)
    assert preload is not None
    preload.consumed()
    root = (workspace / "memory-bank").resolve()
    assert preload.bank(root, Config(exclude=("*.md",))) is None
    assert preload.bank(root, config_for_bank(root)) is None  # taken once: the first ask had it


def test_another_first_message_reads_no_bank(pipe: tuple[int, int], workspace: Path) -> None:
    r, w = pipe
    sent = message("shutdown", {"rootUri": workspace.as_uri()})
    os.write(w, sent)
    preload = Preload.start(r)
    assert preload is not None
    assert preload.consumed() == sent
    root = (workspace / "memory-bank").resolve()
    assert preload.bank(root, config_for_bank(root)) is None


def test_a_change_after_the_child_read_shows_against_its_snapshot(
    pipe: tuple[int, int], workspace: Path
) -> None:
    r, w = pipe
    os.write(w, message("initialize", {"rootUri": workspace.as_uri()}))
    preload = Preload.start(r)
    assert preload is not None
    preload.consumed()
    root = (workspace / "memory-bank").resolve()
    assert preload.bank(root, config_for_bank(root)) is not None
    changed = sorted(root.glob("*.md"))[0]
    changed.write_text(changed.read_text(encoding="utf-8") + "\nMore.\n", encoding="utf-8")
    created, modified, deleted = diff(preload.snapshot, scan([root]))
    assert (created, modified, deleted) == ([], [changed], [])


# --- findings known beforehand -------------------------------------------------------------------


def test_known_findings_are_used_until_a_change_touches_their_document(workspace: Path) -> None:
    root = (workspace / "memory-bank").resolve()
    state = WorkspaceState()
    bank = Bank.load(root, config_for_bank(root))
    with_findings = next(rel for rel in bank.files if check_file(bank, rel))
    state.know(bank, {})  # known, deliberately: no findings anywhere
    state.reload_all([bank])
    assert state.findings(Doc(bank, with_findings)) == []
    assert state.findings(Doc(bank, INDEX_NAME)) == []
    # A change to that file: its findings (and its dependents') are computed again.
    path = root / with_findings
    state.opened(path, path.read_text(encoding="utf-8"))
    assert state.findings(Doc(bank, with_findings)) == check_file(bank, with_findings)
    state.forget()
    assert state.findings(Doc(bank, INDEX_NAME)) == check_index(bank)


def test_a_bank_whose_findings_never_came_is_not_taken(workspace: Path) -> None:
    from ckp_lsp.core import other_core

    root = (workspace / "memory-bank").resolve()
    config = config_for_bank(root)

    def dies_before_the_findings() -> Iterator[object]:
        bank = Bank(root, config)
        yield scan([root])
        yield "bank", root, config
        for part in bank.read_parts(4):
            yield "part", root, part
        raise RuntimeError("the child is killed")

    child = other_core.start(dies_before_the_findings)
    assert child is not None
    preload = Preload(child)
    assert preload.bank(root, config) is None  # the server reads it from disk instead
