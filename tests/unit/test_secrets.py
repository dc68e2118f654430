"""CKP080: a credential in a knowledge file is found where it is written, never on look-alikes,
silenced like any code, redacted by one edit, and found in time linear in the text."""

from __future__ import annotations

import gc
import time
from pathlib import Path

import pytest

from ckp_lsp.core.agent.redaction import placeholder, redact
from ckp_lsp.core.agent.secrets import ALLOW_COMMENT, find_secrets
from ckp_lsp.core.bank.cache import FileCache
from ckp_lsp.core.bank.checks import check_file
from ckp_lsp.core.bank.findings import Severity
from ckp_lsp.core.edit.fixes import apply_edits, fix_text, fixes_for
from ckp_lsp.core.edit.rewrite import body_of
from ckp_lsp.core.format.text import index_of_utf16, line_offsets, split_lines
from ckp_lsp.core.project.config import Config
from ckp_lsp.faces.banks import load_bank
from tests.secret_corpus import Planted, fake_secrets, look_alikes, placements, settings
from tests.unit.builders import bank_of_texts, run_cli, write_files

PLANTED = fake_secrets()
CASES = [(p, where, text) for p in PLANTED for where, text in placements(p).items()]


def tail(p: Planted) -> str:
    """A part of the secret that no placeholder or context holds."""
    return p.value.strip().splitlines()[-2 if p.kind == "PRIVATE_KEY" else -1][-12:]


def offset(text: str, line: int, col: int) -> int:
    return line_offsets(text)[line] + index_of_utf16(split_lines(text)[line], col)


@pytest.mark.parametrize(("planted", "where", "text"), CASES, ids=[f"{p.kind}-{w}" for p, w, _ in CASES])
def test_each_kind_of_secret_is_an_error_where_it_is_written(planted: Planted, where: str, text: str) -> None:
    bank = bank_of_texts({"deploy.md": text})
    (finding,) = [f for f in check_file(bank, "deploy.md") if f.code == "CKP080"]
    assert finding.severity == Severity.ERROR and finding.data["kind"] == planted.kind
    s = finding.span
    covered = text[offset(text, s.start_line, s.start_col) : offset(text, s.end_line, s.end_col)]
    # As tight as the secret: the value itself (the password alone in a URL, the path of a webhook).
    assert tail(planted) in covered and covered in settings(planted)
    if planted.kind not in ("SLACK_WEBHOOK",):
        assert covered == planted.value
    assert tail(planted) not in finding.message  # the message never repeats the secret


GLUED = [
    "git remote set-url origin https://{}@github.com/org/repo.git",
    "the token is in ~/.tokens/{}",
    "https://github.com/org/repo/{}",
    "cfg.{}",
    "s3://bucket/{}",
    "patterns/{}.md",
    "{}.md",
    "x{}",
]


@pytest.mark.parametrize("shape", GLUED)
@pytest.mark.parametrize(
    "p", [p for p in PLANTED if p.kind in ("GITHUB_TOKEN", "AWS_ACCESS_KEY_ID", "SLACK_TOKEN")]
)
def test_a_token_glued_to_a_url_a_path_or_a_name_is_found(p: Planted, shape: str) -> None:
    if shape == "x{}" and p.kind == "AWS_ACCESS_KEY_ID":
        shape = "cfg/{}"  # a short prefix is looked for after a separator only
    line = shape.format(p.value)
    found = find_secrets(line)
    assert [(s.kind, line[s.start : s.end]) for s in found] == [(p.kind, p.value)], line


@pytest.mark.parametrize(
    "line",
    [
        "see /work/my-task-runner-configuration-for-everything/README.md",
        "the hf_" + "abcdefghijklmnopqrstuvwxyzabcdefgh" + "ij file",  # longer than the shape: a word
        "XAKIAZDOC9IS0J8HT9LGM",  # inside a run of capitals: no key
        "ghp_" + "u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d" + "Q9",  # longer than a GitHub token
    ],
)
def test_a_prefix_inside_a_longer_word_is_no_secret(line: str) -> None:
    assert find_secrets(line) == []


@pytest.mark.parametrize("line", look_alikes())
def test_look_alikes_are_no_secret(line: str) -> None:
    text = f"CONCEPT: notes\nTLDR: Notes.\nANSWERS_WHEN: notes\nVALIDATED: 2026-10\n\n{line}\n\n```\n{line}\n```\n"
    assert find_secrets(text) == []
    assert [f for f in check_file(bank_of_texts({"notes.md": text}), "notes.md") if f.code == "CKP080"] == []


def test_redact_replaces_every_secret_and_names_the_kinds() -> None:
    text = "\n\n".join(placements(p)["body"] for p in PLANTED)
    redacted, kinds = redact(text)
    for p in PLANTED:
        assert tail(p) not in redacted
        assert placeholder(p.kind) in redacted
    assert kinds == list(dict.fromkeys(p.kind for p in PLANTED))
    assert redact(redacted) == (redacted, [])  # a placeholder is no secret
    assert redact("no secret here") == ("no secret here", [])


def test_the_allow_comment_and_the_configuration_silence_it() -> None:
    p = PLANTED[0]
    text = placements(p)["body"]
    allowed = text.replace(settings(p), f"{settings(p)} {ALLOW_COMMENT}")
    assert [f.code for f in check_file(bank_of_texts({"a.md": allowed}), "a.md")] == []
    above = text.replace(settings(p), f"{ALLOW_COMMENT}\n{settings(p)}")
    assert find_secrets(above) == []
    assert redact(allowed)[1] == []  # what is allowed is no secret to redact either
    off = Config(diagnostics={"CKP080": None})
    assert [f.code for f in check_file(bank_of_texts({"a.md": text}, off), "a.md")] == []


