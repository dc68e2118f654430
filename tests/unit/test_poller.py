"""The one disk poller (``faces.poller``) the language server and ``ckp mcp`` both run: each scan's
files created, changed and deleted since the scan before are handed on, once, and nothing when
nothing moved; the baseline is what the face said it read."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from ckp_lsp.faces.poller import Changes, Poller, diff
from ckp_lsp.server.watch import poller as server_poller
from ckp_lsp.server.watch import scan


def test_the_changes_between_two_scans_are_what_was_created_changed_and_deleted() -> None:
    old = {"a": (1, 1), "b": (1, 1), "c": (1, 1)}
    new = {"a": (1, 1), "b": (2, 1), "d": (1, 1)}
    assert diff(old, new) == (["d"], ["b"], ["c"])
    assert diff(new, new) == ([], [], [])


def test_each_change_is_handed_on_once_and_nothing_when_nothing_moved() -> None:
    disk = {"a": (1, 1)}
    got: list[Changes[str]] = []
    poller = Poller(lambda: dict(disk), got.append, interval=0)
    poller.rebase(disk)
    assert poller.poll_once() == ([], [], []) and got == []
    disk["a"], disk["b"] = (2, 1), (1, 1)
    assert poller.poll_once() == (["b"], ["a"], [])
    assert poller.poll_once() == ([], [], [])
    del disk["a"]
    poller.poll_once()
    assert got == [(["b"], ["a"], []), ([], [], ["a"])]


def test_what_a_face_takes_as_read_is_no_change_and_a_rebase_forgets_the_rest() -> None:
    disk = {(Path("bank"), "a.md"): (1, 1), (Path("bank"), "b.md"): (1, 1)}
    poller: Poller[tuple[Path, str]] = Poller(lambda: dict(disk), lambda _: None, interval=0)
    poller.take(disk)
    assert poller.poll_once() == ([], [], [])
    poller.rebase({})
    assert poller.poll_once()[0] == sorted(disk)


def test_the_thread_polls_until_stopped(tmp_path: Path) -> None:
    note = tmp_path / "note.md"
    note.write_text("one\n", encoding="utf-8")
    seen = threading.Event()
    events = []

    def on_events(e: tuple[list[Path], list[Path], list[Path]]) -> None:
        events.append(e)
        seen.set()

    poller = server_poller(lambda: [tmp_path], on_events)
    poller.rebase(scan([tmp_path]))
    poller.start()
    try:
        st = note.stat()
        note.write_text("two, longer\n", encoding="utf-8")
        os.utime(note, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
        assert seen.wait(10)
    finally:
        poller.stop()
    assert events[0] == ([], [note], [])
