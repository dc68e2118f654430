"""LLM providers against local fake servers and small scripts: wire formats, errors, key hygiene."""

from __future__ import annotations

import json
import socket
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ckp_lsp.core.compile.answer import normalize_answer, parse_answer
from ckp_lsp.core.compile.model import CompileError
from ckp_lsp.core.compile.prompt import Prompt, answer_schema
from ckp_lsp.faces.llm.providers import (
    AnthropicProvider,
    CommandProvider,
    OpenAIProvider,
    Provider,
    ProviderError,
    make_provider,
)
from tests.fake_llm import FakeLLM, Reply, every_time

KEY = "sk-test-0123456789abcdef-SECRET"
PROMPT = Prompt(system="SYSTEM RULES", user="USER DATA")
FLAVOURS = ["openai", "anthropic"]


@pytest.fixture
def fake() -> Iterator[FakeLLM]:
    with FakeLLM(api_key=KEY) as server:
        yield server


def provider_for(flavour: str, server: FakeLLM, api_key: str | None = KEY) -> Provider:
    """A provider of `flavour` pointed at the fake server."""
    if flavour == "openai":
        return OpenAIProvider(base_url=server.openai_base_url, model="m-test", api_key=api_key)
    return AnthropicProvider(base_url=server.anthropic_base_url, model="m-test", api_key=api_key)


def error_of(provider: Provider, timeout: float = 5.0) -> ProviderError:
    """The ProviderError `provider` raises for PROMPT."""
    with pytest.raises(ProviderError) as info:
        provider.complete(PROMPT, timeout)
    return info.value


# --- the HTTP providers, each case for both wire formats ---


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_good_answer_is_returned_and_parses(fake: FakeLLM, flavour: str) -> None:
    text = provider_for(flavour, fake).complete(PROMPT, 5)
    answer = parse_answer(text)
    assert answer.tldr.startswith("JWT access tokens")
    assert answer.similar_high == ["oauth2"]


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_fenced_answer_parses(fake: FakeLLM, flavour: str) -> None:
    fake.script(Reply(text='```json\n{"TLDR": "Fenced.", "ANSWERS_WHEN": ["fence"]}\n```'))
    text = provider_for(flavour, fake).complete(PROMPT, 5)
    assert text.startswith("```json")
    assert parse_answer(text).answers_when == ["fence"]


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_non_json_answer_is_a_compile_error(fake: FakeLLM, flavour: str) -> None:
    fake.script(Reply(text="Sure! Here is a header for your file: it is about JWT."))
    text = provider_for(flavour, fake).complete(PROMPT, 5)
    with pytest.raises(CompileError, match="not a JSON header object"):
        parse_answer(text)


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_unknown_concepts_are_dropped(fake: FakeLLM, flavour: str) -> None:
    fake.script(
        Reply(
            text=json.dumps(
                {
                    "TLDR": "Tokens.",
                    "ANSWERS_WHEN": ["jwt"],
                    "SIMILAR_HIGH": ["oauth2", "made-up"],
                    "SIMILAR_MID": ["imaginary", "http-headers"],
                }
            )
        )
    )
    text = provider_for(flavour, fake).complete(PROMPT, 5)
    answer = normalize_answer(parse_answer(text), {"oauth2", "http-headers"}, "jwt")
    assert answer.similar_high == ["oauth2"]
    assert answer.similar_mid == ["http-headers"]


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_over_cap_lists_are_cut_by_model_order(fake: FakeLLM, flavour: str) -> None:
    known = [f"c{i}" for i in range(12)]
    fake.script(
        Reply(
            text=json.dumps(
                {
                    "TLDR": "Many links.",
                    "ANSWERS_WHEN": [f"k{i}" for i in range(25)],
                    "SIMILAR_HIGH": known[:5],
                    "SIMILAR_MID": known[5:12],
                }
            )
        )
    )
    text = provider_for(flavour, fake).complete(PROMPT, 5)
    answer = normalize_answer(parse_answer(text), known, "self")
    assert answer.similar_high == ["c0", "c1", "c2"]
    assert answer.similar_mid == ["c5", "c6", "c7", "c8", "c9"]
    assert len(answer.answers_when) == 20


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_http_500_names_the_status(fake: FakeLLM, flavour: str) -> None:
    fake.script(*every_time(Reply(status=500, text="upstream exploded")))
    message = str(error_of(provider_for(flavour, fake)))
    assert "the provider failed: HTTP 500" in message
    assert "upstream exploded" in message


