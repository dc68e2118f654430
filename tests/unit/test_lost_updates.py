"""No lost update: an edit saved while ``ckp`` rewrites the same file is never overwritten.

The race is made deterministic: the temporary file is created after the file was read and
checked and before it replaces the file, so a hook there lets another writer (a thread, saving the
way editors and agents do) save exactly inside the window.
"""

from __future__ import annotations

import os
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ckp_lsp.cli.main import main
from ckp_lsp.core.edit import writes
from ckp_lsp.core.edit.writes import ChangedOnDisk, write_atomic
from tests.unit.builders import alone, bare_header, write_files

AGENT = bare_header(CONCEPT="menu", ANSWERS_WHEN="menu, menu") + "The agent's new paragraph.\n"


def _save_by_rename(path: Path, text: str) -> None:
    """How most editors and agents save: a temporary file renamed over the old one."""
    tmp = path.with_name(path.name + ".agent~")
    tmp.write_text(text)
    os.replace(tmp, path)


def _save_in_place(path: Path, text: str) -> None:
    """How others save: truncate the file and write it again."""
    with path.open("w") as fh:
        fh.write(text)


class Agent(threading.Thread):
    """A concurrent writer: saves ``text`` into ``path`` when told, and says when it has."""

    def __init__(self, path: Path, text: str, save: Callable[[Path, str], None]) -> None:
        super().__init__(daemon=True)
        self.path, self.text, self.save = path, text, save
        self.go, self.done = threading.Event(), threading.Event()

    def run(self) -> None:
        self.go.wait(30)
        self.save(self.path, self.text)
        self.done.set()

    def save_now(self) -> None:
        self.go.set()
        assert self.done.wait(30), "the agent never saved"


def _in_the_window(monkeypatch: pytest.MonkeyPatch, agent: Agent, times: int = 1) -> None:
    """Let ``agent`` save once ckp has read and checked the file and is about to replace it."""
    real = tempfile.mkstemp
    left = [times]

    def mkstemp(*args: Any, **kwargs: Any) -> tuple[int, str]:
        got = real(*args, **kwargs)
        if left[0] and Path(kwargs.get("dir", "")) == agent.path.parent:
            left[0] -= 1
            agent.save_now()
        return got

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)


@pytest.fixture(params=["rename", "in place"])
def save(request: pytest.FixtureRequest) -> Callable[[Path, str], None]:
    return _save_by_rename if request.param == "rename" else _save_in_place


@pytest.mark.parametrize("swap", ["exchange", "no exchange"])
def test_an_edit_saved_between_the_check_and_the_replace_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, save: Callable[[Path, str], None], swap: str
) -> None:
    path = tmp_path / "a.md"
    path.write_text("what ckp read\n")
    if swap == "no exchange":  # a system without renameat2: the last check before the rename
        monkeypatch.setattr(writes, "_exchange", lambda a, b: False)
    agent = Agent(path, "the agent's edit\n", save)
    agent.start()
    _in_the_window(monkeypatch, agent)
    with pytest.raises(ChangedOnDisk, match=r"a\.md changed on disk"):
        write_atomic(path, "ckp's rewrite\n", expected="what ckp read\n")
    assert path.read_text() == "the agent's edit\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.md"]


def test_an_edit_saved_between_the_swap_and_the_swap_back_is_kept_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "a.md"
    path.write_text("what ckp read\n")
    first = Agent(path, "first edit\n", _save_by_rename)
    first.start()
    _in_the_window(monkeypatch, first)
    real = writes._exchange
    calls = [0]

    def exchange(a: str, b: str) -> bool:
        calls[0] += 1
        if calls[0] == 2:  # the agent saves again after ckp swapped in, before it swaps back
            _save_by_rename(path, "second edit\n")
        return real(a, b)

    monkeypatch.setattr(writes, "_exchange", exchange)
    with pytest.raises(ChangedOnDisk):
        write_atomic(path, "ckp's rewrite\n", expected="what ckp read\n")
    assert path.read_text() == "second edit\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.md"]


def test_without_the_swap_an_edit_written_in_place_during_the_rename_is_detected_and_put_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "a.md"
    path.write_text("what ckp read\n")
    monkeypatch.setattr(writes, "_exchange", lambda a, b: False)
    real = os.replace

    def replace(src: str, dst: Any) -> None:
        if Path(dst) == path:  # the agent writes into the file between the last check and the rename
            _save_in_place(path, "the agent's edit\n")
        real(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(ChangedOnDisk, match="put back"):
        write_atomic(path, "ckp's rewrite\n", expected="what ckp read\n")
    assert path.read_text() == "the agent's edit\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.md"]


def test_without_a_concurrent_edit_the_swap_replaces_the_file(tmp_path: Path) -> None:
    path = tmp_path / "a.md"
    path.write_text("old\n")
    inode = path.stat().st_ino
    write_atomic(path, "new\n", expected="old\n")
    assert path.read_text() == "new\n" and path.stat().st_ino != inode
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.md"]


def test_on_linux_the_swap_is_renameat2(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.write_text("a")
    b.write_text("b")
    assert writes._exchange(str(a), str(b)) == sys.platform.startswith("linux")
    if sys.platform.startswith("linux"):
        assert (a.read_text(), b.read_text()) == ("b", "a")


def test_a_file_created_while_ckp_creates_it_is_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "_index.md"
    agent = Agent(path, "the agent's index\n", _save_by_rename)
    agent.start()
    _in_the_window(monkeypatch, agent)
    with pytest.raises(ChangedOnDisk, match=r"_index\.md was created on disk"):
        write_atomic(path, "ckp's index\n", new_file=True)
    assert path.read_text() == "the agent's index\n"


# --- the commands: exit 1, name the file, keep the edit ----------------------------------------------


@pytest.mark.parametrize("command", ["fix", "compile", "index"])
def test_the_commands_keep_an_edit_saved_while_they_write_and_exit_1_naming_the_file(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    save: Callable[[Path, str], None],
    command: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    bank = alone(
        write_files(
            tmp_path / "memory-bank",
            {"menu.md": bare_header(CONCEPT="menu", ANSWERS_WHEN="menu, menu") + "Body.\n"},
        )
    )
    if command == "index":
        target, args = bank / "_index.md", ["index", str(bank)]
        target.write_text("# Index\n\n<!-- ckp:index:start -->\n<!-- ckp:index:end -->\n")
    elif command == "fix":
        (bank / "_index.md").unlink(missing_ok=True)
        target, args = bank / "menu.md", ["fix", str(bank / "menu.md")]
    else:
        target, args = bank / "menu.md", ["compile", str(bank / "menu.md")]
    agent = Agent(target, AGENT, save)
    agent.start()
    _in_the_window(monkeypatch, agent)
    assert main(args) == 1
    err = capsys.readouterr().err
    assert f"{target.name} changed on disk" in err and "Traceback" not in err
    assert target.read_text() == AGENT
    assert not [p.name for p in bank.iterdir() if p.name.startswith(".")]
