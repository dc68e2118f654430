"""LLM providers' wire formats: an OpenAI-compatible chat endpoint and the Anthropic API.

Each builds its request (URL, headers, payload) and reads its answer (the text, the usage, an error
that says what to do); a face sends the request and waits between retries
(``ckp_lsp/faces/llm/providers.py``). ``Provider`` is what the compiler asks for an answer.
"""

from __future__ import annotations

import datetime
import email.utils
import json
import urllib.parse
from collections.abc import Mapping
from typing import Any, Protocol

from .candidates import DEFAULT_CANDIDATES
from .job import Job, Usage
from .prompt import SCHEMA_NAME, Prompt, answer_schema
from .wire import HttpAnswer, ProviderError, Request, shown

OPENAI_BASE_URL = "https://api.openai.com/v1"
OPENAI_MODEL = "gpt-4o-mini"
ANTHROPIC_BASE_URL = "https://api.anthropic.com"
ANTHROPIC_MODEL = "claude-3-5-haiku-latest"
ANTHROPIC_VERSION = "2023-06-01"
PROVIDER_NAMES = ("offline", "openai", "anthropic", "command")

_DETAIL_CHARS = 300


class Provider(Protocol):
    """Something that turns a prompt into the model's answer text."""

    name: str
    candidates: int  # how many of the bank's other concepts its prompts list

    def complete(self, prompt: Prompt, job: Job | float) -> str:
        """The model's answer to ``prompt`` by ``job``'s deadline (or within that many seconds),
        or a ProviderError; the usage of its requests is counted on ``job``."""
        ...


RETRIES = 4  # a request is sent at most this many times more when the server asks for it
RETRY_STATUSES = {408, 429, 500, 502, 503, 504, 529}
MAX_BACKOFF = 30.0


class HttpApi:
    """An LLM API behind HTTP: its endpoint, its model and a key that is never shown."""

    name = ""
    default_url = ""
    default_model = ""

    def __init__(
        self, base_url: str | None = None, model: str | None = None, api_key: str | None = None
    ) -> None:
        self.base_url = _checked_base_url(base_url or self.default_url)
        self.model = model or self.default_model
        self._api_key = api_key or None
        self.candidates = DEFAULT_CANDIDATES

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(base_url={self.base_url!r}, model={self.model!r}, "
            f"api_key={_hidden(self._api_key)})"
        )

    @property
    def endpoint(self) -> tuple[str, str, str]:
        return (self.name, self.base_url, self.model)

    def request(self, prompt: Prompt, structured: bool) -> Request:
        """The POST that asks for ``prompt``'s answer (as a JSON schema when ``structured``)."""
        return Request(self.url, self.headers(), json.dumps(self.body(prompt, structured)).encode("utf-8"))

    # --- what each API differs in ---

    @property
    def url(self) -> str:
        raise NotImplementedError

    def headers(self) -> dict[str, str]:
        raise NotImplementedError

    def body(self, prompt: Prompt, structured: bool) -> dict[str, Any]:
        raise NotImplementedError

    def text(self, data: Any) -> str:
        raise NotImplementedError

    def usage(self, data: Any) -> Usage:
        raise NotImplementedError


class OpenAIApi(HttpApi):
    """An OpenAI-compatible chat endpoint: OpenAI, Ollama, llama.cpp, vLLM, LM Studio."""

    name = "openai"
    default_url = OPENAI_BASE_URL
    default_model = OPENAI_MODEL

    @property
    def url(self) -> str:
        return self.base_url + "/chat/completions"

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}

    def body(self, prompt: Prompt, structured: bool) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [
                {"role": "system", "content": prompt.system},
                {"role": "user", "content": prompt.user},
            ],
            "temperature": 0,
        }
        if structured:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": SCHEMA_NAME,
                    "strict": True,
                    "schema": answer_schema(prompt.needs_concept),
                },
            }
        return body

    def text(self, data: Any) -> str:
        """The message content of the first choice of a chat completion."""
        try:
            message = data["choices"][0]["message"]
            content = message.get("content")
        except (KeyError, IndexError, TypeError, AttributeError):
            raise _shape_error(self.url, "choices[0].message.content") from None
        if content is None and isinstance(message.get("refusal"), str):
            raise ProviderError(
                f"the model refused to answer ({_short(message['refusal'])}); try another model"
            )
        if isinstance(content, list):  # some compatible servers answer with content parts
            content = _text_blocks(content)
        if not isinstance(content, str):
            raise _shape_error(self.url, "choices[0].message.content")
        return _non_empty(content, self.url)

    def usage(self, data: Any) -> Usage:
        usage = data.get("usage") if isinstance(data, dict) else None
        if not isinstance(usage, dict):
            return Usage()
        return Usage(_count(usage.get("prompt_tokens")), _count(usage.get("completion_tokens")))


