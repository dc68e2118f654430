"""``ckp compile``: only the header is written (body, BOM and line endings kept), --dry-run and
--diff, unusable answers and keys that never show, and a file changed while compiling."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from ckp_lsp.cli import compile_cmd
from ckp_lsp.cli.main import main
from ckp_lsp.core.bank.checks import check_file
from ckp_lsp.core.bank.findings import Severity
from ckp_lsp.core.edit.rewrite import body_of
from ckp_lsp.core.format.header import parse_header
from ckp_lsp.core.format.text import BOM
from ckp_lsp.faces.banks import load_bank
from tests.fake_llm import FakeLLM, Reply, every_time
from tests.unit.builders import COMPILE, copy_to_cwd, edit_on_disk_during, snapshot_files

SOURCE = COMPILE
KEY = "sk-cli-compile-key-9d2e7b-SECRET"


pytestmark = pytest.mark.usefixtures("empty_compile_cache")


@pytest.fixture
def bank(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A writable copy of the test bank; the working directory is its parent."""
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "CKP_LLM_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    return copy_to_cwd(SOURCE, tmp_path / "bank", monkeypatch) / "memory-bank"


@pytest.fixture
def fake() -> Iterator[FakeLLM]:
    with FakeLLM(api_key=KEY) as server:
        yield server


def split_bytes(data: bytes) -> tuple[bytes, bytes]:
    """(header, body) of a file's bytes, the BOM counted with the header."""
    text = data.decode("utf-8").removeprefix(BOM)
    body = body_of(text).encode("utf-8")
    return data[: len(data) - len(body)], body


