"""The bank does no I/O of its own: read by the bank service (``faces.banks.load_bank``), it is told
what is on disk by the face (the index text, the commit dates, whether a text is the disk's) and
never reads the disk itself. A keystroke in git mode reads no disk in the language server's state.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from pathlib import Path

import pytest

import ckp_lsp
from ckp_lsp.core.bank.checks import check_file
from ckp_lsp.core.bank.updated import GivenDates
from ckp_lsp.core.format.dates import CkpDate
from ckp_lsp.core.project.config import Config
from ckp_lsp.core.project.within import Folder
from ckp_lsp.faces.banks import load_bank
from ckp_lsp.server.state import WorkspaceState
from tests.unit.builders import bare_header, git, write_files

REDIS = bare_header(CONCEPT="redis", VALIDATED="2025-06")
CART = bare_header(CONCEPT="cart", SIMILAR_HIGH="redis:2025-06", VALIDATED="2025-06")
INDEX = "# Index\n"
DAY = CkpDate(2026, 3, 4)

BANK_PY = Path(ckp_lsp.__file__).parent / "core" / "bank" / "bank.py"
#: the methods of ``Bank`` that read the disk: none (the bank service reads a bank and hands it
#: each file, ``Bank.take_read``)
LOADERS: set[str] = set()
#: what reads the disk, or asks a face's source to
IO_NAMES = {"open", "read_file", "read_index", "knowledge_files", "skip_reason", "stat_tree"}
IO_ATTRIBUTES = {"read", "bytes_of", "stat", "committed", "read_text", "read_bytes", "scandir", "listdir"}
#: the one method that asks a face's source at check time, and why
ASKS_A_SOURCE = {"updated_date": "mtime mode: the face's dates source gives a file's modification day"}


class CountingDates(GivenDates):
    def __init__(self, committed: Mapping[str, CkpDate] | None) -> None:
        super().__init__(committed)
        self.asked = 0

    def committed(self, bank_root: Path) -> Mapping[str, CkpDate] | None:
        self.asked += 1
        return super().committed(bank_root)


class CountingFolder(Folder):
    reads = 0

    def bytes_of(self, path: Path | str) -> bytes:
        CountingFolder.reads += 1
        return super().bytes_of(path)


def _calls(node: ast.AST) -> list[str]:
    out = []
    for call in ast.walk(node):
        if not isinstance(call, ast.Call):
            continue
        f = call.func
        if isinstance(f, ast.Name) and f.id in IO_NAMES:
            out.append(f.id)
        elif isinstance(f, ast.Attribute) and (
            f.attr in IO_ATTRIBUTES or (isinstance(f.value, ast.Name) and f.value.id == "os")
        ):
            out.append(f.attr)
    return out


def test_no_method_of_the_bank_but_its_loader_reads_the_disk() -> None:
    (cls,) = [
        n
        for n in ast.parse(BANK_PY.read_text(encoding="utf-8")).body
        if isinstance(n, ast.ClassDef) and n.name == "Bank"
    ]
    methods = [n for n in cls.body if isinstance(n, ast.FunctionDef)]
    found = {
        m.name: calls
        for m in methods
        if m.name not in LOADERS and m.name not in ASKS_A_SOURCE and (calls := _calls(m))
    }
    assert found == {}
    assert {m.name for m in methods} >= LOADERS | set(ASKS_A_SOURCE)  # the table names methods that exist
    assert "modified" in {
        f.func.attr
        for m in methods
        if m.name == "updated_date"
        for f in ast.walk(m)
        if isinstance(f, ast.Call) and isinstance(f.func, ast.Attribute)
    }


def test_a_bank_once_read_never_reads_the_disk_nor_asks_for_dates(tmp_path: Path) -> None:
    root = write_files(tmp_path / "memory-bank", {"redis.md": REDIS, "cart.md": CART, "_index.md": INDEX})
    dates = CountingDates({"redis.md": CkpDate(2025, 6, 1), "cart.md": CkpDate(2025, 6, 1)})
    bank = load_bank(root, Config(staleness="git"), dates=dates, today=DAY)
    assert bank.index_text == INDEX and dates.asked == 1  # the loader read the index and asked once
    bank.disk = CountingFolder(root)
    CountingFolder.reads = 0
    # Keystrokes in git mode, a file removed, the checks, the dates a face read elsewhere.
    for n in range(5):
        bank.set_file("redis.md", REDIS + "x" * n)
    assert bank.updated_date(bank.files["redis.md"]) == DAY  # unlike the disk's: uncommitted
    bank.set_file("redis.md", REDIS, on_disk=True)  # the face says it is the disk's text again
    assert bank.updated_date(bank.files["redis.md"]) == CkpDate(2025, 6, 1)
    check_file(bank, "cart.md")
    bank.take_dates({"redis.md": CkpDate(2025, 9, 2)})
    bank.snapshot().set_file("cart.md", CART + "More.\n")
    bank.remove_file("cart.md")
    assert CountingFolder.reads == 0 and dates.asked == 1


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    git(tmp_path, "init", "-q")
    write_files(tmp_path / "memory-bank", {"redis.md": REDIS, "cart.md": CART})
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "bank", date="2025-06-10T12:00:00")
    return (tmp_path / "memory-bank").resolve()


def _served(repo: Path) -> WorkspaceState:
    state = WorkspaceState()
    state.folders = [repo.parent]
    state.today = DAY
    state.reload_all([state.load_bank(repo, Config(staleness="git"))])
    return state


def _updated(state: WorkspaceState, repo: Path) -> CkpDate | None:
    bank = state.banks[repo]
    return bank.updated_date(bank.files["redis.md"])


def test_git_mode_an_opened_file_keeps_its_commit_date_and_a_keystroke_reads_no_disk(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = _served(repo)
    reads: list[str] = []
    real = Folder.bytes_of
    monkeypatch.setattr(Folder, "bytes_of", lambda self, path: reads.append(str(path)) or real(self, path))
    redis = repo / "redis.md"
    state.opened(redis, REDIS)  # the disk's text: nothing was changed
    assert _updated(state, repo) == CkpDate(2025, 6, 10)
    assert reads == [str(redis)]  # the bank service read the disk once, for the face
    for n in range(5):
        state.changed(redis, REDIS + "Typing." * n + "\n")
    assert _updated(state, repo) == DAY  # an uncommitted change: today
    state.changed(redis, REDIS)  # typed back to the disk's text
    assert _updated(state, repo) == CkpDate(2025, 6, 10)
    assert reads == [str(redis)]  # no keystroke read the disk
    # The editor saves a change: the disk moved, so its text is read again, once.
    redis.write_text(REDIS + "Saved.\n", encoding="utf-8")
    state.changed(redis, REDIS + "Saved.\n")
    state.take_dates(state.banks[repo], {"redis.md": CkpDate(2025, 6, 10)}, [redis])
    assert _updated(state, repo) == CkpDate(2025, 6, 10)
    assert reads == [str(redis), str(redis)]
