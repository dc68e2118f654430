"""One compile's deadline, its cancellation, and what its requests cost.

``--timeout`` is a deadline for the whole answer (retries, the repair round and a model that sends
one byte at a time included), not a limit per socket read; cancelling (the editor's Cancel, the
server shutting down) stops the running program or request at once.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class Usage:
    """Tokens spent (as the API counted them) and requests made."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    requests: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.requests + other.requests,
        )

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class Job:
    """The deadline of one compile, a way to cancel it, and the usage of its requests."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.end = time.monotonic() + seconds
        self.usage = Usage()
        self._cancelled = threading.Event()
        self._lock = threading.Lock()
        self._stops: list[Callable[[], None]] = []

    def remaining(self) -> float:
        """Seconds left before the deadline (0 once it passed)."""
        return max(0.0, self.end - time.monotonic())

    @property
    def expired(self) -> bool:
        return self.remaining() <= 0

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    def cancel(self) -> None:
        """Stop the work: what runs now is stopped (a program killed, a connection closed)."""
        self._cancelled.set()
        with self._lock:
            stops = list(self._stops)
        for stop in stops:
            with contextlib.suppress(OSError):
                stop()

    def sleep(self, seconds: float) -> bool:
        """Wait ``seconds`` (not past the deadline); False when cancelled meanwhile."""
        return not self._cancelled.wait(min(seconds, self.remaining()))

    def count(self, usage: Usage) -> None:
        with self._lock:
            self.usage = self.usage + usage

    @contextlib.contextmanager
    def guard(self, stop: Callable[[], None]) -> Iterator[None]:
        """Within the block, ``stop()`` is called when the deadline passes or the job is cancelled."""
        timer = threading.Timer(self.remaining(), stop)
        timer.daemon = True
        with self._lock:
            self._stops.append(stop)
        try:
            if self.cancelled:
                stop()
            timer.start()
            yield
        finally:
            timer.cancel()
            with self._lock:
                self._stops.remove(stop)


def as_job(job: Job | float) -> Job:
    """``job``, or a job with that many seconds."""
    return job if isinstance(job, Job) else Job(float(job))
