"""Trust (SPEC §8): a cloned repository's ``.ckp.toml`` chooses no program, endpoint or key destination
until the user trusts its folder; the user's own file, the environment and flags always count."""

from __future__ import annotations

import json
import re
import shlex
import sys
from pathlib import Path

import pytest

from ckp_lsp.core.project.config import config_for_bank
from ckp_lsp.core.project.trust import TrustStore, trust_file, user_config_path
from tests.fake_llm import FakeLLM
from tests.unit.builders import COMPILE, copy_bank, run_cli

SOURCE = COMPILE / "memory-bank"
KEY = "sk-trust-test-4b7e1d9c2a6f"


pytestmark = pytest.mark.usefixtures("empty_compile_cache")


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cloned repository holding a bank; the working directory is the repository."""
    root = tmp_path / "cloned"
    copy_bank(SOURCE, root / "memory-bank")
    (root / ".git").mkdir()
    monkeypatch.chdir(root)
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "CKP_LLM_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    return root


def hostile_command(marker: Path) -> str:
    """A command that leaves ``marker`` behind when it runs (and answers nothing useful)."""
    return f"sh -c {shlex.quote(f'touch {marker}')}"


def write_toml(folder: Path, text: str) -> None:
    (folder / ".ckp.toml").write_text(text, encoding="utf-8")


def test_an_untrusted_folder_chooses_no_program_endpoint_or_provider(repo: Path) -> None:
    write_toml(
        repo,
        '[llm]\nprovider = "command"\ncommand = "sh -c \'touch PWNED\'"\n'
        'base_url = "http://evil.example/v1"\nmodel = "m-repo"\ntimeout = 7\n',
    )
    config = config_for_bank(repo / "memory-bank")
    assert config.llm.provider == "offline"
    assert config.llm.command is None and config.llm.base_url is None
    assert (config.llm.model, config.llm.timeout) == ("m-repo", 7.0)  # harmless settings still count
    [note] = config.ignored
    assert "llm.provider = 'command'" in note and "llm.command = \"sh -c 'touch PWNED'\"" in note
    assert "llm.base_url = 'http://evil.example/v1'" in note
    assert f"ckp trust {repo}" in note and "not trusted" in note


def test_choosing_the_offline_compiler_needs_no_trust(repo: Path) -> None:
    user_config_path().parent.mkdir(parents=True)
    user_config_path().write_text('[llm]\nprovider = "command"\ncommand = "my-llm"\n')
    write_toml(repo, '[llm]\nprovider = "offline"\n')
    config = config_for_bank(repo / "memory-bank")
    assert (config.llm.provider, config.ignored) == ("offline", ())


def test_the_user_file_and_the_environment_are_the_users_own(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user_config_path().parent.mkdir(parents=True)
    user_config_path().write_text('[llm]\nprovider = "openai"\nbase_url = "http://127.0.0.1:9/v1"\n')
    write_toml(repo, '[llm]\nbase_url = "http://evil.example/v1"\n')
    config = config_for_bank(repo / "memory-bank")
    assert (config.llm.provider, config.llm.base_url) == ("openai", "http://127.0.0.1:9/v1")
    assert len(config.ignored) == 1
    monkeypatch.setenv("CKP_LLM_PROVIDER", "command")
    monkeypatch.setenv("CKP_LLM_COMMAND", "from-env")
    config = config_for_bank(repo / "memory-bank")
    assert (config.llm.provider, config.llm.command) == ("command", "from-env")


def test_trust_is_kept_outside_the_repository_and_a_changed_setting_asks_again(repo: Path) -> None:
    write_toml(repo, '[llm]\nprovider = "command"\ncommand = "first"\n')
    TrustStore().trust(repo, {"provider": "command", "command": "first"}, "2026-12-01T12:00:00Z")
    assert trust_file().is_file() and not trust_file().is_relative_to(repo)
    config = config_for_bank(repo / "memory-bank")
    assert (config.llm.command, config.ignored) == ("first", ())
    write_toml(repo, '[llm]\nprovider = "command"\ncommand = "second"\n')  # e.g. after a git pull
    config = config_for_bank(repo / "memory-bank")
    assert config.llm.command is None
    [note] = config.ignored
    assert "changed since the folder was trusted" in note


def test_trust_follows_the_real_path_not_a_link(repo: Path, tmp_path: Path) -> None:
    write_toml(repo, '[llm]\nprovider = "command"\ncommand = "x"\n')
    link = tmp_path / "link"
    link.symlink_to(repo)
    TrustStore().trust(link, {"provider": "command", "command": "x"}, "2026-12-01T12:00:00Z")
    assert config_for_bank(repo / "memory-bank").llm.command == "x"


def test_ckp_compile_runs_no_repository_command_until_the_folder_is_trusted(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pwned = tmp_path / "PWNED"
    write_toml(repo, f'[llm]\nprovider = "command"\ncommand = {json.dumps(hostile_command(pwned))}\n')
    code, _, err = run_cli(capsys, "compile", "--dry-run", "memory-bank/jwt.md")
    assert code == 0 and not pwned.exists()
    assert "ignored llm.provider = 'command'" in err and f"ckp trust {repo}" in err

    code, out, _ = run_cli(capsys, "trust")
    assert code == 0 and f"trusted {repo / '.ckp.toml'}" in out
    code, out, _ = run_cli(capsys, "trust", "--list")
    assert str(repo) in out and "changed" not in out
    # the face stamps when, in UTC, from the clock (the core is given it)
    assert re.search(r"\(trusted \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\)", out), out
    run_cli(capsys, "compile", "--dry-run", "memory-bank/jwt.md")
    assert pwned.exists()  # now the user's choice: it ran

    pwned.unlink()
    code, out, _ = run_cli(capsys, "trust", "--revoke", str(repo))
    assert code == 0 and "no longer trusted" in out
    run_cli(capsys, "compile", "--dry-run", "memory-bank/jwt.md")
    assert not pwned.exists()


def test_an_untrusted_base_url_never_receives_the_key(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeLLM() as theirs, FakeLLM(api_key=KEY) as mine:
        user_config_path().parent.mkdir(parents=True)
        user_config_path().write_text(f'[llm]\nprovider = "openai"\nbase_url = "{mine.openai_base_url}"\n')
        write_toml(repo, f'[llm]\nprovider = "openai"\nbase_url = "{theirs.openai_base_url}"\n')
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        code, _, err = run_cli(capsys, "compile", "--dry-run", "memory-bank/jwt.md")
        assert theirs.received == []  # not one request reached the repository's endpoint
        assert len(mine.received) == 1 and code == 0
        assert "ignored llm.provider = 'openai', llm.base_url" in err
        assert KEY not in err


@pytest.mark.parametrize("value", ["inf", "nan", "-1", "0", "soon"])
def test_timeout_flag_must_be_a_finite_positive_number(
    repo: Path, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        run_cli(capsys, "compile", "--timeout", value, "memory-bank/jwt.md")
    err = capsys.readouterr().err
    assert exit_.value.code == 2
    assert f"argument --timeout: {value!r} is not a number of seconds above 0" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("value", ["inf", "nan", "-1", "0", "1e9", '"soon"', "true"])
def test_timeout_setting_must_be_a_finite_positive_number(
    repo: Path, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    write_toml(repo, f"[llm]\ntimeout = {value}\n")
    config = config_for_bank(repo / "memory-bank")
    assert config.llm.timeout == 60.0
    assert any("llm.timeout" in p and "is not a number of seconds" in p for p in config.problems)
    code, _, err = run_cli(capsys, "compile", "--dry-run", "memory-bank/jwt.md")
    assert code == 0 and "configuration: llm.timeout" in err and "Traceback" not in err


def test_trust_without_a_config_file_says_there_is_nothing_to_trust(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run_cli(capsys, "trust", str(tmp_path))
    assert code == 1 and "nothing to trust" in err
    assert not trust_file().exists()


def test_the_trust_store_survives_a_corrupt_file(repo: Path) -> None:
    trust_file().parent.mkdir(parents=True)
    trust_file().write_text("{not json")
    write_toml(repo, '[llm]\nprovider = "command"\ncommand = "x"\n')
    assert config_for_bank(repo / "memory-bank").llm.command is None  # an unreadable store trusts nothing
    TrustStore().trust(repo, {"provider": "command", "command": "x"}, "2026-12-01T12:00:00Z")
    assert config_for_bank(repo / "memory-bank").llm.command == "x"
    assert sys.platform == "win32" or trust_file().stat().st_mode & 0o077 == 0  # not readable by others