@pytest.mark.parametrize("flavour", FLAVOURS)
@pytest.mark.parametrize(
    ("status", "hint"),
    [(404, "check the base URL and the model name"), (429, "retry later"), (400, "rejected")],
)
def test_http_error_statuses_say_what_to_do(fake: FakeLLM, flavour: str, status: int, hint: str) -> None:
    fake.script(*every_time(Reply(status=status, text="nope")))
    message = str(error_of(provider_for(flavour, fake)))
    assert f"HTTP {status}" in message
    assert hint in message


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_wrong_key_says_check_the_key_and_never_shows_it(flavour: str) -> None:
    # The server quotes the key it got, as OpenAI does; the message must still not carry it.
    with FakeLLM(api_key="the-right-key") as server:
        error = error_of(provider_for(flavour, server, api_key=KEY))
    assert "HTTP 401" in str(error)
    assert "check the key" in str(error)
    assert KEY not in str(error)
    assert KEY not in repr(error)


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_delay_longer_than_timeout_is_a_timeout_error(fake: FakeLLM, flavour: str) -> None:
    fake.script(Reply(delay=3.0))
    started = time.monotonic()
    message = str(error_of(provider_for(flavour, fake), timeout=0.5))
    assert time.monotonic() - started < 2.5
    assert "no answer within 0.5 s" in message
    assert "raise ckp.llm.timeout or try again" in message


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_connection_refused_asks_whether_the_server_runs(flavour: str) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    provider: Provider = (
        OpenAIProvider(base_url=url + "/v1", api_key=KEY)
        if flavour == "openai"
        else AnthropicProvider(base_url=url, api_key=KEY)
    )
    message = str(error_of(provider))
    assert "connection refused" in message
    assert f"is the server running at {url}" in message


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_response_that_is_not_json_is_an_error(fake: FakeLLM, flavour: str) -> None:
    fake.script(Reply(raw=b"<html>hello</html>"))
    assert "not JSON" in str(error_of(provider_for(flavour, fake)))


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_response_of_the_wrong_shape_is_an_error(fake: FakeLLM, flavour: str) -> None:
    fake.script(Reply(raw=b'{"unexpected": true}'))
    assert "answered with JSON that has no" in str(error_of(provider_for(flavour, fake)))


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_empty_model_text_is_an_error(fake: FakeLLM, flavour: str) -> None:
    fake.script(Reply(text="   "))
    assert "answered with no text" in str(error_of(provider_for(flavour, fake)))


@pytest.mark.parametrize(
    "reply",
    [
        Reply(status=500, text="boom"),
        Reply(status=404, text="missing"),
        Reply(status=429, text="slow down"),
        Reply(raw=b"not json"),
        Reply(raw=b"{}"),
        Reply(delay=3.0),
    ],
)
@pytest.mark.parametrize("flavour", FLAVOURS)
def test_no_error_message_contains_the_key(fake: FakeLLM, flavour: str, reply: Reply) -> None:
    fake.script(*every_time(reply))
    error = error_of(provider_for(flavour, fake), timeout=0.2)
    assert KEY not in str(error)
    assert KEY not in repr(error)
    assert KEY not in repr(error.__cause__) and KEY not in repr(error.__context__)


def test_error_detail_quoting_the_key_is_blanked(fake: FakeLLM) -> None:
    fake.script(*every_time(Reply(status=500, text=f"failed for key {KEY}")))
    message = str(error_of(provider_for("openai", fake)))
    assert "failed for key ***" in message
    assert KEY not in message


def test_openai_request_shape_and_bearer_header(fake: FakeLLM) -> None:
    provider_for("openai", fake).complete(PROMPT, 5)
    (request,) = fake.received
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.headers["content-type"] == "application/json"
    assert request.body == {
        "model": "m-test",
        "messages": [
            {"role": "system", "content": "SYSTEM RULES"},
            {"role": "user", "content": "USER DATA"},
        ],
        "temperature": 0,
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": "ckp_header", "strict": True, "schema": answer_schema(False)},
        },
    }


def test_openai_without_key_sends_no_authorization_header() -> None:
    with FakeLLM() as server:  # like Ollama or llama.cpp: no key needed
        text = provider_for("openai", server, api_key=None).complete(PROMPT, 5)
        (request,) = server.received
    assert "authorization" not in request.headers
    assert parse_answer(text).confidence == "high"


def test_anthropic_request_shape_and_key_headers(fake: FakeLLM) -> None:
    provider_for("anthropic", fake).complete(PROMPT, 5)
    (request,) = fake.received
    assert request.path == "/v1/messages"
    assert request.headers["x-api-key"] == KEY
    assert request.headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in request.headers
    assert request.body == {
        "model": "m-test",
        "max_tokens": 1024,
        "system": "SYSTEM RULES",
        "messages": [{"role": "user", "content": "USER DATA"}],
        "tools": [
            {
                "name": "ckp_header",
                "description": "Record the compiled CKP header of the file.",
                "input_schema": answer_schema(False),
            }
        ],
        "tool_choice": {"type": "tool", "name": "ckp_header"},
    }