@pytest.mark.parametrize("where", ["bare_header", "front_matter", "body", "fence"])
def test_the_quick_fix_replaces_the_secret_alone_in_one_edit(where: str) -> None:
    p = PLANTED[3]  # an AWS key
    text = placements(p)[where]
    bank = bank_of_texts({"deploy.md": text})
    (finding,) = [f for f in check_file(bank, "deploy.md") if f.code == "CKP080"]
    (fix,) = fixes_for(bank, bank.files["deploy.md"], finding)
    assert len(fix.edits) == 1 and fix.preferred and not fix.safe
    new = apply_edits(text, fix.edits)
    assert p.value not in new and placeholder(p.kind) in new
    assert new.replace(placeholder(p.kind), p.value).replace(f'"{p.value}"', p.value) == text
    after = bank_of_texts({"deploy.md": new})
    assert [f.code for f in check_file(after, "deploy.md") if f.code != "CKP032"] == []


def test_a_whole_front_matter_value_is_redacted_into_valid_yaml() -> None:
    p = PLANTED[3]
    text = f"---\nCONCEPT: deploy\nTLDR: Deploying.\nANSWERS_WHEN: [deploy]\naws_key: {p.value}\nVALIDATED: 2026-10\n---\nBody.\n"
    bank = bank_of_texts({"deploy.md": text})
    (finding,) = [f for f in check_file(bank, "deploy.md") if f.code == "CKP080"]
    new = apply_edits(text, fixes_for(bank, bank.files["deploy.md"], finding)[0].edits)
    assert f'aws_key: "{placeholder(p.kind)}"' in new
    assert [f.code for f in check_file(bank_of_texts({"deploy.md": new}), "deploy.md")] == []


def test_ckp_fix_and_fix_all_never_edit_the_body() -> None:
    text = placements(PLANTED[0])["body"]
    bank = bank_of_texts({"deploy.md": text})
    assert fix_text(bank, "deploy.md", text) == (text, 0)
    assert fix_text(bank, "deploy.md", text, frozenset({"CKP080"})) == (text, 0)
    assert body_of(text) == body_of(fix_text(bank, "deploy.md", text)[0])


def test_ckp_check_exits_1_on_a_secret(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = PLANTED[4]
    root = write_files(tmp_path / "memory-bank", {"deploy.md": placements(p)["fence"]})
    code, out, err = run_cli(capsys, "check", str(root), "--no-cache")
    assert code == 1 and "error CKP080" in out and p.kind in out
    assert tail(p) not in out + err


def test_a_file_with_a_secret_is_reported_again_from_the_cache(tmp_path: Path) -> None:
    root = write_files(tmp_path / "memory-bank", {"deploy.md": placements(PLANTED[0])["bare_header"]})
    for _ in range(2):  # the second load takes unchanged files from the cache
        bank = load_bank(root, Config(), FileCache(tmp_path / "cache.marshal"))
        assert [f.code for f in check_file(bank, "deploy.md")] == ["CKP080"]


HOSTILE = [
    "password",
    "key=",
    "token: ",
    "s" + "k-",
    "ey" + "J",
    "ey" + "Ja.eyJb.",
    "://a:b@",
    "a" * 19 + " ",
    "-----BEGIN RSA PRIVATE KEY-----\n",
    "-----BEGIN ",
    "allow-secret ",
    "https://hooks." + "slack.com/services/",
]


@pytest.mark.scale
@pytest.mark.parametrize("unit", HOSTILE)
def test_a_long_hostile_line_is_scanned_in_linear_time(unit: str) -> None:
    def cost(n: int) -> float:
        text = (unit * (n // len(unit) + 1))[:n]
        best = float("inf")
        # The best of five in this process's CPU time, the collector paused: another process on
        # the cores, or a collection of the findings just made, is no part of the scan's cost.
        gc.disable()
        try:
            for _ in range(5):
                started = time.process_time()
                find_secrets(text)
                best = min(best, time.process_time() - started)
        finally:
            gc.enable()
        return best

    small, large = cost(50_000), cost(400_000)
    # Eight times the text: a linear scan takes about eight times as long, a quadratic one 64.
    assert large < 24 * small + 0.05, (small, large)


def test_a_name_after_letters_whose_lower_case_is_longer_is_still_found() -> None:
    # ``İ`` lower-cases to two characters: the names are looked for in a lower-cased copy, whose
    # offsets must still be those of the text, or the rule runs on a line further down.
    text = "İ" * 200 + "\n" + "db_password: Xk9#mQ2$vL7p\n" + "plain words\n" * 50
    secrets = find_secrets(text)
    assert [s.kind for s in secrets] == ["PASSWORD"]
    assert text[secrets[0].start : secrets[0].end] == "Xk9#mQ2$vL7p"


def test_a_name_that_ends_in_another_word_is_no_candidate_and_one_that_ends_in_the_word_is() -> None:
    # the prefilter lets by a name only when a secret word ends it (``password``, ``credentials``,
    # ``api_key``), as the rule itself requires; relationship entries (``secret-rotation:DATE``) pass
    assert find_secrets("SIMILAR_MID: secret-rotation:2026-01-02, token-cache:2026-01-02\n") == []
    found = find_secrets("clientCredentials = 'Zq8#wE3rT6yU'\nAPI_KEY=Zq8#wE3rT6yU1x\n")
    assert [s.kind for s in found] == ["CREDENTIAL", "API_KEY"]
