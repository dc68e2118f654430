"""Providers within limits: a deadline for the whole answer, a capped read, no key across a redirect,
keys blanked whole or in part, cancelling kills the command, and answers with bad characters refused."""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

import pytest

from ckp_lsp.core.compile.answer import parse_answer
from ckp_lsp.core.compile.job import Job
from ckp_lsp.core.compile.keys import blank
from ckp_lsp.core.compile.model import CompileError
from ckp_lsp.core.compile.prompt import Prompt
from ckp_lsp.core.compile.wire import Cancelled, ProviderError, origin
from ckp_lsp.faces.llm.providers import AnthropicProvider, CommandProvider, OpenAIProvider, Provider
from tests.fake_llm import FakeLLM, Reply

KEY = "sk-limits-9f8e7d6c5b4a3210-SECRET"
PROMPT = Prompt(system="SYSTEM RULES", user="USER DATA")
FLAVOURS = ["openai", "anthropic"]


def provider_for(flavour: str, server: FakeLLM) -> Provider:
    if flavour == "openai":
        return OpenAIProvider(base_url=server.openai_base_url, model="m", api_key=KEY)
    return AnthropicProvider(base_url=server.anthropic_base_url, model="m", api_key=KEY)


def script(tmp_path: Path, source: str) -> list[str]:
    path = tmp_path / "llm.py"
    path.write_text(source, encoding="utf-8")
    return [sys.executable, str(path)]


# --- the deadline is for the whole answer ---


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_an_endpoint_dribbling_bytes_is_stopped_at_the_deadline(flavour: str) -> None:
    with FakeLLM() as fake:
        fake.script(Reply(dribble=0.5))  # one byte every half second: never idle long enough
        started = time.monotonic()
        with pytest.raises(ProviderError, match=r"no answer within 2 s"):
            provider_for(flavour, fake).complete(PROMPT, 2)
        elapsed = time.monotonic() - started
    assert elapsed < 4, elapsed


def test_the_deadline_covers_the_retries(tmp_path: Path) -> None:
    with FakeLLM() as fake:
        fake.script(*[Reply(status=503, headers=(("Retry-After", "1"),))] * 10)
        started = time.monotonic()
        with pytest.raises(ProviderError, match=r"HTTP 503"):
            provider_for("openai", fake).complete(PROMPT, 2.5)
        assert time.monotonic() - started < 4
        assert 2 <= len(fake.received) <= 3  # it did retry, and stopped before the deadline


# --- a capped read ---


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_a_huge_http_answer_is_refused_without_reading_it_whole(flavour: str) -> None:
    with FakeLLM() as fake:
        fake.script(Reply(size=200 * 1024 * 1024))
        with pytest.raises(ProviderError, match=r"more than 4 MiB"):
            provider_for(flavour, fake).complete(PROMPT, 20)
        time.sleep(0.2)
        assert fake.sent < 32 * 1024 * 1024  # the rest was never sent: the client hung up


def test_a_huge_command_answer_is_refused_and_the_command_stopped(tmp_path: Path) -> None:
    source = "import sys\nwhile True:\n    sys.stdout.write('x' * 65536)\n"
    started = time.monotonic()
    with pytest.raises(ProviderError, match=r"printed more than 4 MiB"):
        CommandProvider(script(tmp_path, source)).complete(PROMPT, 30)
    assert time.monotonic() - started < 10


# --- no key across a redirect ---


@pytest.mark.parametrize("status", [301, 302, 307, 308])
def test_a_redirect_to_another_origin_gets_neither_the_key_nor_trust(status: int) -> None:
    with FakeLLM() as there, FakeLLM() as here:
        target = there.openai_base_url + "/chat/completions"
        here.script(Reply(status=status, raw=b"{}", headers=(("Location", target),)))
        with pytest.raises(ProviderError) as info:
            provider_for("openai", here).complete(PROMPT, 5)
        assert there.received == []  # neither the request nor the key went there
    message = str(info.value)
    assert "redirected to" in message and "not sent on to another address" in message
    assert KEY not in message


def test_a_307_to_the_same_origin_is_followed_with_the_key() -> None:
    with FakeLLM(api_key=KEY) as fake:
        fake.script(Reply(status=307, raw=b"", headers=(("Location", "/v1/chat/completions"),)))
        text = OpenAIProvider(base_url=fake.url + "/old/v1", api_key=KEY).complete(PROMPT, 5)
        assert parse_answer(text).similar_high == ["oauth2"]
        assert [r.path for r in fake.received] == ["/old/v1/chat/completions", "/v1/chat/completions"]


def test_an_origin_is_scheme_host_and_port() -> None:
    assert origin("https://api.example.com/v1") == ("https", "api.example.com", 443)
    assert origin("https://api.example.com/v1") != origin("http://api.example.com/v1")  # https -> http
    assert origin("http://localhost:11434/v1") != origin("http://localhost:8080/v1")


# --- keys blanked whole or in part ---


@pytest.mark.parametrize(
    "shown",
    [
        f"invalid key {KEY}",
        "invalid key sk-limits-9f8e",  # a prefix
        "the key ends in 3210-SECRET",  # a suffix
        "key: sk-limits- 9f8e7d 6c5b4a",  # split by spaces
        "key:\n9f8e7d6c\n5b4a3210",  # split by newlines
    ],
)
def test_a_key_and_any_long_part_of_it_are_blanked(shown: str) -> None:
    out = blank(shown, [KEY])
    assert "***" in out
    compact = "".join(out.split())
    for i in range(len(KEY) - 5):
        assert KEY[i : i + 6] not in compact, out


