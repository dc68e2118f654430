"""A local fake LLM server speaking the OpenAI chat completions and Anthropic messages wire formats."""

from __future__ import annotations

import json
import threading
from collections import deque
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

GOOD_ANSWER = json.dumps(
    {
        "TLDR": "JWT access tokens: how they are signed, validated and refreshed.",
        "ANSWERS_WHEN": ["jwt", "access token", "token refresh"],
        "SIMILAR_HIGH": ["oauth2"],
        "SIMILAR_MID": ["http-headers"],
        "CONFIDENCE": "high",
    }
)


@dataclass(frozen=True)
class Reply:
    """One scripted reply: the model's text in the provider's format, or a raw status and body."""

    text: str = GOOD_ANSWER
    status: int = 200
    raw: bytes | None = None  # sent as is instead of a wrapped `text` (or a provider error)
    delay: float = 0.0  # seconds to wait before answering
    headers: tuple[tuple[str, str], ...] = ()  # extra response headers (Retry-After, Location)
    dribble: float = 0.0  # send the body one byte every this many seconds
    size: int = 0  # send a body of this many bytes (counted in `sent`), never holding it whole


def every_time(reply: Reply, times: int = 8) -> list[Reply]:
    """`reply` for a request and for each retry of it, sent with `Retry-After: 0` so that the
    client retries at once."""
    return [replace(reply, headers=(*reply.headers, ("Retry-After", "0")))] * times


@dataclass
class Received:
    """A request the server got: its path, headers (lower-case names) and decoded JSON body."""

    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class _State:
    replies: deque[Reply] = field(default_factory=deque)
    received: list[Received] = field(default_factory=list)
    api_key: str | None = None
    structured: bool = True  # whether response_format / tools are understood (else HTTP 400)
    lock: threading.Lock = field(default_factory=threading.Lock)
    release: threading.Event = field(default_factory=threading.Event)
    in_flight: int = 0
    most_in_flight: int = 0
    sent: int = 0  # body bytes sent for `size` replies