def test_anthropic_base_url_with_v1_is_not_doubled(fake: FakeLLM) -> None:
    AnthropicProvider(base_url=fake.url + "/v1/", api_key=KEY).complete(PROMPT, 5)
    assert [r.path for r in fake.received] == ["/v1/messages"]


def test_anthropic_joins_the_text_blocks(fake: FakeLLM) -> None:
    content = [
        {"type": "text", "text": '{"TLDR": "Joined.", '},
        {"type": "tool_use", "id": "x", "name": "n", "input": {}},
        {"type": "text", "text": '"ANSWERS_WHEN": ["join"]}'},
    ]
    fake.script(Reply(raw=json.dumps({"type": "message", "content": content}).encode()))
    text = provider_for("anthropic", fake).complete(PROMPT, 5)
    assert parse_answer(text).tldr == "Joined."


@pytest.mark.parametrize(
    "provider",
    [
        OpenAIProvider(api_key=KEY),
        AnthropicProvider(api_key=KEY),
        OpenAIProvider(base_url="http://localhost:11434/v1", model="llama3", api_key=KEY),
    ],
)
def test_repr_and_str_hide_the_key(provider: Provider) -> None:
    assert KEY not in repr(provider)
    assert KEY not in str(provider)
    assert "api_key='***'" in repr(provider)


def test_repr_says_when_no_key_is_set() -> None:
    assert "api_key=None" in repr(OpenAIProvider(base_url="http://localhost:8080/v1"))


def test_base_url_must_be_http() -> None:
    with pytest.raises(ProviderError, match="not an http:// or https:// URL"):
        OpenAIProvider(base_url="file:///etc/passwd")


# --- make_provider ---


@pytest.mark.parametrize(
    ("name", "env", "kind", "model", "base_url"),
    [
        pytest.param(
            "openai",
            {"OPENAI_API_KEY": KEY, "CKP_LLM_API_KEY": "other"},
            OpenAIProvider,
            "gpt-4o-mini",
            "https://api.openai.com/v1",
            id="openai-reads-openai-key-first",
        ),
        pytest.param(
            "anthropic",
            {"ANTHROPIC_API_KEY": KEY},
            AnthropicProvider,
            "claude-3-5-haiku-latest",
            "https://api.anthropic.com",
            id="anthropic-reads-its-key",
        ),
        pytest.param(
            "anthropic",
            {"CKP_LLM_API_KEY": KEY},
            AnthropicProvider,
            "claude-3-5-haiku-latest",
            "https://api.anthropic.com",
            id="anthropic-reads-ckp-key",
        ),
    ],
)
def test_make_provider_reads_its_key_and_defaults(
    name: str, env: dict[str, str], kind: type[OpenAIProvider | AnthropicProvider], model: str, base_url: str
) -> None:
    provider = make_provider(name, model=None, base_url=None, command=None, env=env)
    assert isinstance(provider, kind)
    assert provider._api_key == KEY
    assert provider.model == model
    assert provider.base_url == base_url


def test_make_openai_falls_back_to_ckp_key_and_takes_settings() -> None:
    provider = make_provider(
        " OpenAI ",
        model="gpt-x",
        base_url="https://example.test/v1/",
        command=None,
        env={"CKP_LLM_API_KEY": KEY},
    )
    assert isinstance(provider, OpenAIProvider)
    assert provider._api_key == KEY
    assert (provider.model, provider.base_url) == ("gpt-x", "https://example.test/v1")


def test_make_openai_without_key_for_the_official_api_is_an_error() -> None:
    with pytest.raises(ProviderError, match=r"set OPENAI_API_KEY \(or CKP_LLM_API_KEY\)"):
        make_provider("openai", model=None, base_url=None, command=None, env={})


def test_make_openai_without_key_for_a_local_server_is_fine() -> None:
    provider = make_provider(
        "openai", model="llama3", base_url="http://localhost:11434/v1", command=None, env={}
    )
    assert isinstance(provider, OpenAIProvider)
    assert provider._api_key is None


def test_make_anthropic_without_key_is_an_error() -> None:
    with pytest.raises(ProviderError, match=r"set ANTHROPIC_API_KEY \(or CKP_LLM_API_KEY\)"):
        make_provider("anthropic", model=None, base_url=None, command=None, env={"OPENAI_API_KEY": KEY})


def test_make_unknown_provider_lists_the_valid_names() -> None:
    with pytest.raises(ProviderError) as info:
        make_provider("gemini", model=None, base_url=None, command=None, env={})
    message = str(info.value)
    assert "unknown LLM provider 'gemini'" in message
    for name in ("offline", "openai", "anthropic", "command"):
        assert name in message


