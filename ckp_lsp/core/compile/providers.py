"""LLM providers: an OpenAI-compatible chat endpoint, the Anthropic API, or a local command."""

from __future__ import annotations

import contextlib
import http.client
import json
import shlex
import socket
import subprocess
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from typing import Any, Protocol

from ckp_lsp.core.compile.model import CompileError
from ckp_lsp.core.compile.prompt import Prompt

OPENAI_BASE_URL = "https://api.openai.com/v1"
OPENAI_MODEL = "gpt-4o-mini"
ANTHROPIC_BASE_URL = "https://api.anthropic.com"
ANTHROPIC_MODEL = "claude-3-5-haiku-latest"
ANTHROPIC_VERSION = "2023-06-01"
PROVIDER_NAMES = ("offline", "openai", "anthropic", "command")

_USER_AGENT = "ckp-lsp"
_STDERR_LINES = 5
_DETAIL_CHARS = 300
_LOOPBACK_HOSTS = {"localhost", "127.0.0.1", "::1"}


class ProviderError(CompileError):
    """An LLM provider failed: the message says what went wrong and what to do."""


class Provider(Protocol):
    """Something that turns a prompt into the model's answer text."""

    name: str

    def complete(self, prompt: Prompt, *, timeout: float) -> str:
        """The model's answer to `prompt`, within `timeout` seconds, or a ProviderError."""
        ...


class _HttpProvider:
    """A provider behind an HTTP API: its endpoint, its model and a key that is never shown."""

    default_url = ""
    default_model = ""

    def __init__(
        self, base_url: str | None = None, model: str | None = None, api_key: str | None = None
    ) -> None:
        self.base_url = _checked_base_url(base_url or self.default_url)
        self.model = model or self.default_model
        self._api_key = api_key or None

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(base_url={self.base_url!r}, model={self.model!r}, "
            f"api_key={_hidden(self._api_key)})"
        )


