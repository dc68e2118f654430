"""The ``command`` provider's contract: the program's arguments, and what its run means.

The program reads the prompt on stdin and prints the answer on stdout; a face runs it
(``ckp_lsp/faces/llm/command.py``) and hands back a ``Ran``, read here into the answer or a
ProviderError that says what to do.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from ckp_lsp.core.format.fields import token_estimate

from .job import Job, Usage
from .wire import MAX_ANSWER_BYTES, Cancelled, ProviderError, seconds

_STDERR_LINES = 5
_DETAIL_CHARS = 300


def command_argv(command: str | list[str] | None) -> list[str]:
    """The program and its arguments from ``ckp.llm.command`` (a string split as a shell would)."""
    if isinstance(command, str):
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            raise ProviderError(
                f"the LLM command cannot be split into arguments ({exc}); check its quotes"
            ) from None
    else:
        argv = list(command or [])
    if not argv:
        raise ProviderError(
            "the command provider needs a command: set ckp.llm.command to a program that "
            "reads the prompt on stdin and prints the answer"
        )
    return argv


@dataclass
class Ran:
    """How a run of the command ended: its exit status, its output, and whether it was stopped."""

    returncode: int
    stdout: bytes
    stderr: bytes
    timed_out: bool = False
    too_big: bool = False


def start_error(program: str, exc: OSError) -> ProviderError:
    """A ProviderError for a command that could not be started."""
    if isinstance(exc, FileNotFoundError):
        return ProviderError(
            f"the LLM command {program!r} was not found; check ckp.llm.command "
            "(the program must be on PATH or given by its full path)"
        )
    if isinstance(exc, PermissionError):
        return ProviderError(
            f"the LLM command {program!r} cannot be run (permission denied); check that it is executable"
        )
    return ProviderError(
        f"the LLM command {program!r} could not be started ({exc.strerror or exc}); check ckp.llm.command"
    )


def command_answer(program: str, stdin: str, done: Ran, job: Job) -> str:
    """What the command printed, or a ProviderError; its usage is counted on ``job``."""
    # A command reports no usage: its tokens are estimated as characters / 4, so that a
    # budget (--max-tokens-total) means something for it too.
    job.count(Usage(token_estimate(len(stdin)), token_estimate(len(done.stdout)), requests=1))
    if job.cancelled:
        raise Cancelled()
    if done.timed_out:
        raise ProviderError(
            f"the LLM command {program!r} gave no answer within {seconds(job.seconds)} s; "
            f"raise ckp.llm.timeout or try again{_stderr_tail(done.stderr)}"
        )
    if done.too_big:
        raise ProviderError(
            f"the LLM command {program!r} printed more than {MAX_ANSWER_BYTES // (1024 * 1024)} MiB; "
            "that is not an answer for one header: check the command"
        )
    if done.returncode != 0:
        raise ProviderError(
            f"the LLM command {program!r} failed with exit status {done.returncode}"
            f"{_stderr_tail(done.stderr)}; check the command and its setup"
        )
    text = done.stdout.decode("utf-8", errors="replace")
    if not text.strip():
        raise ProviderError(
            f"the LLM command {program!r} printed nothing; it must print the answer on stdout"
            f"{_stderr_tail(done.stderr)}"
        )
    return text


def _stderr_tail(stderr: str | bytes | None) -> str:
    """The last lines of a command's stderr as `: line / line`, or ''."""
    if not stderr:
        return ""
    text = stderr.decode("utf-8", errors="replace") if isinstance(stderr, bytes) else stderr
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    tail = " / ".join(lines[-_STDERR_LINES:])
    if len(tail) > _DETAIL_CHARS:
        tail = "…" + tail[-_DETAIL_CHARS:]
    return f": {tail}" if tail else ""