def test_make_offline_is_not_an_llm_provider() -> None:
    with pytest.raises(ProviderError, match="offline compiler needs no LLM provider"):
        make_provider("offline", model=None, base_url=None, command=None, env={})


def test_make_command_splits_a_string_like_a_shell_would() -> None:
    provider = make_provider("command", model=None, base_url=None, command="llm -m 'my model' --x", env={})
    assert isinstance(provider, CommandProvider)
    assert provider.argv == ["llm", "-m", "my model", "--x"]


def test_make_command_takes_a_list_as_is() -> None:
    provider = make_provider("command", model=None, base_url=None, command=["a b", "c"], env={})
    assert isinstance(provider, CommandProvider)
    assert provider.argv == ["a b", "c"]


@pytest.mark.parametrize("command", [None, "", "   ", []])
def test_make_command_without_a_command_is_an_error(command: str | list[str] | None) -> None:
    with pytest.raises(ProviderError, match=r"set ckp\.llm\.command"):
        make_provider("command", model=None, base_url=None, command=command, env={})


def test_make_command_with_unbalanced_quotes_is_an_error() -> None:
    with pytest.raises(ProviderError, match="check its quotes"):
        make_provider("command", model=None, base_url=None, command="llm 'oops", env={})


# --- the command provider ---


def script(tmp_path: Path, source: str) -> list[str]:
    """argv running `source` as a Python script file."""
    path = tmp_path / "llm.py"
    path.write_text(source, encoding="utf-8")
    return [sys.executable, str(path)]


ECHO_ANSWER = """\
import json, sys
prompt = sys.stdin.read()
print(json.dumps({"TLDR": "Echo.", "ANSWERS_WHEN": ["echo"], "prompt": prompt, "argv": sys.argv[1:]}))
"""


def test_command_gets_the_prompt_on_stdin_and_answers_on_stdout(tmp_path: Path) -> None:
    text = CommandProvider(script(tmp_path, ECHO_ANSWER)).complete(PROMPT, 5)
    data = json.loads(text)
    assert data["prompt"] == "SYSTEM RULES\n\nUSER DATA"
    assert parse_answer(text).answers_when == ["echo"]


def test_command_runs_without_a_shell(tmp_path: Path) -> None:
    argv = [*script(tmp_path, ECHO_ANSWER), "a; echo injected", "$HOME"]
    data = json.loads(CommandProvider(argv).complete(PROMPT, 5))
    assert data["argv"] == ["a; echo injected", "$HOME"]


def test_command_non_zero_exit_reports_status_and_stderr_tail(tmp_path: Path) -> None:
    source = "import sys\nfor i in range(10):\n    print(f'line {i}', file=sys.stderr)\nsys.exit(3)\n"
    message = str(error_of(CommandProvider(script(tmp_path, source))))
    assert "failed with exit status 3" in message
    assert "line 9" in message and "line 5" in message
    assert "line 4" not in message  # only the last lines


def test_command_not_found_says_so(tmp_path: Path) -> None:
    message = str(error_of(CommandProvider([str(tmp_path / "no-such-llm")])))
    assert "was not found" in message
    assert "ckp.llm.command" in message


def test_command_timeout_says_raise_the_timeout(tmp_path: Path) -> None:
    source = "import time\ntime.sleep(5)\n"
    started = time.monotonic()
    message = str(error_of(CommandProvider(script(tmp_path, source)), timeout=0.5))
    assert time.monotonic() - started < 3
    assert "no answer within 0.5 s" in message
    assert "raise ckp.llm.timeout" in message


def test_command_printing_nothing_is_an_error(tmp_path: Path) -> None:
    message = str(error_of(CommandProvider(script(tmp_path, "pass\n"))))
    assert "printed nothing" in message


def test_empty_argv_is_an_error() -> None:
    with pytest.raises(ProviderError, match="command is empty"):
        CommandProvider([])


def test_the_endpoints_remembered_as_text_only_are_bounded_and_the_oldest_forgotten_first() -> None:
    from ckp_lsp.faces.llm.providers import TextOnly

    seen = TextOnly(limit=3)
    for n in range(4):
        seen.add(("openai", f"http://localhost:{n}/v1", "m"))
    assert len(seen) == 3 and ("openai", "http://localhost:0/v1", "m") not in seen
    seen.add(("openai", "http://localhost:1/v1", "m"))  # rejected again: remembered the longest now
    seen.add(("openai", "http://localhost:9/v1", "m"))
    assert ("openai", "http://localhost:1/v1", "m") in seen
    assert ("openai", "http://localhost:2/v1", "m") not in seen
