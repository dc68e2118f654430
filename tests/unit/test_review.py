"""Review of a pull request on a real git repository: ``ckp check --changed BASE`` checks the files
changed and what they relate to, ``ckp diff BASE`` says what changed in the headers; neither runs
a program the repository names."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import yaml

from ckp_lsp.core.edit.review import describe_change
from tests.unit.builders import bare_header, run_cli

FILES = {
    "jwt.md": bare_header(CONCEPT="jwt", ANSWERS_WHEN="jwt, access token", SIMILAR_HIGH="oauth2:2026-05"),
    "oauth2.md": bare_header(CONCEPT="oauth2", TLDR="Login flows.", ANSWERS_WHEN="oauth2, login"),
    "redis.md": bare_header(CONCEPT="redis", TLDR="The cache.", ANSWERS_WHEN="redis, cache"),
    "cart.md": bare_header(
        CONCEPT="cart", TLDR="The cart.", ANSWERS_WHEN="cart", SIMILAR_HIGH="redis:2025-05"
    ),
    # unrelated to the change, and broken: a check of the change leaves it alone
    "legacy.md": bare_header(
        CONCEPT="legacy", TLDR="Old.", ANSWERS_WHEN="legacy", SIMILAR_MID="ghost:2025-05"
    ),
}


@pytest.fixture(autouse=True)
def identity(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for who in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{who}_NAME", "Test")
        monkeypatch.setenv(f"GIT_{who}_EMAIL", "test@example.invalid")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout


@pytest.fixture
def repo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    repo = tmp_path / "repo"
    bank = repo / "memory-bank"
    bank.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    for rel, text in FILES.items():
        (bank / rel).write_text(text, encoding="utf-8")
    run_cli(capsys, "index", str(bank))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "bank")
    git(repo, "checkout", "-q", "-b", "feature")
    return repo


def change(bank: Path) -> None:
    """The pull request: jwt gains a keyword and re-validates oauth2; redis goes; billing comes."""
    jwt = (
        FILES["jwt.md"]
        .replace("jwt, access token", "jwt, access token, JWKS")
        .replace("oauth2:2026-05", "oauth2:2026-12")
    )
    (bank / "jwt.md").write_text(jwt, encoding="utf-8")
    (bank / "redis.md").unlink()
    (bank / "billing.md").write_text(
        bare_header(
            CONCEPT="billing", TLDR="Invoices.", ANSWERS_WHEN="billing, invoice", SIMILAR_MID="jwt:2026-12"
        ),
        encoding="utf-8",
    )


def test_diff_says_what_changed_in_each_header(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bank = repo / "memory-bank"
    change(bank)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "pr")  # committed and uncommitted changes read alike
    (bank / "oauth2.md").write_text(FILES["oauth2.md"] + "More about consent.\n", encoding="utf-8")
    code, out, err = run_cli(capsys, "diff", "main", str(bank))
    assert code == 0, err
    lines = out.splitlines()
    said = {line.partition("  (")[0]: line.partition("  (")[2] for line in lines}
    assert said["jwt: +keyword JWKS, SIMILAR_HIGH oauth2 re-validated 2026-12"].endswith(
        "memory-bank/jwt.md)"
    )
    text = "\n".join(lines)
    assert "billing: new file billing.md" in text and "SIMILAR_MID jwt" in text
    assert "redis: removed (redis.md)" in text
    assert "oauth2: body changed, header unchanged (VALIDATED still 2025-05)" in text
    assert "cart" not in text and "legacy" not in text
    assert lines[-1] == "4 knowledge files changed since main."


def test_check_changed_checks_the_changed_files_and_what_they_relate_to(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bank = repo / "memory-bank"
    change(bank)
    code, out, _ = run_cli(capsys, "check", str(bank), "--changed", "main", "--no-cache")
    # cart.md did not change, but relates to redis, which the change removed: CKP041 there.
    assert code == 1
    assert "cart.md:" in out and "CKP041" in out and "'redis'" in out
    assert "CKP070" in out  # the index was not regenerated
    assert "legacy.md" not in out  # unrelated: its own error is not this change's
    code, out, _ = run_cli(capsys, "check", str(bank), "--no-cache")
    assert "legacy.md" in out  # as a full check shows


def test_check_changed_with_nothing_changed_passes(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "check", str(repo / "memory-bank"), "--changed", "--no-cache")
    assert code == 0 and "No knowledge file changed since HEAD" in out


def test_a_bad_revision_is_a_usage_error(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for rev in ("no-such-branch", "--output=/tmp/x"):
        code, _, err = run_cli(capsys, "diff", "--", rev, str(repo / "memory-bank"))
        assert code == 2 and ("names no commit" in err or "is not a revision" in err), err


def test_reading_git_runs_no_program_of_the_repository(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bank = repo / "memory-bank"
    marker = repo.parent / "ran"
    evil = f"sh -c 'echo ran >> {marker}; cat'"
    for key, value in (
        ("core.fsmonitor", evil),
        ("core.pager", evil),
        ("diff.evil.textconv", evil),
        ("diff.external", evil),
        ("filter.evil.clean", evil),
        ("filter.evil.smudge", evil),
        ("filter.evil.process", evil),
    ):
        git(repo, "config", "--local", key, value)
    (repo / ".gitattributes").write_text("*.md diff=evil filter=evil\n", encoding="utf-8")
    hooks = repo / ".git" / "hooks"
    for name in ("post-checkout", "pre-commit", "reference-transaction"):
        (hooks / name).write_text(f"#!/bin/sh\necho ran >> {marker}\n", encoding="utf-8")
        (hooks / name).chmod(0o755)
    change(bank)
    assert run_cli(capsys, "diff", "main", str(bank))[0] == 0
    assert run_cli(capsys, "check", str(bank), "--changed", "main", "--no-cache")[0] == 1
    assert not marker.exists(), marker.read_text()


def test_describe_change_of_tiers_confidence_and_concept() -> None:
    old = bare_header(
        CONCEPT="jwt", SIMILAR_HIGH="oauth2:2026-05", SIMILAR_MID="redis:2026-05", CONFIDENCE="medium"
    )
    new = bare_header(CONCEPT="jwt-auth", SIMILAR_MID="oauth2:2026-05", CONFIDENCE="high")
    said = describe_change("jwt.md", old, new)
    assert said == (
        "jwt-auth: CONCEPT jwt → jwt-auth, SIMILAR_HIGH → SIMILAR_MID oauth2, \u2212SIMILAR_MID redis, "
        "CONFIDENCE medium → high"
    )
    assert describe_change("jwt.md", old, old) is None


def test_the_readme_workflow_checks_and_benchmarks() -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Review shows what changed", 1)[1]
    snippet = section.split("```yaml\n", 1)[1].split("```", 1)[0]
    workflow = yaml.safe_load(snippet)
    assert workflow[True if True in workflow else "on"] == "pull_request"  # YAML 1.1 reads `on` as true
    steps = workflow["jobs"]["ckp"]["steps"]
    runs = [s["run"] for s in steps if "run" in s]
    assert any(r.startswith("ckp check --changed ") for r in runs)
    assert any(r.startswith("ckp bench ") for r in runs)
    checkout = next(s for s in steps if s.get("uses", "").startswith("actions/checkout"))
    assert checkout["with"]["fetch-depth"] == 0  # the base revision is there to compare with
