"""What travels between ckp and an LLM provider: a request, an answer, and the failures, as values.

The core builds the request and reads the answer; a face sends it (``ckp_lsp/faces/llm``), so that
no socket, process or clock is touched here.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from .job import Job
from .model import CompileError

MAX_ANSWER_BYTES = 4 * 1024 * 1024  # a header's answer is a few KB; more is not an answer


class ProviderError(CompileError):
    """An LLM provider failed: the message says what went wrong and what to do."""


class Cancelled(ProviderError):
    """The job was cancelled while the request ran."""

    def __init__(self, message: str = "the compile was cancelled") -> None:
        super().__init__(message)


@dataclass(frozen=True)
class Request:
    """One HTTP POST to a provider's API: where, with which headers (the key among them), what."""

    url: str
    headers: Mapping[str, str]
    payload: bytes


@dataclass(frozen=True)
class HttpAnswer:
    """An HTTP response: status, headers (lower-case names) and body."""

    url: str
    status: int
    headers: Mapping[str, str]
    body: bytes


class Send(Protocol):
    """Sends a request by ``job``'s deadline and gives the answer; every failure a ProviderError."""

    def __call__(self, request: Request, job: Job) -> HttpAnswer: ...


def origin(url: str) -> tuple[str, str, int]:
    """Scheme, host and port: a key is sent only where this is the configured one."""
    parts = urllib.parse.urlsplit(url)
    scheme = parts.scheme.lower()
    return scheme, (parts.hostname or "").lower(), parts.port or (443 if scheme == "https" else 80)


def shown(url: str) -> str:
    """``url`` as messages show it: no user info, query or fragment (they may hold secrets)."""
    parts = urllib.parse.urlsplit(url)
    return f"{parts.scheme}://{parts.netloc.rsplit('@', 1)[-1]}{parts.path}"


def seconds(value: float) -> str:
    """A timeout as people write it: ``30``, ``0.5``."""
    return f"{value:g}"


def timeout_error(url: str, timeout: float) -> ProviderError:
    """A ProviderError for a provider that did not answer by the deadline."""
    return ProviderError(
        f"the provider at {shown(url)} gave no answer within {seconds(timeout)} s; "
        "raise ckp.llm.timeout or try again"
    )
