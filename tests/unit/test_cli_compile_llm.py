"""``ckp compile --all`` through a provider, over real HTTP: requests at a time (``--jobs``), progress,
the token summary from the API's ``usage``, and ``--max-tokens-total`` leaving every file either
done or untouched; the same for the OpenAI-compatible and the Anthropic wire formats."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from tests.fake_llm import GOOD_ANSWER, FakeLLM, Reply
from tests.unit.builders import COMPILE, copy_to_cwd, run_cli, snapshot_files

SOURCE = COMPILE
FLAVOURS = ["openai", "anthropic"]


pytestmark = pytest.mark.usefixtures("empty_compile_cache")


@pytest.fixture
def bank(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-key-0000")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    return copy_to_cwd(SOURCE, tmp_path / "bank", monkeypatch) / "memory-bank"


def provider_args(flavour: str, fake: FakeLLM) -> list[str]:
    url = fake.openai_base_url if flavour == "openai" else fake.anthropic_base_url
    return ["--provider", flavour, "--base-url", url]


def compile_all(capsys: pytest.CaptureFixture[str], bank: Path, jobs: int, *args: str) -> tuple[int, str]:
    """``ckp compile --all BANK --force --jobs JOBS ARGS…``: its exit code and stderr."""
    code, _, err = run_cli(capsys, "compile", "--all", str(bank), "--force", "--jobs", str(jobs), *args)
    return code, err


def summary_numbers(err: str) -> tuple[int, int, int, int]:
    """(tokens, prompt, completion, requests) of the summary line."""
    m = re.search(r"; ([\d,]+) tokens \(([\d,]+) prompt \+ ([\d,]+) completion\) in (\d+) request", err)
    assert m, err
    a, b, c, d = (int(g.replace(",", "")) for g in m.groups())
    return a, b, c, d


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_compile_all_runs_jobs_at_a_time_and_reports_the_tokens(
    bank: Path, flavour: str, capsys: pytest.CaptureFixture[str]
) -> None:
    files = len([p for p in bank.glob("*.md") if p.name != "_index.md"])
    with FakeLLM() as fake:
        fake.script(*[Reply(delay=0.4)] * files)
        code, err = compile_all(capsys, bank, 3, *provider_args(flavour, fake))
        received = fake.received
        most = fake.most_in_flight
    assert code == 0, err
    assert most == 3  # three requests were in flight together, never more
    assert len(received) == files
    total, prompt, completion, requests = summary_numbers(err)
    assert requests == files and total == prompt + completion
    assert prompt >= sum(len(str(r.body)) for r in received) // 8  # from the API's usage, not zero
    assert f"{files} file(s): {files} recompiled, 0 failed" in err
    assert f"[{files}/{files}]" in err  # progress on stderr
    assert f"to {flavour}" in err


def test_jobs_1_sends_one_request_at_a_time(bank: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with FakeLLM() as fake:
        fake.script(*[Reply(delay=0.1)] * 4)
        code, _ = compile_all(capsys, bank, 1, *provider_args("openai", fake))
        assert code == 0 and fake.most_in_flight == 1


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_the_token_budget_stops_cleanly_leaving_files_done_or_untouched(
    bank: Path, flavour: str, capsys: pytest.CaptureFixture[str]
) -> None:
    before = snapshot_files(bank)
    with FakeLLM() as fake:
        code, err = compile_all(capsys, bank, 2, "--max-tokens-total", "1500", *provider_args(flavour, fake))
        sent = len(fake.received)
    after = snapshot_files(bank)
    assert code == 1
    assert "stopped at the token budget" in err and "left untouched; run again to go on" in err
    done = [rel for rel in before if rel != "_index.md" and after[rel] != before[rel]]
    untouched = [rel for rel in before if rel != "_index.md" and after[rel] == before[rel]]
    assert 2 <= sent < len(before) - 1 and len(done) == sent and untouched
    for rel in done:  # a done file carries the whole answer: nothing half written
        assert b"JWT access tokens: how they are signed" in after[rel]
    tokens, *_ = summary_numbers(err)
    assert tokens >= 1500


def test_without_force_only_incomplete_headers_are_sent(
    bank: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (bank / "fresh.md").write_text("# Fresh notes\n\nNothing compiled here yet about tokens.\n")
    with FakeLLM() as fake:
        fake.script(Reply(text=GOOD_ANSWER[:-1] + ', "CONCEPT": "fresh"}'))
        code, _, err = run_cli(capsys, "compile", "--all", str(bank), *provider_args("openai", fake))
        assert len(fake.received) == 1
    assert code == 0, err
    assert "complete header(s) skipped (--force compiles them too)" in err
    assert (bank / "fresh.md").read_text().startswith("CONCEPT:      fresh")


@pytest.mark.parametrize(
    ("flag", "value"), [("--jobs", "0"), ("--jobs", "many"), ("--max-tokens-total", "-5")]
)
def test_bad_jobs_and_budget_values_are_usage_errors(
    bank: Path, flag: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        run_cli(capsys, "compile", "--all", str(bank), flag, value)
    assert exit_.value.code == 2
    assert f"argument {flag}: {value!r} is not" in capsys.readouterr().err


def test_a_command_providers_tokens_are_estimated_so_a_budget_holds(
    bank: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "llm.py"
    script.write_text(f"import sys\nsys.stdin.read()\nprint({GOOD_ANSWER!r})\n")
    before = snapshot_files(bank)
    code, err = compile_all(
        capsys,
        bank,
        1,
        "--max-tokens-total",
        "2000",
        "--provider",
        "command",
        "--command",
        f"{sys.executable} {script}",
    )
    after = snapshot_files(bank)
    assert code == 1 and "stopped at the token budget" in err
    assert "tokens (estimated: characters / 4)" in err
    changed = [rel for rel in before if after[rel] != before[rel]]
    assert 1 <= len(changed) < len(before) - 1
