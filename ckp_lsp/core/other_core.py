"""Work done on the machine's other core: a forked child computes, its result comes back by pipe.

A large bank is read on two cores (half the files each), and the language server reads its
banks while it imports its protocol libraries. Only a process without threads forks: a child
of a threaded process could inherit a lock held by a thread that does not exist in it.
"""

from __future__ import annotations

import contextlib
import gc
import os
import pickle
import queue
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from types import GeneratorType
from typing import Any


@contextlib.contextmanager
def paused_collection() -> Iterator[None]:
    """No cyclic garbage collection meanwhile: reading a bank (or a child's result) allocates many
    objects and frees few, none in cycles, and the collector would only walk them again and again
    (half the time of a large bank)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


class ChildFailed(Exception):
    """The child died, or sent what cannot be read: the caller does the work itself."""


def can_fork() -> bool:
    """Whether work can go to another core: fork exists, this process may run on two cores, and
    it has no other thread."""
    return hasattr(os, "fork") and _cores() > 1 and threading.active_count() == 1


def _cores() -> int:
    """The cores this process may run on (a container or ``taskset`` may allow fewer than exist)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


class Child:
    """A forked child sending its results (each as ``pickle`` writes it) one after another."""

    def __init__(self, pid: int, fd: int) -> None:
        self.pid = pid
        self.fd = fd
        self._open = True

    def next(self) -> Any:
        """The child's next result, waiting for it; ChildFailed when there is none."""
        if not self._open:
            raise ChildFailed("the child is done")
        try:
            size = int.from_bytes(self._read(8), "little")
            data = self._read(size)
        except ChildFailed:
            self.close()
            raise
        try:
            with paused_collection():
                return pickle.loads(data)
        except Exception as exc:
            self.close()
            raise ChildFailed(f"the child's result cannot be read: {exc}") from exc

    def result(self) -> Any:
        """The child's one result (see ``next``); the child is done after it."""
        try:
            return self.next()
        finally:
            self.close()

    def _read(self, size: int) -> bytes:
        chunks, left = [], size
        while left:
            chunk = os.read(self.fd, min(left, 1 << 20))
            if not chunk:
                raise ChildFailed("the child ended before sending its result")
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)

    def close(self) -> None:
        """Forget the results not read yet (a child still working is stopped)."""
        if not self._open:
            return
        self._open = False
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)
        os.close(self.fd)
        os.waitpid(self.pid, 0)


def start(work: Callable[[], Any]) -> Child | None:
    """Run ``work()`` in a forked child; a generator sends each value it yields as a result of
    its own. None when this process cannot fork (see ``can_fork``)."""
    if not can_fork():
        return None
    read_end, write_end = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(read_end)
        os.close(write_end)
        return None
    if pid == 0:  # the child: never writes to the parent's stdout or stderr (an editor's pipes)
        status = 1
        try:
            gc.disable()  # it ends soon and frees nothing: collecting would only cost
            os.close(read_end)
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 1)
            os.dup2(null, 2)
            sys.stdout = sys.stderr = open(os.devnull, "w")  # noqa: SIM115 (the child ends with os._exit)
            # Results are written by a thread: the parent may not read them at once (it is
            # busy), and the next result is being made meanwhile.
            out: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
            writer = threading.Thread(target=_write, args=(write_end, out))
            writer.start()
            try:
                result = work()
                for value in result if isinstance(result, GeneratorType) else [result]:
                    data = pickle.dumps(value, pickle.HIGHEST_PROTOCOL)
                    out.put(len(data).to_bytes(8, "little") + data)
            finally:
                out.put(None)
                writer.join()
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    return Child(pid, read_end)


def _write(fd: int, out: queue.SimpleQueue[bytes | None]) -> None:
    while (data := out.get()) is not None:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
