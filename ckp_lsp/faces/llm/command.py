"""The ``command`` provider: a program run without a shell, the prompt on its stdin, the answer on
its stdout; killed with the programs it started at the deadline, on cancel or at shutdown. What its
run means (the answer or the error) is the core's ``core/compile/command.py``."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading

from ...core.compile.candidates import DEFAULT_CANDIDATES
from ...core.compile.command import Ran, command_answer, start_error
from ...core.compile.job import Job, as_job
from ...core.compile.keys import blank
from ...core.compile.prompt import Prompt
from ...core.compile.wire import MAX_ANSWER_BYTES, ProviderError


class CommandProvider:
    """A program run without a shell: the prompt on its stdin, the answer on its stdout."""

    name = "command"
    estimated = True  # its usage is estimated (characters / 4), not reported by an API

    def __init__(self, argv: list[str]) -> None:
        if not argv or not argv[0]:
            raise ProviderError("the LLM command is empty; set ckp.llm.command to a program")
        self.argv = list(argv)
        self.candidates = DEFAULT_CANDIDATES

    def __repr__(self) -> str:
        return f"CommandProvider(argv={self.argv!r})"

    def complete(self, prompt: Prompt, job: Job | float) -> str:
        """What the command prints for the prompt (system, blank line, user) on its stdin."""
        job = as_job(job)
        try:
            return self._complete(prompt, job)
        except ProviderError as exc:
            raise type(exc)(blank(str(exc))) from None

    def _complete(self, prompt: Prompt, job: Job) -> str:
        stdin = prompt.as_text()
        try:
            done = _run(self.argv, stdin, job)
        except OSError as exc:
            raise start_error(self.argv[0], exc) from None
        return command_answer(self.argv[0], stdin, done, job)


_RUNNING: set[subprocess.Popen[bytes]] = set()
_RUNNING_LOCK = threading.Lock()
_STDERR_KEPT = 64 * 1024


def _run(argv: list[str], stdin: str, job: Job) -> Ran:
    """Run ``argv`` (no shell) in its own process group: stdout read up to the cap, the stderr's
    end kept, and the whole group killed at the deadline, on cancel or at shutdown."""
    process = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=os.name == "posix",  # its children die with it
    )
    ran = Ran(0, b"", b"")
    out: list[bytes] = []
    err = bytearray()

    def kill() -> None:
        _kill(process)

    def read_out() -> None:
        assert process.stdout is not None
        size = 0
        while chunk := os.read(process.stdout.fileno(), 65536):
            size += len(chunk)
            if size > MAX_ANSWER_BYTES:
                ran.too_big = True
                kill()
                return
            out.append(chunk)

    def read_err() -> None:
        assert process.stderr is not None
        while chunk := os.read(process.stderr.fileno(), 65536):
            err.extend(chunk)
            del err[:-_STDERR_KEPT]

    def write_in() -> None:
        assert process.stdin is not None
        with contextlib.suppress(OSError):
            process.stdin.write(stdin.encode("utf-8"))
        with contextlib.suppress(OSError):
            process.stdin.close()

    with _RUNNING_LOCK:
        _RUNNING.add(process)
    threads = [threading.Thread(target=f, daemon=True) for f in (read_out, read_err, write_in)]
    try:
        with job.guard(kill):
            for t in threads:
                t.start()
            try:
                process.wait(timeout=job.remaining() + 0.5)
            except subprocess.TimeoutExpired:
                kill()
                process.wait()
        for t in threads:
            t.join(timeout=2)
    finally:
        with _RUNNING_LOCK:
            _RUNNING.discard(process)
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
    ran.returncode = process.returncode
    ran.stdout, ran.stderr = b"".join(out), bytes(err)
    ran.timed_out = job.expired and not ran.too_big and not job.cancelled
    return ran


def _kill(process: subprocess.Popen[bytes]) -> None:
    """Kill ``process`` and the processes it started (its group), if still there."""
    if process.poll() is not None:
        return
    with contextlib.suppress(OSError):
        if os.name == "posix":
            os.killpg(process.pid, signal.SIGKILL)
        else:  # pragma: no cover
            process.kill()


def stop_commands() -> None:
    """Kill the LLM commands still running: the language server is shutting down."""
    with _RUNNING_LOCK:
        running = list(_RUNNING)
    for process in running:
        _kill(process)
