"""Work on the other core: a forked child's results come back in order, a failure is a value."""

from __future__ import annotations

import gc
import os
import sys
import threading
import time
from collections.abc import Iterator

import pytest

from ckp_lsp.core import other_core


@pytest.fixture(autouse=True)
def forking() -> None:
    """These tests are about the forked child: this process must be able to fork."""
    assert other_core.can_fork(), f"threads left running: {threading.enumerate()}"


def test_a_result_comes_back() -> None:
    child = other_core.start(lambda: {"files": ["a.md", "b.md"], "count": 2})
    assert child is not None
    assert child.result() == {"files": ["a.md", "b.md"], "count": 2}


def test_a_child_runs_in_another_process() -> None:
    child = other_core.start(os.getpid)
    assert child is not None
    assert child.result() not in (os.getpid(), None)


def test_a_generator_sends_each_value_as_it_is_made() -> None:
    def parts() -> Iterator[list[int]]:
        yield [1, 2]
        yield [3]

    child = other_core.start(parts)
    assert child is not None
    assert child.next() == [1, 2]
    assert child.next() == [3]
    with pytest.raises(other_core.ChildFailed):
        child.next()


def test_a_failing_child_is_a_child_failed_not_a_crash() -> None:
    child = other_core.start(lambda: 1 // 0)
    assert child is not None
    with pytest.raises(other_core.ChildFailed, match="ended before sending"):
        child.result()


def test_what_came_before_a_failure_is_kept() -> None:
    def parts() -> Iterator[str]:
        yield "first"
        raise RuntimeError("broken")

    child = other_core.start(parts)
    assert child is not None
    assert child.next() == "first"
    with pytest.raises(other_core.ChildFailed):
        child.next()


def test_a_child_never_writes_to_stdout_or_stderr(capfd: pytest.CaptureFixture[str]) -> None:
    def noisy() -> str:
        print("noise on the editor's pipe", flush=True)
        print("and on its log", file=sys.stderr, flush=True)
        os.write(1, b"more noise\n")
        os.write(2, b"more noise\n")
        return "done"

    child = other_core.start(noisy)
    assert child is not None
    assert child.result() == "done"
    out, err = capfd.readouterr()
    assert "noise" not in out and "noise" not in err and "log" not in err


def test_closing_stops_a_child_still_working() -> None:
    child = other_core.start(lambda: time.sleep(60))
    assert child is not None
    pid = child.pid
    started = time.monotonic()
    child.close()
    assert time.monotonic() - started < 30
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # already reaped: no zombie left


def test_a_process_with_threads_does_not_fork() -> None:
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert not other_core.can_fork()
        assert other_core.start(lambda: 1) is None
    finally:
        stop.set()
        thread.join()


@pytest.mark.parametrize("enabled", [True, False])
def test_collection_is_paused_and_restored(enabled: bool) -> None:
    before = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        with other_core.paused_collection():
            assert not gc.isenabled()
        assert gc.isenabled() == enabled
    finally:
        (gc.enable if before else gc.disable)()


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="only Linux sets a process's cores")
def test_a_process_allowed_one_core_does_not_fork() -> None:
    allowed = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(allowed)})
    try:
        assert not other_core.can_fork()
        assert other_core.start(lambda: 1) is None
    finally:
        os.sched_setaffinity(0, allowed)
    assert other_core.can_fork()
