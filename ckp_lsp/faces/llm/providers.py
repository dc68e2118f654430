"""The LLM providers that send: an OpenAI-compatible chat endpoint, the Anthropic API, or a local
command, built from the settings. The wire formats are the core's (``core/compile/providers.py``);
here requests are sent, retried when the server asks for it, and waited for."""

from __future__ import annotations

import datetime
import os
import random
from collections.abc import Mapping
from typing import Any

from ckp_lsp.core.project.config import LlmConfig

from ...core.compile.command import command_argv
from ...core.compile.job import Job, Usage, as_job
from ...core.compile.keys import api_keys, blank
from ...core.compile.prompt import Prompt
from ...core.compile.providers import (
    ANTHROPIC_BASE_URL,
    ANTHROPIC_MODEL,
    OPENAI_BASE_URL,
    OPENAI_MODEL,
    PROVIDER_NAMES,
    RETRIES,
    RETRY_STATUSES,
    AnthropicApi,
    HttpApi,
    OpenAIApi,
    Provider,
    decoded,
    http_error,
    retry_delay,
)
from ...core.compile.wire import Cancelled, ProviderError, Send, origin, seconds
from . import transport
from .command import CommandProvider, stop_commands

__all__ = [
    "AnthropicProvider",
    "CommandProvider",
    "OpenAIProvider",
    "Provider",
    "ProviderError",
    "make_provider",
    "provider_for",
    "stop_commands",
]


class TextOnly:
    """The endpoints that rejected structured output, remembered for the process (the editor makes
    a provider for each Recompile), at most ``limit`` of them: a server that lives for days while
    its settings name ever new endpoints forgets the one rejected longest ago, which costs that
    endpoint one rejected request again."""

    def __init__(self, limit: int = 64) -> None:
        self.limit = limit
        self._seen: dict[tuple[str, str, str], None] = {}

    def __contains__(self, endpoint: object) -> bool:
        return endpoint in self._seen

    def __len__(self) -> int:
        return len(self._seen)

    def add(self, endpoint: tuple[str, str, str]) -> None:
        self._seen.pop(endpoint, None)
        self._seen[endpoint] = None
        while len(self._seen) > self.limit:
            del self._seen[next(iter(self._seen))]

    def clear(self) -> None:
        self._seen.clear()


_TEXT_ONLY = TextOnly()  # endpoints that rejected structured output


class _Sending(HttpApi):
    """An HTTP API's requests sent, retried when the server asks for it, within the job's deadline.

    It asks for structured output (a JSON schema) first; a server that rejects that (HTTP 400 or
    422: older Ollama, llama.cpp, vLLM builds) is asked with the text contract from then on.
    """

    def __init__(
        self,
        base_url: str | None = None,
        model: str | None = None,
        api_key: str | None = None,
        send: Send = transport.post,
    ) -> None:
        super().__init__(base_url, model, api_key)
        self.send = send
        # Until the server rejects it: once per run, and once per server process for an endpoint
        # (the editor makes a provider for each Recompile).
        self.structured = self.endpoint not in _TEXT_ONLY

    def complete(self, prompt: Prompt, job: Job | float) -> str:
        """The model's answer text; every message of a failure has the keys blanked."""
        job = as_job(job)
        try:
            structured = self.structured
            try:
                data = self._call(prompt, structured, job)
            except _Rejected as rejected:
                if not structured:
                    raise rejected.error from None
                self.structured = False
                _TEXT_ONLY.add(self.endpoint)
                data = self._call(prompt, False, job)
            return self.text(data)
        except ProviderError as exc:
            raise type(exc)(blank(str(exc), [self._api_key, *api_keys()])) from None

    def _call(self, prompt: Prompt, structured: bool, job: Job) -> Any:
        """The decoded JSON of a successful answer; 429 and 5xx retried within the deadline."""
        request = self.request(prompt, structured)
        for attempt in range(RETRIES + 1):
            answer = self.send(request, job)
            job.count(Usage(requests=1))
            if 200 <= answer.status < 300:
                data = decoded(answer)
                job.count(self.usage(data))
                return data
            error = http_error(answer)
            if answer.status in (400, 422) and structured:
                raise _Rejected(error)
            if answer.status not in RETRY_STATUSES or attempt == RETRIES:
                raise error
            now = datetime.datetime.now(datetime.timezone.utc)
            delay = retry_delay(answer.headers, attempt, now, random.uniform(0.8, 1.2))
            if delay >= job.remaining():
                raise ProviderError(
                    f"{error} (the provider asked to wait {seconds(round(delay, 1))} s, "
                    f"past the {seconds(job.seconds)} s deadline)"
                )
            if not job.sleep(delay):
                raise Cancelled()
        raise AssertionError("unreachable")  # pragma: no cover


class _Rejected(Exception):
    """A server refused a structured-output request: ask again with the text contract."""

    def __init__(self, error: ProviderError) -> None:
        super().__init__(str(error))
        self.error = error


class OpenAIProvider(_Sending, OpenAIApi):
    """An OpenAI-compatible chat endpoint: OpenAI, Ollama, llama.cpp, vLLM, LM Studio."""


class AnthropicProvider(_Sending, AnthropicApi):
    """The Anthropic Messages API (structured output through a tool the model must call)."""


def provider_for(llm: LlmConfig, env: Mapping[str, str] | None = None) -> Provider | None:
    """The configured LLM provider, or None for the offline compiler."""
    if llm.provider == "offline":
        return None
    provider = make_provider(
        llm.provider,
        model=llm.model,
        base_url=llm.base_url,
        command=llm.command,
        env=env if env is not None else os.environ,
    )
    provider.candidates = llm.candidates
    return provider


def make_provider(
    name: str,
    *,
    model: str | None,
    base_url: str | None,
    command: str | list[str] | None,
    env: Mapping[str, str],
) -> Provider:
    """The provider called `name`, configured from settings and API keys in `env`."""
    kind = name.strip().lower()
    if kind == "openai":
        key = env.get("OPENAI_API_KEY") or env.get("CKP_LLM_API_KEY") or None
        url = base_url or OPENAI_BASE_URL
        if key is None and origin(url)[1] == origin(OPENAI_BASE_URL)[1]:  # the same host
            raise ProviderError(
                "the OpenAI API needs a key: set OPENAI_API_KEY (or CKP_LLM_API_KEY), "
                "or point ckp.llm.baseUrl at a local OpenAI-compatible server"
            )
        return OpenAIProvider(base_url=url, model=model or OPENAI_MODEL, api_key=key)
    if kind == "anthropic":
        key = env.get("ANTHROPIC_API_KEY") or env.get("CKP_LLM_API_KEY") or None
        if key is None:
            raise ProviderError("the Anthropic API needs a key: set ANTHROPIC_API_KEY (or CKP_LLM_API_KEY)")
        return AnthropicProvider(
            base_url=base_url or ANTHROPIC_BASE_URL, model=model or ANTHROPIC_MODEL, api_key=key
        )
    if kind == "command":
        return CommandProvider(command_argv(command))
    valid = ", ".join(PROVIDER_NAMES)
    if kind == "offline":
        raise ProviderError(
            f"the offline compiler needs no LLM provider; compile offline, or choose an LLM provider: {valid}"
        )
    raise ProviderError(f"unknown LLM provider {name!r}; choose one of: {valid}")
