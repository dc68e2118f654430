"""Never losing a byte: atomic writes, refusals on concurrent change, and a process killed mid-write."""

from __future__ import annotations

import asyncio
import os
import signal
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from ckp_lsp.cli.main import main
from ckp_lsp.core.bank.checks import check_file
from ckp_lsp.core.edit import writes
from ckp_lsp.core.edit.writes import CannotWrite, ChangedOnDisk, NotUtf8, write_atomic
from ckp_lsp.core.project.discovery import knowledge_files
from ckp_lsp.faces.banks import load_bank
from tests.unit.builders import FAULTY, bare_header, copy_bank, write_files

ROOT = Path(__file__).resolve().parents[2]
#: a hang guard for the child processes, never a timed assertion
HANG = 120


def _dot_files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


# --- write_atomic -------------------------------------------------------------------------------


def test_write_atomic_replaces_the_file_keeps_its_mode_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    path = tmp_path / "a.md"
    path.write_text("old\n")
    path.chmod(0o640)
    write_atomic(path, "new\n", expected="old\n")
    assert path.read_bytes() == b"new\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert _dot_files(tmp_path) == []


def test_write_atomic_refuses_a_file_changed_deleted_or_created_since_it_was_read(tmp_path: Path) -> None:
    path = tmp_path / "a.md"
    path.write_text("changed by someone else\n")
    with pytest.raises(ChangedOnDisk, match="changed on disk since it was read"):
        write_atomic(path, "mine\n", expected="what I read\n")
    assert path.read_text() == "changed by someone else\n"
    with pytest.raises(ChangedOnDisk):
        write_atomic(path, "mine\n", new_file=True)  # it did not exist when it was read
    assert path.read_text() == "changed by someone else\n"
    path.unlink()
    with pytest.raises(ChangedOnDisk):
        write_atomic(path, "mine\n", expected="what I read\n")
    assert not path.exists()
    assert _dot_files(tmp_path) == []


def test_write_atomic_never_rewrites_a_file_that_is_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "latin.md"
    original = "CONCEPT: café\n".encode("latin-1")
    path.write_bytes(original)
    read_back = original.decode("utf-8", errors="replace")  # what a reader sees: U+FFFD for é
    with pytest.raises(NotUtf8, match="not valid UTF-8"):
        write_atomic(path, read_back.replace("café", "cafe"), expected=read_back)
    assert path.read_bytes() == original


def test_write_atomic_writes_through_a_symlink_and_keeps_the_link(tmp_path: Path) -> None:
    real = tmp_path / "real.md"
    real.write_text("old\n")
    alias = tmp_path / "alias.md"
    alias.symlink_to("real.md")
    write_atomic(alias, "new\n", expected="old\n")
    assert alias.is_symlink() and real.read_text() == "new\n"


def test_a_write_that_fails_before_the_rename_leaves_the_old_file_and_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "a.md"
    path.write_text("old\n")

    def disk_full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(CannotWrite, match=r"a\.md: cannot be written \(No space left on device"):
        write_atomic(path, "new\n", expected="old\n")
    assert path.read_bytes() == b"old\n"
    assert _dot_files(tmp_path) == []


def test_temporary_files_are_hidden_and_never_knowledge_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bank = write_files(tmp_path / "memory-bank", {"a.md": bare_header(CONCEPT="a")})
    names: list[str] = []
    real_exchange = writes._exchange

    def exchange(a: str, b: str) -> bool:
        names.append(Path(a).name)
        return real_exchange(a, b)

    monkeypatch.setattr(writes, "_exchange", exchange)
    write_atomic(bank / "a.md", bare_header(CONCEPT="ghost"), expected=bare_header(CONCEPT="a"))
    assert names and names[0].startswith(".a.md.") and not names[0].endswith(".md")
    (bank / names[0]).write_text(bare_header(CONCEPT="ghost"))  # a leftover of a killed writer
    assert knowledge_files(bank) == ["a.md"]
    assert load_bank(bank).by_concept == {"ghost": ["a.md"]}


# --- the commands refuse what changed since they read it -----------------------------------------


