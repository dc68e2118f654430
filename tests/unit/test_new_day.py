"""The language server gives its banks the day, and the next one after midnight: a date that was
in the future is flagged until its day comes, and a bank read as the day changed gets the new one."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types

from ckp_lsp.core.format.dates import CkpDate
from ckp_lsp.core.project.config import Config
from ckp_lsp.faces.banks import load_bank
from ckp_lsp.faces.clock import today
from ckp_lsp.mcp.banks import ServedBanks
from ckp_lsp.server.diagnostics import DEBOUNCE, Publisher
from ckp_lsp.server.indexer import Indexer
from ckp_lsp.server.state import WorkspaceState
from tests.unit.builders import bare_header, write_files

FILES = {
    "a.md": bare_header(CONCEPT="a", ANSWERS_WHEN="alpha", VALIDATED="2030-01"),
    "b.md": bare_header(CONCEPT="b", ANSWERS_WHEN="beta", VALIDATED="2029-12"),
}
EVE, NEW_YEAR = CkpDate(2029, 12, 31), CkpDate(2030, 1, 1)


def served(tmp_path: Path, day: CkpDate) -> tuple[WorkspaceState, Path]:
    root = write_files(tmp_path / "memory-bank", FILES).resolve()
    state = WorkspaceState()
    state.folders = [tmp_path.resolve()]
    state.today = day
    state.reload_all([state.load_bank(root, Config())])
    return state, root


def future(state: WorkspaceState, path: Path) -> list[str]:
    doc = state.doc(path)
    assert doc is not None
    return [f.message for f in state.findings(doc) if f.code == "CKP052"]


def test_a_new_day_reaches_every_bank_and_every_file_is_checked_again(tmp_path: Path) -> None:
    state, root = served(tmp_path, EVE)
    assert future(state, root / "a.md") == [
        "VALIDATED 2030-01 is in the future: use this month or an earlier one"
    ]
    dirty = state.new_day(NEW_YEAR)
    assert dirty.files == {(root, "a.md"), (root, "b.md")}
    assert state.banks[root].today == NEW_YEAR
    assert future(state, root / "a.md") == []
    assert not state.new_day(NEW_YEAR)  # the same day again: nothing to check


def test_a_bank_read_as_the_day_changed_is_given_the_new_day(tmp_path: Path) -> None:
    state, root = served(tmp_path, EVE)
    read_before_midnight = load_bank(root, Config(), today=EVE)
    state.new_day(NEW_YEAR)
    state.reload_all([read_before_midnight])
    assert state.banks[root].today == NEW_YEAR and future(state, root / "a.md") == []


def test_the_findings_read_with_a_bank_are_of_its_day(tmp_path: Path) -> None:
    root = write_files(tmp_path / "memory-bank", FILES).resolve()
    state = WorkspaceState()
    state.folders = [tmp_path.resolve()]
    for day, expected in ((EVE, ["a.md"]), (NEW_YEAR, [])):
        state.today = day
        _, found, _ = state.read_bank(root, Config())
        assert found is not None
        assert sorted(rel for rel, fs in found.items() if any(f.code == "CKP052" for f in fs)) == expected


def test_the_server_publishes_every_file_again_on_a_new_day(tmp_path: Path) -> None:
    state, root = served(tmp_path, EVE)
    sent: list[types.PublishDiagnosticsParams] = []
    publisher = Publisher(state, sent.append, lambda uri: None)
    said: list[str] = []
    indexer = Indexer(
        state,
        publisher,
        log=lambda message, kind: said.append(message),
        show=lambda message, kind: said.append(message),
        spawn=asyncio.ensure_future,
        closing=lambda: False,
    )

    async def midnight() -> None:
        publisher.publish_all(state.all_docs())
        assert [Path(p.uri).name for p in sent] == ["a.md", "_index.md"]  # no index: CKP070
        sent.clear()
        indexer.new_day(EVE)  # the same day: nothing to publish again
        await asyncio.sleep(2 * DEBOUNCE)
        assert sent == []
        indexer.new_day(NEW_YEAR)
        await asyncio.sleep(2 * DEBOUNCE)

    asyncio.run(midnight())
    # a.md's date is no longer in the future: its finding is withdrawn (b.md never had one).
    assert {Path(p.uri).name: [d.code for d in p.diagnostics] for p in sent} == {"a.md": []}
    assert root in state.banks
    assert said == [f"ckp-lsp: a new day, {NEW_YEAR}: every file is checked again"]


def test_the_mcp_server_gives_its_banks_the_day_at_each_call(tmp_path: Path) -> None:
    write_files(tmp_path / "memory-bank", FILES)
    served = ServedBanks(tmp_path, poll_interval=0)
    (bank,) = [sb.bank for sb in served.banks]
    assert bank.today == today()
    bank.today = EVE  # as if the server had started the day before
    served.current()
    assert bank.today == today()
