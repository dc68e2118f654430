"""``ckp hook`` gives the agent no detected secret: the prompt hook and the session-start hook,
run as Claude Code runs them, print placeholders where the bank holds credentials, and say so."""

from __future__ import annotations

from pathlib import Path

from tests.secret_corpus import fake_secrets, settings

from .test_hooks import context_of, fixture, host_command, install, project, run_hook

__all__ = ["project"]  # the fixture, shared with test_hooks

PLANTED = fake_secrets(seed=31)
AWS, GITHUB, PASSWORD, KEY = PLANTED[3], PLANTED[4], PLANTED[16], PLANTED[15]


def tail(value: str) -> str:
    lines = value.strip().splitlines()
    return (lines[-2] if len(lines) > 1 else lines[-1])[-12:]


def plant(project: Path) -> None:
    patterns = project / "memory-bank" / "patterns"
    # In a TLDR (the session summary shows it) ...
    jwt = patterns / "jwt.md"
    lines = jwt.read_text(encoding="utf-8").split("\n")
    at = next(n for n, line in enumerate(lines) if line.startswith("TLDR:"))
    lines[at] = lines[at].rstrip(".") + f", signed in CI with {GITHUB.value}"
    jwt.write_text("\n".join(lines), encoding="utf-8")
    # ... and in the body of the prompt's strong match, a small file the prompt hook gives whole.
    auth = patterns / "auth.md"
    text = auth.read_text(encoding="utf-8")
    text += f"\n## Local setup\n\n{settings(AWS)}\n\n```\n{settings(PASSWORD)}\n{KEY.value}\n```\n"
    auth.write_text(text, encoding="utf-8")


def test_the_prompt_and_session_hooks_print_no_secret(project: Path) -> None:
    plant(project)
    install("claude-code", project)
    for event in ("UserPromptSubmit", "SessionStart"):
        code, out, err = run_hook(
            host_command("claude-code", event, project), fixture(f"claude-code.{event}", project), project
        )
        assert code == 0, err
        for p in (AWS, GITHUB, PASSWORD, KEY):
            assert tail(p.value) not in out + err, (event, p.kind)
        context = context_of("claude-code", event, out)
        assert "<redacted: GITHUB_TOKEN>" in context
        assert "secrets redacted" in context
        if event == "UserPromptSubmit":  # auth.md is given whole, its planted section with it
            assert '<bank-file path="memory-bank/patterns/auth.md">' in context
            assert "## Local setup" in context
            assert "<redacted: AWS_ACCESS_KEY_ID>" in context and "<redacted: PRIVATE_KEY>" in context


def test_a_secret_glued_to_a_url_a_path_or_a_name_and_a_file_named_by_one_reach_no_agent(
    project: Path,
) -> None:
    patterns = project / "memory-bank" / "patterns"
    auth = patterns / "auth.md"  # the file the prompt loads first
    text = auth.read_text(encoding="utf-8")
    text += (
        f"\n## Remote\n\ngit remote set-url origin https://{GITHUB.value}@github.com/org/repo.git\n"
        f"and ~/.tokens/{GITHUB.value}, cfg.{AWS.value}, s3://b/{AWS.value}\n"
    )
    auth.unlink()
    (patterns / f"{GITHUB.value}.md").write_text(text, encoding="utf-8")
    install("claude-code", project)
    code, out, err = run_hook(
        host_command("claude-code", "UserPromptSubmit", project),
        fixture("claude-code.UserPromptSubmit", project),
        project,
    )
    assert code == 0, err
    context = context_of("claude-code", "UserPromptSubmit", out)
    assert "patterns/<redacted: GITHUB_TOKEN>.md" in context, context  # the named file was loaded
    assert "s3://b/<redacted: AWS_ACCESS_KEY_ID>" in context, context
    for p in (AWS, GITHUB):
        assert p.value not in out + err and tail(p.value) not in out + err, p.kind