class FakeLLM:
    """A ThreadingHTTPServer on 127.0.0.1 (port 0) answering from a script, recording requests.

    `api_key`, when set, makes requests without that key fail with 401 the way OpenAI does:
    quoting the key that was sent in the error message.
    """

    def __init__(self, api_key: str | None = None, *, structured: bool = True) -> None:
        self._state = _State(api_key=api_key, structured=structured)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self._state))
        self._server.daemon_threads = True
        # A short poll keeps stop() quick; the default 0.5 s would dominate a fast suite.
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        """The server's root, `http://127.0.0.1:PORT`."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def openai_base_url(self) -> str:
        """The base URL an OpenAI-compatible client is given (ends in /v1)."""
        return self.url + "/v1"

    @property
    def anthropic_base_url(self) -> str:
        """The base URL an Anthropic client is given."""
        return self.url

    @property
    def received(self) -> list[Received]:
        """The requests received so far, oldest first."""
        with self._state.lock:
            return list(self._state.received)

    @property
    def most_in_flight(self) -> int:
        """The most requests that were being answered at the same time."""
        with self._state.lock:
            return self._state.most_in_flight

    @property
    def sent(self) -> int:
        """Bytes of the large bodies (`Reply.size`) sent so far."""
        with self._state.lock:
            return self._state.sent

    def script(self, *replies: Reply) -> None:
        """Queue replies, answered in order; once used up, every request gets a good answer."""
        with self._state.lock:
            self._state.replies.extend(replies)

    def start(self) -> FakeLLM:
        """Start serving in a background thread."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Release delayed replies, stop serving and close the socket."""
        self._state.release.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> FakeLLM:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _handler_for(state: _State) -> type[BaseHTTPRequestHandler]:
    """A request handler class bound to `state`."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            """Keep test output quiet."""

        def do_POST(self) -> None:
            with state.lock:
                state.in_flight += 1
                state.most_in_flight = max(state.most_in_flight, state.in_flight)
            try:
                self._answer()
            finally:
                with state.lock:
                    state.in_flight -= 1

        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw_body = self.rfile.read(length)
            try:
                body: Any = json.loads(raw_body)
            except ValueError:
                body = raw_body.decode("utf-8", errors="replace")
            headers = {k.lower(): v for k, v in self.headers.items()}
            with state.lock:
                state.received.append(Received(self.path, headers, body))
                reply = state.replies.popleft() if state.replies else Reply()
            if reply.delay and state.release.wait(reply.delay):
                return  # the server is stopping; the client has long given up
            flavour = _flavour(self.path)
            if flavour is None:
                self._send(404, _error_body("openai", f"no route {self.path}", "not_found"))
                return
            sent_key = _sent_key(flavour, headers)
            if state.api_key is not None and sent_key != state.api_key:
                message = f"Incorrect API key provided: {sent_key}"
                self._send(401, _error_body(flavour, message, "authentication_error"))
                return
            structured = isinstance(body, dict) and ("response_format" in body or "tools" in body)
            if structured and not state.structured:
                message = (
                    "response_format is not supported" if flavour == "openai" else "tools: unknown field"
                )
                self._send(400, _error_body(flavour, message, "invalid_request_error"))
                return
            if reply.size:
                self._send_large(reply.size)
            elif reply.raw is not None:
                self._send(reply.status, reply.raw, reply.headers, reply.dribble)
            elif reply.status != 200:
                self._send(reply.status, _error_body(flavour, reply.text, "api_error"), reply.headers)
            else:
                model = body.get("model", "") if isinstance(body, dict) else ""
                prompt = json.dumps(body.get("messages", "")) + str(body.get("system", ""))
                usage = (len(prompt) // 4, len(reply.text) // 4)
                tool = flavour == "anthropic" and structured
                payload = _success_body(flavour, model, reply.text, usage, tool)
                self._send(200, payload, reply.headers, reply.dribble)

        def _send_large(self, size: int) -> None:
            try:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(size))
                self.end_headers()
                chunk = b" " * 65536
                left = size
                while left > 0 and not state.release.is_set():
                    piece = chunk[: min(left, len(chunk))]
                    self.wfile.write(piece)
                    left -= len(piece)
                    with state.lock:
                        state.sent += len(piece)
            except OSError:
                pass  # the client stopped reading

        def _send(
            self,
            status: int,
            payload: bytes,
            headers: tuple[tuple[str, str], ...] = (),
            dribble: float = 0.0,
        ) -> None:
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                for name, value in headers:
                    self.send_header(name, value)
                self.end_headers()
                if not dribble:
                    self.wfile.write(payload)
                    return
                for i in range(len(payload)):
                    if state.release.wait(dribble):
                        return
                    self.wfile.write(payload[i : i + 1])
                    self.wfile.flush()
            except OSError:
                pass  # the client timed out and went away

    return Handler


def _flavour(path: str) -> str | None:
    """Which API a path belongs to."""
    if path.endswith("/chat/completions"):
        return "openai"
    if path == "/v1/messages":
        return "anthropic"
    return None


def _sent_key(flavour: str, headers: dict[str, str]) -> str:
    """The API key a request carried, in its provider's header."""
    if flavour == "anthropic":
        return headers.get("x-api-key", "")
    return headers.get("authorization", "").removeprefix("Bearer ")


def _success_body(flavour: str, model: str, text: str, usage: tuple[int, int], tool: bool) -> bytes:
    """A successful completion carrying `text`, in the provider's wire format (as a tool call when
    the Anthropic request asked for one and `text` is a JSON object)."""
    if flavour == "anthropic":
        content: list[dict[str, Any]] = [{"type": "text", "text": text}]
        if tool:
            try:
                called = json.loads(text)
            except ValueError:
                called = None
            if isinstance(called, dict):
                content = [{"type": "tool_use", "id": "toolu_fake", "name": "ckp_header", "input": called}]
        return json.dumps(
            {
                "id": "msg_fake",
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": content,
                "stop_reason": "tool_use" if tool else "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": usage[0], "output_tokens": usage[1]},
            }
        ).encode("utf-8")
    data: dict[str, Any] = {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {
            "prompt_tokens": usage[0],
            "completion_tokens": usage[1],
            "total_tokens": usage[0] + usage[1],
        },
    }
    return json.dumps(data).encode("utf-8")


def _error_body(flavour: str, message: str, kind: str) -> bytes:
    """An error response in the provider's wire format."""
    if flavour == "anthropic":
        data: dict[str, Any] = {"type": "error", "error": {"type": kind, "message": message}}
    else:
        data = {"error": {"message": message, "type": kind, "param": None, "code": None}}
    return json.dumps(data).encode("utf-8")
