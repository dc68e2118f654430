"""LLM providers: an OpenAI-compatible chat endpoint, the Anthropic API, or a local command."""

from __future__ import annotations

import contextlib
import datetime
import email.utils
import json
import os
import random
import shlex
import signal
import subprocess
import threading
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from . import transport
from .candidates import DEFAULT_CANDIDATES
from .job import Job, Usage
from .keys import api_keys, blank
from .prompt import SCHEMA_NAME, Prompt, answer_schema
from .transport import MAX_ANSWER_BYTES, ProviderError

__all__ = [
    "AnthropicProvider",
    "CommandProvider",
    "OpenAIProvider",
    "Provider",
    "ProviderError",
    "make_provider",
]

OPENAI_BASE_URL = "https://api.openai.com/v1"
OPENAI_MODEL = "gpt-4o-mini"
ANTHROPIC_BASE_URL = "https://api.anthropic.com"
ANTHROPIC_MODEL = "claude-3-5-haiku-latest"
ANTHROPIC_VERSION = "2023-06-01"
PROVIDER_NAMES = ("offline", "openai", "anthropic", "command")

_STDERR_LINES = 5
_DETAIL_CHARS = 300


class Provider(Protocol):
    """Something that turns a prompt into the model's answer text."""

    name: str
    candidates: int  # how many of the bank's other concepts its prompts list

    def complete(self, prompt: Prompt, job: Job | float) -> str:
        """The model's answer to ``prompt`` by ``job``'s deadline (or within that many seconds),
        or a ProviderError; the usage of its requests is counted on ``job``."""
        ...


def as_job(job: Job | float) -> Job:
    """``job``, or a job with that many seconds."""
    return job if isinstance(job, Job) else Job(float(job))


_RETRIES = 4
_RETRY_STATUSES = {408, 429, 500, 502, 503, 504, 529}
_MAX_BACKOFF = 30.0


class _HttpProvider:
    """A provider behind an HTTP API: its endpoint, its model and a key that is never shown.

    It asks for structured output (a JSON schema) first; a server that rejects that (HTTP 400 or
    422: older Ollama, llama.cpp, vLLM builds) is asked with the text contract from then on.
    """

    default_url = ""
    default_model = ""

    def __init__(
        self, base_url: str | None = None, model: str | None = None, api_key: str | None = None
    ) -> None:
        self.base_url = _checked_base_url(base_url or self.default_url)
        self.model = model or self.default_model
        self._api_key = api_key or None
        self.structured = True  # until the server rejects it, once per run
        self.candidates = DEFAULT_CANDIDATES

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(base_url={self.base_url!r}, model={self.model!r}, "
            f"api_key={_hidden(self._api_key)})"
        )

    def complete(self, prompt: Prompt, job: Job | float) -> str:
        """The model's answer text; every message of a failure has the keys blanked."""
        job = as_job(job)
        try:
            structured = self.structured
            try:
                data = self._call(self._body(prompt, structured), job)
            except _Rejected as rejected:
                if not structured:
                    raise rejected.error from None
                self.structured = False
                data = self._call(self._body(prompt, False), job)
            return self._text(data)
        except ProviderError as exc:
            raise type(exc)(blank(str(exc), [self._api_key, *api_keys()])) from None

    # --- what each API differs in ---

    @property
    def url(self) -> str:
        raise NotImplementedError

    def _headers(self) -> dict[str, str]:
        raise NotImplementedError

    def _body(self, prompt: Prompt, structured: bool) -> dict[str, Any]:
        raise NotImplementedError

    def _text(self, data: Any) -> str:
        raise NotImplementedError

    def _usage(self, data: Any) -> Usage:
        raise NotImplementedError

    # --- one request, retried when the server asks for it ---

    def _call(self, body: dict[str, Any], job: Job) -> Any:
        """The decoded JSON of a successful answer; 429 and 5xx retried within the deadline."""
        payload = json.dumps(body).encode("utf-8")
        url = self.url
        for attempt in range(_RETRIES + 1):
            answer = transport.post(url, self._headers(), payload, job)
            job.count(Usage(requests=1))
            if 200 <= answer.status < 300:
                data = _decoded(answer)
                job.count(self._usage(data))
                return data
            error = _http_error(answer)
            if answer.status in (400, 422) and ("response_format" in body or "tools" in body):
                raise _Rejected(error)
            if answer.status not in _RETRY_STATUSES or attempt == _RETRIES:
                raise error
            wait = _retry_after(answer.headers)
            delay = (
                wait if wait is not None else min(_MAX_BACKOFF, 0.5 * 2**attempt) * random.uniform(0.8, 1.2)
            )
            if delay >= job.remaining():
                raise ProviderError(
                    f"{error} (the provider asked to wait {transport.seconds(round(delay, 1))} s, "
                    f"past the {transport.seconds(job.seconds)} s deadline)"
                )
            if not job.sleep(delay):
                raise transport.Cancelled()
        raise AssertionError("unreachable")  # pragma: no cover


class _Rejected(Exception):
    """A server refused a structured-output request: ask again with the text contract."""

    def __init__(self, error: ProviderError) -> None:
        super().__init__(str(error))
        self.error = error