def test_blanking_leaves_other_text_alone() -> None:
    assert blank("HTTP 500: upstream exploded", [KEY]) == "HTTP 500: upstream exploded"
    assert blank("short", ["abc"]) == "short"
    assert blank("asked for k", ["k"]) == "asked for ***"  # a short key: only as a whole word


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_a_provider_error_quoting_part_of_the_key_is_blanked(flavour: str) -> None:
    with FakeLLM() as fake:
        fake.script(Reply(status=400, text=f"bad key prefix {KEY[:12]} and {KEY[12:20]} {KEY[20:]}"))
        fake.script(Reply(status=400, text=f"bad key prefix {KEY[:12]}"))  # the fallback's answer
        with pytest.raises(ProviderError) as info:
            provider_for(flavour, fake).complete(PROMPT, 5)
    assert KEY[:8] not in str(info.value) and KEY[12:20] not in str(info.value)


def test_the_command_providers_stderr_is_blanked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    source = (
        "import os, sys\nk = os.environ['OPENAI_API_KEY']\n"
        "print('using', k, 'or', k[:10], k[10:], file=sys.stderr)\nsys.exit(2)\n"
    )
    with pytest.raises(ProviderError) as info:
        CommandProvider(script(tmp_path, source)).complete(PROMPT, 10)
    message = str(info.value)
    assert "exit status 2" in message and "***" in message
    assert KEY not in message and KEY[:10] not in message and KEY[10:20] not in message


# --- cancelling kills the command ---


def test_cancelling_a_job_kills_the_command_and_its_children(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    source = (
        "import os, subprocess, sys, time\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        f"open({str(pids)!r}, 'w').write(f'{{os.getpid()}} {{child.pid}}')\n"
        "time.sleep(60)\n"
    )
    job = Job(60)
    errors: list[BaseException] = []

    def run() -> None:
        try:
            CommandProvider(script(tmp_path, source)).complete(PROMPT, job)
        except BaseException as exc:
            errors.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    deadline = time.monotonic() + 20
    while not (pids.exists() and pids.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    started = time.monotonic()
    job.cancel()
    thread.join(10)
    assert not thread.is_alive() and time.monotonic() - started < 5
    assert isinstance(errors[0], Cancelled)
    for pid in map(int, pids.read_text().split()):
        assert _gone(pid), pid


def _gone(pid: int) -> bool:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        try:  # a zombie child of this test process counts as gone
            if os.waitpid(pid, os.WNOHANG)[0] == pid:
                return True
        except ChildProcessError:
            pass
        time.sleep(0.05)
    return False


# --- answers with characters a header cannot hold ---


@pytest.mark.parametrize(
    ("answer", "what"),
    [
        ('{"TLDR": "Tokens \\ud800.", "ANSWERS_WHEN": ["jwt"]}', "a lone surrogate (U+D800)"),
        ('{"TLDR": "Tokens.", "ANSWERS_WHEN": ["jwt\\u0000"]}', "a control character (U+0000)"),
        ('{"TLDR": "\\u001b[31mRed.", "ANSWERS_WHEN": ["jwt"]}', "a control character (U+001B)"),
        ('{"TLDR": "Tokens.", "ANSWERS_WHEN": ["jwt"], "SIMILAR_HIGH": ["a\\u009bb"]}', "(U+009B)"),
    ],
)
def test_an_answer_with_a_control_character_or_lone_surrogate_is_refused(answer: str, what: str) -> None:
    with pytest.raises(CompileError, match=r"nothing was changed") as info:
        parse_answer(answer)
    assert what in str(info.value)


# --- through the environment's proxy ---


def test_a_remote_endpoint_is_reached_through_the_environments_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    """http.client replaced urllib: HTTP(S)_PROXY must still be honoured (a local server never is)."""
    import http.client
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    seen: list[str] = []
    with FakeLLM(api_key=KEY) as fake:
        host, port = fake.url.removeprefix("http://").split(":")

        class Proxy(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                seen.append(self.path)  # a proxy gets the whole URL
                body = self.rfile.read(int(self.headers["Content-Length"]))
                upstream = http.client.HTTPConnection(host, int(port), timeout=5)
                path = "/" + self.path.split("/", 3)[3]
                upstream.request("POST", path, body, dict(self.headers))
                answer = upstream.getresponse()
                data = answer.read()
                self.send_response(answer.status)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        proxy = ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
        thread = threading.Thread(target=proxy.serve_forever, daemon=True)
        thread.start()
        try:
            monkeypatch.setenv("http_proxy", f"http://127.0.0.1:{proxy.server_address[1]}")
            monkeypatch.delenv("no_proxy", raising=False)
            monkeypatch.delenv("NO_PROXY", raising=False)
            provider = OpenAIProvider(base_url="http://llm.example/v1", model="m", api_key=KEY)
            text = provider.complete(PROMPT, 5)
        finally:
            proxy.shutdown()
            proxy.server_close()
    assert seen == ["http://llm.example/v1/chat/completions"]
    assert parse_answer(text).similar_high == ["oauth2"]