class AnthropicApi(HttpApi):
    """The Anthropic Messages API (structured output through a tool the model must call)."""

    name = "anthropic"
    default_url = ANTHROPIC_BASE_URL
    default_model = ANTHROPIC_MODEL

    @property
    def url(self) -> str:
        # Accept a base URL given with or without its /v1, as both are written in the wild.
        return self.base_url.removesuffix("/v1") + "/v1/messages"

    def headers(self) -> dict[str, str]:
        headers = {"anthropic-version": ANTHROPIC_VERSION}
        if self._api_key:
            headers["x-api-key"] = self._api_key
        return headers

    def body(self, prompt: Prompt, structured: bool) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "max_tokens": 1024,
            "system": prompt.system,
            "messages": [{"role": "user", "content": prompt.user}],
        }
        if structured:
            body["tools"] = [
                {
                    "name": SCHEMA_NAME,
                    "description": "Record the compiled CKP header of the file.",
                    "input_schema": answer_schema(prompt.needs_concept),
                }
            ]
            body["tool_choice"] = {"type": "tool", "name": SCHEMA_NAME}
        return body

    def text(self, data: Any) -> str:
        """The header the model gave its tool, else the text blocks of its content, joined."""
        blocks = data.get("content") if isinstance(data, dict) else None
        if not isinstance(blocks, list):
            raise _shape_error(self.url, "content[].text")
        for block in blocks:
            if (
                isinstance(block, dict)
                and block.get("type") == "tool_use"
                and block.get("name") == SCHEMA_NAME
                and isinstance(block.get("input"), dict)
            ):
                return json.dumps(block["input"], ensure_ascii=False)
        return _non_empty(_text_blocks(blocks), self.url)

    def usage(self, data: Any) -> Usage:
        usage = data.get("usage") if isinstance(data, dict) else None
        if not isinstance(usage, dict):
            return Usage()
        return Usage(_count(usage.get("input_tokens")), _count(usage.get("output_tokens")))


def decoded(answer: HttpAnswer) -> Any:
    """The JSON of a successful answer, or a ProviderError."""
    try:
        return json.loads(answer.body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise ProviderError(
            f"the provider at {shown(answer.url)} answered with something that is not JSON; "
            "check the base URL (it must point at the API, e.g. ending in /v1)"
        ) from None


def http_error(answer: HttpAnswer) -> ProviderError:
    """A ProviderError for an HTTP error status, with what to do about it."""
    code = answer.status
    if code in (401, 403):
        # The provider's explanation may quote (part of) the key, so none of it is shown.
        return ProviderError(
            f"the provider refused the API key (HTTP {code}); check the key in the environment "
            "(OPENAI_API_KEY, ANTHROPIC_API_KEY or CKP_LLM_API_KEY) and its permissions"
        )
    detail = _error_detail(answer.body)
    if code == 404:
        return ProviderError(
            f"the provider has nothing at {shown(answer.url)} (HTTP 404{detail}); "
            "check the base URL and the model name"
        )
    if code == 429:
        return ProviderError(f"the provider rate-limited the request (HTTP 429{detail}); retry later")
    if code >= 500:
        return ProviderError(
            f"the provider failed: HTTP {code}{detail}; try again later or choose another model"
        )
    return ProviderError(
        f"the provider rejected the request (HTTP {code}{detail}); check the model name and the base URL"
    )


def _error_detail(body: bytes) -> str:
    """The provider's own error message, short, as `: message` (keys are blanked by the caller)."""
    raw = body.decode("utf-8", errors="replace")
    text = raw
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        data = None
    if isinstance(data, dict):
        err = data.get("error", data)
        message = err.get("message") if isinstance(err, dict) else err
        if isinstance(message, str):
            text = message
    text = _short(text)
    return f": {text}" if text else ""


def _short(text: str) -> str:
    """``text`` on one line, at most _DETAIL_CHARS characters."""
    text = " ".join(text.split())
    return text[:_DETAIL_CHARS] + "…" if len(text) > _DETAIL_CHARS else text


def retry_delay(headers: Mapping[str, str], attempt: int, now: datetime.datetime, jitter: float) -> float:
    """The seconds to wait before sending again: what ``Retry-After`` asks (a number, or an HTTP
    date taken from ``now``), else an exponential backoff scaled by ``jitter``."""
    wait = retry_after(headers, now)
    return wait if wait is not None else min(MAX_BACKOFF, 0.5 * 2**attempt) * jitter


def retry_after(headers: Mapping[str, str], now: datetime.datetime) -> float | None:
    """The seconds a ``Retry-After`` header asks to wait (a number, or an HTTP date after ``now``)."""
    value = headers.get("retry-after", "").strip()
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=datetime.timezone.utc)
    return max(0.0, (when - now).total_seconds())


def _count(value: Any) -> int:
    """A token count from ``usage``, 0 when absent or odd."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def _text_blocks(blocks: list[Any]) -> str:
    """The text of the `{"type": "text", "text": ...}` blocks of a content list, joined."""
    return "".join(
        b["text"]
        for b in blocks
        if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
    )


def _shape_error(url: str, expected: str) -> ProviderError:
    """A ProviderError for a JSON response without the expected fields."""
    return ProviderError(
        f"the provider at {shown(url)} answered with JSON that has no {expected}; "
        "check that the base URL points at a compatible API"
    )


def _non_empty(text: str, url: str) -> str:
    """`text`, or a ProviderError when the model answered with nothing."""
    if not text.strip():
        raise ProviderError(
            f"the model at {shown(url)} answered with no text; try again or choose another model"
        )
    return text


def _checked_base_url(base_url: str) -> str:
    """`base_url` without a trailing slash, or a ProviderError unless it is http(s)."""
    url = base_url.strip().rstrip("/")
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ProviderError(
            f"the base URL {base_url!r} is not an http:// or https:// URL; check ckp.llm.baseUrl"
        )
    return url


def _hidden(secret: str | None) -> str:
    """How a key shows in a repr: whether it is set, never its value."""
    return "'***'" if secret else "None"