@pytest.fixture
def drifted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A bank whose index is out of date (regenerating it would write it)."""
    monkeypatch.chdir(tmp_path)
    bank = copy_bank(FAULTY, tmp_path / "memory-bank")
    (bank / "_index.md").write_text("# Index\n\n<!-- ckp:index:start -->\n<!-- ckp:index:end -->\n")
    return bank


@pytest.mark.parametrize("command", ["index", "fix"])
def test_an_index_changed_after_it_was_read_is_not_overwritten(
    drifted: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    module = "ckp_lsp.cli.index_cmd" if command == "index" else "ckp_lsp.cli.fix_cmd"
    from ckp_lsp.core.format.index import update_index_text

    def meanwhile(*args: object, **kwargs: object) -> str:
        (drifted / "_index.md").write_text("# Index\n\nedited by an agent meanwhile\n")
        return update_index_text(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(f"{module}.update_index_text", meanwhile)
    code = main([command, str(drifted)])
    assert code == 1
    assert "changed on disk since it was read" in capsys.readouterr().err
    assert (drifted / "_index.md").read_text() == "# Index\n\nedited by an agent meanwhile\n"


def test_an_index_created_after_the_bank_was_read_is_not_overwritten(
    drifted: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (drifted / "_index.md").unlink()
    from ckp_lsp.core.format.index import update_index_text

    def meanwhile(*args: object, **kwargs: object) -> str:
        (drifted / "_index.md").write_text("written by another tool\n")
        return update_index_text(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr("ckp_lsp.cli.index_cmd.update_index_text", meanwhile)
    assert main(["index", str(drifted)]) == 1
    assert "changed on disk" in capsys.readouterr().err
    assert (drifted / "_index.md").read_text() == "written by another tool\n"


@pytest.mark.parametrize("command", ["fix", "compile"])
def test_a_file_that_is_not_utf8_is_never_rewritten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    monkeypatch.chdir(tmp_path)
    bank = tmp_path / "memory-bank"
    # A fixable header (a duplicate keyword) above a Latin-1 body.
    original = (bare_header(CONCEPT="menu", ANSWERS_WHEN="menu, menu") + "Crème brûlée.\n").encode("latin-1")
    write_files(bank, {"menu.md": original})
    args = ["fix", str(bank)] if command == "fix" else ["compile", str(bank / "menu.md")]
    assert main(args) == 1
    assert "not valid UTF-8" in capsys.readouterr().err
    assert (bank / "menu.md").read_bytes() == original


# --- a process killed while it writes ------------------------------------------------------------

_BIG_HEADER = (
    "CONCEPT: huge\nTLDR: A very large file.\nANSWERS_WHEN: huge, huge, large\nVALIDATED: 2025-05\n\n"
)


@pytest.fixture(scope="module")
def big_original(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """50 MB: a header with a duplicate keyword (so `ckp fix` rewrites the file), then the body."""
    line = "All work and no play makes a very large knowledge file. " * 2 + "\n"
    return (_BIG_HEADER + line * (50_000_000 // len(line))).encode()


def _bank_with(tmp_path: Path, data: bytes) -> Path:
    bank = tmp_path / "memory-bank"
    bank.mkdir(exist_ok=True)
    (bank / "huge.md").write_bytes(data)
    (bank / "_index.md").unlink(missing_ok=True)
    return bank


_CHILD = """
import os, sys, time
from pathlib import Path
marker = Path(sys.argv[1])
where = sys.argv[2]
if where == "fsync":  # the temporary file is complete, the rename has not happened
    def stall(fd):
        marker.touch()
        time.sleep(600)
    os.fsync = stall
else:  # half of the temporary file is written
    real_fdopen = os.fdopen
    class Half:
        def __init__(self, fh):
            self.fh = fh
        def __enter__(self):
            return self
        def __exit__(self, *exc):
            return self.fh.__exit__(*exc)
        def write(self, data):
            self.fh.write(data[: len(data) // 2])
            self.fh.flush()
            marker.touch()
            time.sleep(600)
        def __getattr__(self, name):
            return getattr(self.fh, name)
    os.fdopen = lambda *a, **k: Half(real_fdopen(*a, **k))
from ckp_lsp.cli.main import main
sys.exit(main(sys.argv[3:]))
"""


@pytest.mark.scale
@pytest.mark.parametrize("where", ["write", "fsync"])
def test_killing_ckp_fix_mid_write_leaves_the_original_byte_for_byte(
    tmp_path: Path, big_original: bytes, where: str
) -> None:
    bank = _bank_with(tmp_path, big_original)
    before = [(f.code, f.span, f.message) for f in check_file(load_bank(bank), "huge.md")]
    marker = tmp_path / "writing"
    child = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(_CHILD), str(marker), where, "fix", str(bank)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + HANG
        while not marker.exists():
            assert child.poll() is None, "ckp fix ended before it wrote"
            assert time.monotonic() < deadline, "ckp fix never started writing"
            time.sleep(0.02)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=HANG)
    assert (bank / "huge.md").read_bytes() == big_original
    leftovers = [p.name for p in bank.iterdir() if p.name not in ("huge.md",)]
    assert leftovers and all(name.startswith(".huge.md.") for name in leftovers)  # what SIGKILL leaves
    # ... is not a knowledge file: the bank reads exactly as before.
    assert knowledge_files(bank) == ["huge.md"]
    assert [(f.code, f.span, f.message) for f in check_file(load_bank(bank), "huge.md")] == before


@pytest.mark.scale
def test_killing_ckp_fix_at_any_moment_leaves_the_old_file_or_the_complete_new_one(
    tmp_path: Path, big_original: bytes
) -> None:
    done = tmp_path / "done"
    done.mkdir()
    assert main(["fix", str(_bank_with(done, big_original))]) == 0
    new = (done / "memory-bank" / "huge.md").read_bytes()
    assert new != big_original
    outcomes = set()
    for delay in (0.0, 0.4, 0.8, 1.2, 2.0):
        bank = _bank_with(tmp_path, big_original)
        child = subprocess.Popen(
            [sys.executable, "-m", "ckp_lsp.cli.main", "fix", str(bank)],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(delay)
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=HANG)
        data = (bank / "huge.md").read_bytes()
        assert data in (big_original, new), (
            f"killed after {delay} s: {len(data):,} bytes, neither old nor new"
        )
        outcomes.add("new" if data == new else "old")
        for p in bank.iterdir():
            if p.name.startswith("."):
                p.unlink()  # a temporary file of a killed writer
    assert "old" in outcomes  # the first kill comes before any write


# --- a long life: nothing is kept per message ------------------------------------------------------


def test_a_handled_notification_leaves_nothing_behind() -> None:
    # pygls keeps each notification's future under a fresh id that only an answer would remove.
    from ckp_lsp.server.server import CkpServer

    protocol = CkpServer().protocol

    async def notification_handler() -> None:
        await asyncio.sleep(0)

    def generator_handler() -> Any:
        yield from ()

    async def run() -> None:
        for n in range(20):
            handler = notification_handler if n % 2 else generator_handler
            protocol._execute_handler(f"note-{n}", handler, protocol._check_handler_result)
        await asyncio.sleep(0.05)

    asyncio.run(run())
    assert protocol._request_futures == {}