class OpenAIProvider(_HttpProvider):
    """An OpenAI-compatible chat endpoint: OpenAI, Ollama, llama.cpp, vLLM, LM Studio."""

    name = "openai"
    default_url = OPENAI_BASE_URL
    default_model = OPENAI_MODEL

    def complete(self, prompt: Prompt, *, timeout: float) -> str:
        """The message content of the first choice of a chat completion."""
        headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
        body = {
            "model": self.model,
            "messages": [
                {"role": "system", "content": prompt.system},
                {"role": "user", "content": prompt.user},
            ],
            "temperature": 0,
        }
        url = self.base_url + "/chat/completions"
        data = _post_json(url, headers, body, timeout=timeout, secret=self._api_key)
        try:
            content = data["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise _shape_error(url, "choices[0].message.content") from None
        if isinstance(content, list):  # some compatible servers answer with content parts
            content = _text_blocks(content)
        if not isinstance(content, str):
            raise _shape_error(url, "choices[0].message.content")
        return _non_empty(content, url)


class AnthropicProvider(_HttpProvider):
    """The Anthropic Messages API."""

    name = "anthropic"
    default_url = ANTHROPIC_BASE_URL
    default_model = ANTHROPIC_MODEL

    def complete(self, prompt: Prompt, *, timeout: float) -> str:
        """The text blocks of a message's content, joined."""
        headers = {"anthropic-version": ANTHROPIC_VERSION}
        if self._api_key:
            headers["x-api-key"] = self._api_key
        body = {
            "model": self.model,
            "max_tokens": 1024,
            "system": prompt.system,
            "messages": [{"role": "user", "content": prompt.user}],
        }
        # Accept a base URL given with or without its /v1, as both are written in the wild.
        root = self.base_url.removesuffix("/v1")
        url = root + "/v1/messages"
        data = _post_json(url, headers, body, timeout=timeout, secret=self._api_key)
        blocks = data.get("content") if isinstance(data, dict) else None
        if not isinstance(blocks, list):
            raise _shape_error(url, "content[].text")
        return _non_empty(_text_blocks(blocks), url)


class CommandProvider:
    """A program run without a shell: the prompt on its stdin, the answer on its stdout."""

    name = "command"

    def __init__(self, argv: list[str]) -> None:
        if not argv or not argv[0]:
            raise ProviderError("the LLM command is empty; set ckp.llm.command to a program")
        self.argv = list(argv)

    def __repr__(self) -> str:
        return f"CommandProvider(argv={self.argv!r})"

    def complete(self, prompt: Prompt, *, timeout: float) -> str:
        """What the command prints for the prompt (system, blank line, user) on its stdin."""
        program = self.argv[0]
        try:
            done = _run(self.argv, prompt.as_text(), timeout)
        except FileNotFoundError:
            raise ProviderError(
                f"the LLM command {program!r} was not found; check ckp.llm.command "
                "(the program must be on PATH or given by its full path)"
            ) from None
        except PermissionError:
            raise ProviderError(
                f"the LLM command {program!r} cannot be run (permission denied); check that it is executable"
            ) from None
        except subprocess.TimeoutExpired as exc:
            raise ProviderError(
                f"the LLM command {program!r} gave no answer within {_seconds(timeout)} s; "
                f"raise ckp.llm.timeout or try again{_stderr_tail(exc.stderr)}"
            ) from None
        except OSError as exc:
            raise ProviderError(
                f"the LLM command {program!r} could not be started ({exc.strerror or exc}); "
                "check ckp.llm.command"
            ) from None
        if done.returncode != 0:
            raise ProviderError(
                f"the LLM command {program!r} failed with exit status {done.returncode}"
                f"{_stderr_tail(done.stderr)}; check the command and its setup"
            )
        if not done.stdout.strip():
            raise ProviderError(
                f"the LLM command {program!r} printed nothing; it must print the answer on stdout"
                f"{_stderr_tail(done.stderr)}"
            )
        return done.stdout


_RUNNING: set[subprocess.Popen[str]] = set()
_RUNNING_LOCK = threading.Lock()


def _run(argv: list[str], stdin: str, timeout: float) -> subprocess.CompletedProcess[str]:
    """``subprocess.run`` (no shell), with the process known to ``stop_commands`` while it runs."""
    with subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        errors="replace",
    ) as process:
        with _RUNNING_LOCK:
            _RUNNING.add(process)
        try:
            out, err = process.communicate(stdin, timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            out, err = process.communicate()
            raise subprocess.TimeoutExpired(argv, timeout, output=out, stderr=err) from None
        except BaseException:
            process.kill()
            raise
        finally:
            with _RUNNING_LOCK:
                _RUNNING.discard(process)
    return subprocess.CompletedProcess(argv, process.returncode, out, err)


def stop_commands() -> None:
    """Kill the LLM commands still running: the language server is shutting down."""
    with _RUNNING_LOCK:
        running = list(_RUNNING)
    for process in running:
        with contextlib.suppress(OSError):
            process.kill()


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


def _post_json(url: str, headers: Mapping[str, str], body: Any, *, timeout: float, secret: str | None) -> Any:
    """POST `body` as JSON and the decoded JSON response, every failure a ProviderError."""
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode("utf-8"),
        method="POST",
        headers={
            "Content-Type": "application/json",
            "Accept": "application/json",
            "User-Agent": _USER_AGENT,
            **headers,
        },
    )
    # A local server (Ollama, llama.cpp) is never reached through a proxy set for the internet.
    handlers = [urllib.request.ProxyHandler({})] if _host(url) in _LOOPBACK_HOSTS else []
    opener = urllib.request.build_opener(*handlers)
    try:
        with opener.open(request, timeout=timeout) as response:
            raw = response.read()
    except urllib.error.HTTPError as exc:
        with exc:
            raise _http_error(exc, url, secret) from None
    except urllib.error.URLError as exc:
        raise _connection_error(exc.reason, url, timeout) from None
    except OSError as exc:  # a timeout while reading, a reset connection
        raise _connection_error(exc, url, timeout) from None
    except http.client.HTTPException:
        raise ProviderError(
            f"the connection to {_shown(url)} broke before the answer was complete; try again"
        ) from None
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise ProviderError(
            f"the provider at {_shown(url)} answered with something that is not JSON; "
            "check the base URL (it must point at the API, e.g. ending in /v1)"
        ) from None