def test_compile_writes_the_header_only_and_keeps_bom_and_crlf(
    bank: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = snapshot_files(bank)
    assert main(["compile", str(bank / "csrf.md")]) == 0
    after = snapshot_files(bank)
    assert {k for k in after if after[k] != before[k]} == {"csrf.md"}
    old_header, old_body = split_bytes(before["csrf.md"])
    new_header, new_body = split_bytes(after["csrf.md"])
    assert new_body == old_body
    assert new_header != old_header
    assert new_header.startswith(BOM.encode() + b"---\r\n")
    assert re.findall(rb"\r\n|\r|\n", new_header) == [b"\r\n"] * new_header.count(b"\n")
    for line in (b'title: "CSRF protection"\r\n', b"tags: [security, web]\r\n", b"owner: web-team\r\n"):
        assert line in new_header
    assert b"CONCEPT: csrf\r\n" in new_header
    assert "1 file(s): 1 recompiled, 0 failed." in capsys.readouterr().err


def test_compile_all_force_recompiles_every_file_and_leaves_the_bank_valid(bank: Path) -> None:
    before = snapshot_files(bank)
    assert main(["compile", "--all", str(bank), "--force"]) == 0
    after = snapshot_files(bank)
    compiled = [k for k in after if k != "_index.md" and after[k] != before[k]]
    assert len(compiled) == len(before) - 1
    for name in compiled:
        assert split_bytes(after[name])[1] == split_bytes(before[name])[1], name
    loaded = load_bank(bank)
    errors = [f for rel in loaded.files for f in check_file(loaded, rel) if f.severity == Severity.ERROR]
    assert errors == []


def test_dry_run_writes_nothing_and_shows_what_would_change(
    bank: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = snapshot_files(bank)
    assert main(["compile", "--dry-run", str(bank / "jwt.md"), str(bank / "csrf.md")]) == 0
    assert snapshot_files(bank) == before
    captured = capsys.readouterr()
    assert "--- a/bank/memory-bank/jwt.md" in captured.out
    assert "2 file(s): 2 would change, 0 failed." in captured.err


def test_diff_prints_a_unified_diff_of_the_header(bank: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compile", "--diff", str(bank / "jwt.md")]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == "--- a/bank/memory-bank/jwt.md" and lines[1] == "+++ b/bank/memory-bank/jwt.md"
    assert lines[2].startswith("@@ -1,")
    assert "-ANSWERS_WHEN: jwt, token" in lines  # a valid TLDR of the user's is kept offline
    changed = [line[1:] for line in lines[3:] if line[:1] in "+-"]
    assert changed and all(re.match(r"[A-Z_]+:", line) for line in changed), changed  # header lines only
    # --diff shows the change and still makes it.
    assert (
        split_bytes((bank / "jwt.md").read_bytes())[1]
        == split_bytes((SOURCE / "memory-bank" / "jwt.md").read_bytes())[1]
    )
    assert (bank / "jwt.md").read_bytes() != (SOURCE / "memory-bank" / "jwt.md").read_bytes()


@pytest.mark.parametrize("reply", [Reply(text="Here is your header: it is about tokens."), Reply(status=500)])
def test_an_unusable_answer_fails_and_leaves_the_file_alone(
    bank: Path,
    fake: FakeLLM,
    reply: Reply,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    fake.script(*every_time(reply))
    before = snapshot_files(bank)
    args = ["compile", "--provider", "openai", "--base-url", fake.openai_base_url, str(bank / "jwt.md")]
    assert main(args) == 1
    assert snapshot_files(bank) == before
    captured = capsys.readouterr()
    assert "ckp: bank/memory-bank/jwt.md: " in captured.err
    assert re.search(r"not a JSON header object|HTTP 500", captured.err)
    assert "1 file(s): 0 recompiled, 1 failed; " in captured.err
    assert KEY not in captured.out + captured.err


def test_the_api_key_never_shows(
    bank: Path, fake: FakeLLM, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The fake quotes a wrong key back in its 401 answer, as OpenAI does.
    wrong = "sk-wrong-cli-key-0000-SECRET"
    monkeypatch.setenv("OPENAI_API_KEY", wrong)
    base = ["compile", "--provider", "openai", "--base-url", fake.openai_base_url]
    assert main([*base, str(bank / "jwt.md")]) == 1
    failed = capsys.readouterr()
    assert "HTTP 401" in failed.err
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    assert main([*base, "--diff", str(bank / "jwt.md")]) == 0
    done = capsys.readouterr()
    for text in (failed.out, failed.err, done.out, done.err):
        assert wrong not in text and KEY not in text
    assert [r.headers["authorization"] for r in fake.received] == [f"Bearer {wrong}", f"Bearer {KEY}"]


def test_the_anthropic_provider_compiles_from_the_command_line(
    bank: Path, fake: FakeLLM, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    args = ["compile", "--provider", "anthropic", "--model", "m-cli", "--base-url", fake.anthropic_base_url]
    assert main([*args, str(bank / "jwt.md")]) == 0
    header = parse_header((bank / "jwt.md").read_text(encoding="utf-8"))
    assert header is not None and header.first("TLDR") is not None
    assert header.first("TLDR").value.startswith("JWT access tokens")  # type: ignore[union-attr]
    [request] = fake.received
    assert request.path == "/v1/messages" and request.body["model"] == "m-cli"
    assert KEY not in capsys.readouterr().err


def test_a_file_changed_while_compiling_is_not_written(
    bank: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    target = bank / "jwt.md"
    typed = "A line typed while the model was thinking.\n"
    edited = edit_on_disk_during(monkeypatch, compile_cmd, "compile_header", target, typed)
    assert main(["compile", str(target)]) == 1
    assert target.read_text(encoding="utf-8") == edited
    err = capsys.readouterr().err
    assert "changed on disk since it was read; nothing was written" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "name FILE... or --all BANK"),
        (["nowhere.md"], "nowhere.md: no such file"),
        (["memory-bank/_index.md"], "the index is generated by `ckp index`"),
        (["memory-bank/README.md"], "README.md: not a knowledge file (a README: the default `exclude`"),
        (["--all", "missing-folder"], "missing-folder: not a memory bank"),
    ],
)
def test_usage_errors_exit_2(
    bank: Path, args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (bank / "README.md").write_text("# About this bank\n", encoding="utf-8")
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(bank.parent)
        assert main(["compile", *args]) == 2
    assert message in capsys.readouterr().err
    assert (bank / "README.md").read_text(encoding="utf-8") == "# About this bank\n"


def test_a_file_outside_any_bank_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    loose = tmp_path / "loose.md"
    loose.write_text("# Loose\n", encoding="utf-8")
    assert main(["compile", str(loose)]) == 2
    assert "not inside a memory bank" in capsys.readouterr().err