class OpenAIProvider(_HttpProvider):
    """An OpenAI-compatible chat endpoint: OpenAI, Ollama, llama.cpp, vLLM, LM Studio."""

    name = "openai"
    default_url = OPENAI_BASE_URL
    default_model = OPENAI_MODEL

    @property
    def url(self) -> str:
        return self.base_url + "/chat/completions"

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}

    def _body(self, prompt: Prompt, structured: bool) -> dict[str, Any]:
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

    def _text(self, data: Any) -> str:
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

    def _usage(self, data: Any) -> Usage:
        usage = data.get("usage") if isinstance(data, dict) else None
        if not isinstance(usage, dict):
            return Usage()
        return Usage(_count(usage.get("prompt_tokens")), _count(usage.get("completion_tokens")))


class AnthropicProvider(_HttpProvider):
    """The Anthropic Messages API (structured output through a tool the model must call)."""

    name = "anthropic"
    default_url = ANTHROPIC_BASE_URL
    default_model = ANTHROPIC_MODEL

    @property
    def url(self) -> str:
        # Accept a base URL given with or without its /v1, as both are written in the wild.
        return self.base_url.removesuffix("/v1") + "/v1/messages"

    def _headers(self) -> dict[str, str]:
        headers = {"anthropic-version": ANTHROPIC_VERSION}
        if self._api_key:
            headers["x-api-key"] = self._api_key
        return headers

    def _body(self, prompt: Prompt, structured: bool) -> dict[str, Any]:
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

    def _text(self, data: Any) -> str:
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

    def _usage(self, data: Any) -> Usage:
        usage = data.get("usage") if isinstance(data, dict) else None
        if not isinstance(usage, dict):
            return Usage()
        return Usage(_count(usage.get("input_tokens")), _count(usage.get("output_tokens")))


class CommandProvider:
    """A program run without a shell: the prompt on its stdin, the answer on its stdout."""

    name = "command"

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
        program = self.argv[0]
        try:
            done = _run(self.argv, prompt.as_text(), job)
        except FileNotFoundError:
            raise ProviderError(
                f"the LLM command {program!r} was not found; check ckp.llm.command "
                "(the program must be on PATH or given by its full path)"
            ) from None
        except PermissionError:
            raise ProviderError(
                f"the LLM command {program!r} cannot be run (permission denied); check that it is executable"
            ) from None
        except OSError as exc:
            raise ProviderError(
                f"the LLM command {program!r} could not be started ({exc.strerror or exc}); "
                "check ckp.llm.command"
            ) from None
        job.count(Usage(requests=1))
        if job.cancelled:
            raise transport.Cancelled()
        if done.timed_out:
            raise ProviderError(
                f"the LLM command {program!r} gave no answer within {transport.seconds(job.seconds)} s; "
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


@dataclass
class _Ran:
    returncode: int
    stdout: bytes
    stderr: bytes
    timed_out: bool = False
    too_big: bool = False


_RUNNING: set[subprocess.Popen[bytes]] = set()
_RUNNING_LOCK = threading.Lock()
_STDERR_KEPT = 64 * 1024


def _run(argv: list[str], stdin: str, job: Job) -> _Ran:
    """Run ``argv`` (no shell) in its own process group: stdout read up to the cap, the stderr's
    end kept, and the whole group killed at the deadline, on cancel or at shutdown."""
    process = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=os.name == "posix",  # its children die with it
    )
    ran = _Ran(0, b"", b"")
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
        if key is None and _host(url) == _host(OPENAI_BASE_URL):
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
        return CommandProvider(argv)
    valid = ", ".join(PROVIDER_NAMES)
    if kind == "offline":
        raise ProviderError(
            f"the offline compiler needs no LLM provider; compile offline, or choose an LLM provider: {valid}"
        )
    raise ProviderError(f"unknown LLM provider {name!r}; choose one of: {valid}")


def _decoded(answer: transport.HttpAnswer) -> Any:
    """The JSON of a successful answer, or a ProviderError."""
    try:
        return json.loads(answer.body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise ProviderError(
            f"the provider at {transport.shown(answer.url)} answered with something that is not JSON; "
            "check the base URL (it must point at the API, e.g. ending in /v1)"
        ) from None


def _http_error(answer: transport.HttpAnswer) -> ProviderError:
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
            f"the provider has nothing at {transport.shown(answer.url)} (HTTP 404{detail}); "
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


def _retry_after(headers: Mapping[str, str]) -> float | None:
    """The seconds a ``Retry-After`` header asks to wait (a number or an HTTP date), if any."""
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
    return max(0.0, (when - datetime.datetime.now(datetime.timezone.utc)).total_seconds())


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
        f"the provider at {transport.shown(url)} answered with JSON that has no {expected}; "
        "check that the base URL points at a compatible API"
    )


def _non_empty(text: str, url: str) -> str:
    """`text`, or a ProviderError when the model answered with nothing."""
    if not text.strip():
        raise ProviderError(
            f"the model at {transport.shown(url)} answered with no text; try again or choose another model"
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


def _host(url: str) -> str:
    """The host name of `url`, lower-case."""
    return (urllib.parse.urlsplit(url).hostname or "").lower()


def _hidden(secret: str | None) -> str:
    """How a key shows in a repr: whether it is set, never its value."""
    return "'***'" if secret else "None"


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