def _http_error(exc: urllib.error.HTTPError, url: str, secret: str | None) -> ProviderError:
    """A ProviderError for an HTTP error status, with what to do about it."""
    code = exc.code
    if code in (401, 403):
        # The provider's explanation may quote (part of) the key, so none of it is shown.
        return ProviderError(
            f"the provider refused the API key (HTTP {code}); check the key in the environment "
            "(OPENAI_API_KEY, ANTHROPIC_API_KEY or CKP_LLM_API_KEY) and its permissions"
        )
    detail = _error_detail(exc, secret)
    if code == 404:
        return ProviderError(
            f"the provider has nothing at {_shown(url)} (HTTP 404{detail}); "
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


def _error_detail(exc: urllib.error.HTTPError, secret: str | None) -> str:
    """The provider's own error message, short and with the key blanked, as `: message`."""
    try:
        raw = exc.read().decode("utf-8", errors="replace")
    except (OSError, ValueError):
        return ""
    text = raw
    try:
        data = json.loads(raw)
    except ValueError:
        data = None
    if isinstance(data, dict):
        err = data.get("error", data)
        message = err.get("message") if isinstance(err, dict) else err
        if isinstance(message, str):
            text = message
    text = " ".join(text.split())
    if secret:
        text = text.replace(secret, "***")
    if len(text) > _DETAIL_CHARS:
        text = text[:_DETAIL_CHARS] + "…"
    return f": {text}" if text else ""


def _connection_error(reason: object, url: str, timeout: float) -> ProviderError:
    """A ProviderError for a request that got no HTTP answer at all."""
    if isinstance(reason, TimeoutError):
        return _timeout_error(url, timeout)
    if isinstance(reason, ConnectionRefusedError):
        return ProviderError(
            f"could not connect to {_shown(url)} (connection refused); "
            f"is the server running at {_shown(url)}? Check the base URL"
        )
    if isinstance(reason, socket.gaierror):
        return ProviderError(
            f"could not resolve the host of {_shown(url)}; check the base URL and the network"
        )
    why = getattr(reason, "strerror", None) or str(reason) or type(reason).__name__
    return ProviderError(f"could not reach {_shown(url)} ({why}); check the base URL and the network")


def _timeout_error(url: str, timeout: float) -> ProviderError:
    """A ProviderError for a provider that did not answer in time."""
    return ProviderError(
        f"the provider at {_shown(url)} gave no answer within {_seconds(timeout)} s; "
        "raise ckp.llm.timeout or try again"
    )


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
        f"the provider at {_shown(url)} answered with JSON that has no {expected}; "
        "check that the base URL points at a compatible API"
    )


def _non_empty(text: str, url: str) -> str:
    """`text`, or a ProviderError when the model answered with nothing."""
    if not text.strip():
        raise ProviderError(
            f"the model at {_shown(url)} answered with no text; try again or choose another model"
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


def _shown(url: str) -> str:
    """`url` as messages show it: no user info, query or fragment (they may hold secrets)."""
    parts = urllib.parse.urlsplit(url)
    return f"{parts.scheme}://{parts.netloc.rsplit('@', 1)[-1]}{parts.path}"


def _hidden(secret: str | None) -> str:
    """How a key shows in a repr: whether it is set, never its value."""
    return "'***'" if secret else "None"


def _seconds(timeout: float) -> str:
    """A timeout as people write it: `30`, `0.5`."""
    return f"{timeout:g}"


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
