"""An LLM recompile never sends a secret: the prompt an OpenAI-compatible endpoint receives over
real HTTP, and the stdin of the ``command`` provider, hold placeholders and say so."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from ckp_lsp.core.compile.model import CompileInput, ConceptSummary
from ckp_lsp.core.compile.prompt import build_prompt, build_repair_prompt
from tests.fake_llm import GOOD_ANSWER, FakeLLM
from tests.secret_corpus import fake_secrets, placements, settings
from tests.unit.builders import run_cli, write_files

pytestmark = pytest.mark.usefixtures("empty_compile_cache")

PLANTED = fake_secrets(seed=23)
AWS, GITHUB, PASSWORD = PLANTED[3], PLANTED[4], PLANTED[16]


def tail(value: str) -> str:
    lines = value.strip().splitlines()
    return (lines[-2] if len(lines) > 1 else lines[-1])[-12:]


def bank(root: Path) -> Path:
    """jwt.md holds secrets in its body and a fence; oauth2.md one in its TLDR (a listed concept)."""
    jwt = placements(AWS)["fence"].replace("CONCEPT: deploy", "CONCEPT: jwt")
    jwt += f"\nThe service reads {settings(PASSWORD)} at start.\n"
    oauth2 = (
        f"CONCEPT: oauth2\nTLDR: Login flows, signed in CI with {GITHUB.value}\n"
        "ANSWERS_WHEN: oauth2, login\nVALIDATED: 2026-10\n\nBody.\n"
    )
    return write_files(root / "memory-bank", {"jwt.md": jwt, "oauth2.md": oauth2})


def test_the_prompt_replaces_each_secret_and_says_so() -> None:
    body = f"# Deploy\n\n{settings(AWS)}\n\n```\n{settings(PASSWORD)}\n```\n"
    others = (ConceptSummary("oauth2", f"Login, key {GITHUB.value}", ("oauth2",)),)
    inp = CompileInput(body=body, others=others, concept="jwt")
    for prompt in (build_prompt(inp), build_repair_prompt(inp, f'{{"TLDR": "{AWS.value}"}}', ["bad"])):
        text = prompt.as_text()
        assert all(tail(p.value) not in text for p in (AWS, GITHUB, PASSWORD))
        assert "<redacted: AWS_ACCESS_KEY_ID>" in text and "<redacted: GITHUB_TOKEN>" in text
        assert "were replaced by placeholders" in text
        assert set(prompt.redacted) == {"AWS_ACCESS_KEY_ID", "GITHUB_TOKEN", "PASSWORD"}
    clean = build_prompt(CompileInput(body="# Notes\n\nNothing secret.\n", others=(), concept="notes"))
    assert clean.redacted == () and "placeholders" not in clean.as_text()


def test_the_openai_endpoint_receives_no_secret(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = bank(tmp_path)
    with FakeLLM() as fake:
        code, _, err = run_cli(
            capsys,
            "compile",
            str(root / "jwt.md"),
            "--provider",
            "openai",
            "--base-url",
            fake.openai_base_url,
        )
        received = fake.received
    assert code == 0, err
    assert received and received[0].path == "/v1/chat/completions"
    sent = json.dumps([r.body for r in received]) + json.dumps([r.headers for r in received])
    for p in (AWS, GITHUB, PASSWORD):
        assert tail(p.value) not in sent
    assert "<redacted: AWS_ACCESS_KEY_ID>" in sent and "<redacted: GITHUB_TOKEN>" in sent
    assert "were replaced by placeholders" in sent
    assert tail(AWS.value) in (root / "jwt.md").read_text(encoding="utf-8")  # the body is untouched


def test_the_command_provider_reads_no_secret_on_stdin(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = bank(tmp_path)
    seen = tmp_path / "stdin.txt"
    script = tmp_path / "model.py"
    script.write_text(
        "import sys\n"
        f"open({str(seen)!r}, 'w', encoding='utf-8').write(sys.stdin.read())\n"
        f"print({GOOD_ANSWER!r})\n",
        encoding="utf-8",
    )
    command = shlex.join([sys.executable, str(script)])
    code, _, err = run_cli(
        capsys, "compile", str(root / "jwt.md"), "--provider", "command", "--command", command
    )
    assert code == 0, err
    stdin = seen.read_text(encoding="utf-8")
    assert "<redacted: AWS_ACCESS_KEY_ID>" in stdin and "were replaced by placeholders" in stdin
    for p in (AWS, GITHUB, PASSWORD):
        assert tail(p.value) not in stdin
