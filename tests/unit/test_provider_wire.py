"""The LLM providers' wire formats in the core, with no network, process or clock: the request each
API is sent, what its answer and the ``command`` provider's run mean, and the waits a server asks
for, from the time the face gives (the sending itself is ``test_providers.py``, over real HTTP)."""

from __future__ import annotations

import datetime
import json

import pytest

from ckp_lsp.core.compile.command import Ran, command_answer, command_argv
from ckp_lsp.core.compile.job import Job
from ckp_lsp.core.compile.prompt import SCHEMA_NAME, Prompt
from ckp_lsp.core.compile.providers import (
    MAX_BACKOFF,
    AnthropicApi,
    OpenAIApi,
    http_error,
    retry_after,
    retry_delay,
)
from ckp_lsp.core.compile.wire import HttpAnswer, ProviderError

KEY = "sk-test-0123456789abcdef-SECRET"
PROMPT = Prompt(system="SYSTEM RULES", user="USER DATA")
NOW = datetime.datetime(2025, 6, 2, 12, 0, 0, tzinfo=datetime.timezone.utc)


def test_the_openai_request_carries_the_key_the_prompt_and_the_schema() -> None:
    request = OpenAIApi(base_url="http://localhost:11434/v1/", model="llama3", api_key=KEY).request(
        PROMPT, True
    )
    assert request.url == "http://localhost:11434/v1/chat/completions"
    assert request.headers == {"Authorization": f"Bearer {KEY}"}
    body = json.loads(request.payload)
    assert body["model"] == "llama3" and body["temperature"] == 0
    assert body["messages"] == [
        {"role": "system", "content": "SYSTEM RULES"},
        {"role": "user", "content": "USER DATA"},
    ]
    assert body["response_format"]["json_schema"]["name"] == SCHEMA_NAME
    assert "response_format" not in json.loads(OpenAIApi(api_key=KEY).request(PROMPT, False).payload)


def test_the_anthropic_request_asks_for_the_tool_and_sends_no_key_when_none_is_set() -> None:
    request = AnthropicApi(base_url="https://api.anthropic.com/v1").request(PROMPT, True)
    assert request.url == "https://api.anthropic.com/v1/messages"
    assert request.headers == {"anthropic-version": "2023-06-01"}
    body = json.loads(request.payload)
    assert body["system"] == "SYSTEM RULES" and body["tool_choice"] == {"type": "tool", "name": SCHEMA_NAME}
    text_only = json.loads(AnthropicApi(api_key=KEY).request(PROMPT, False).payload)
    assert "tools" not in text_only and "tool_choice" not in text_only


def test_an_answer_is_read_into_text_and_usage() -> None:
    api = OpenAIApi(api_key=KEY)
    data = {
        "choices": [{"message": {"content": "{}"}}],
        "usage": {"prompt_tokens": 7, "completion_tokens": 3},
    }
    assert api.text(data) == "{}"
    assert api.usage(data).tokens == 10
    with pytest.raises(ProviderError, match="answered with JSON that has no choices"):
        api.text({"id": "x"})


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("3", 3.0),
        ("0.5", 0.5),
        ("-4", 0.0),
        ("Mon, 02 Jun 2025 12:00:30 GMT", 30.0),  # an HTTP date: the wait from the time given
        ("Mon, 02 Jun 2025 11:59:00 GMT", 0.0),  # a date passed: no wait
        ("soon", None),
        ("", None),
    ],
)
def test_retry_after_is_read_from_the_time_given(value: str, seconds: float | None) -> None:
    assert retry_after({"retry-after": value}, NOW) == seconds


def test_without_retry_after_the_wait_backs_off_up_to_a_cap() -> None:
    assert retry_delay({}, 0, NOW, 1.0) == 0.5
    assert retry_delay({}, 2, NOW, 1.2) == pytest.approx(2.4)
    assert retry_delay({}, 20, NOW, 1.0) == MAX_BACKOFF
    assert retry_delay({"retry-after": "7"}, 20, NOW, 1.2) == 7.0


def test_a_commands_run_is_read_into_its_answer_or_what_to_do() -> None:
    job = Job(30)
    assert command_answer("llm", "x" * 40, Ran(0, b"answer", b""), job) == "answer"
    assert (job.usage.prompt_tokens, job.usage.requests) == (10, 1)  # estimated as characters / 4
    with pytest.raises(ProviderError, match=r"failed with exit status 2: no model / bye; check"):
        command_answer("llm", "", Ran(2, b"", b"no model\nbye\n"), Job(30))
    with pytest.raises(ProviderError, match="gave no answer within 30 s"):
        command_answer("llm", "", Ran(-9, b"", b"", timed_out=True), Job(30))
    with pytest.raises(ProviderError, match="printed nothing"):
        command_answer("llm", "", Ran(0, b"  \n", b""), Job(30))


def test_a_commands_tokens_are_estimated_rounded_up() -> None:
    job = Job(30)
    command_answer("llm", "x" * 41, Ran(0, b"answer", b""), job)  # 41 and 6 characters
    assert (job.usage.prompt_tokens, job.usage.completion_tokens) == (11, 2)


def test_the_command_is_split_as_a_shell_would() -> None:
    assert command_argv("llm -m 'my model'") == ["llm", "-m", "my model"]
    assert command_argv(["llm", "-m", "x"]) == ["llm", "-m", "x"]
    with pytest.raises(ProviderError, match="check its quotes"):
        command_argv("llm 'open")
    with pytest.raises(ProviderError, match="needs a command"):
        command_argv("")


def test_an_error_status_says_what_to_do_without_the_providers_words_about_the_key() -> None:
    refused = http_error(HttpAnswer("https://x.test/v1", 401, {}, f'{{"error": "bad key {KEY}"}}'.encode()))
    assert "refused the API key (HTTP 401)" in str(refused) and KEY not in str(refused)
    missing = http_error(HttpAnswer("https://x.test/v1/chat?k=1", 404, {}, b'{"error": {"message": "no"}}'))
    assert str(missing).startswith("the provider has nothing at https://x.test/v1/chat (HTTP 404: no)")
