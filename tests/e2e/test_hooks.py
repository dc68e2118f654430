"""``ckp hook`` run as each agent host runs it: installed by ``ckp hooks install``, started as a
child process with the command the host's configuration holds, the host's documented JSON on stdin
(``tests/data/hooks``, each file naming its source) and its environment (``CLAUDE_PROJECT_DIR``)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.copies import copy_tree

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "data" / "hooks"
MENTAT = ROOT / "samples" / "mentat" / "memory-bank"
BIN = Path(sys.executable).parent
QUESTION = "How do the JWT guards protect NestJS routes?"
OUT_OF_DOMAIN = "What is the weather like in Lisbon this weekend?"


def fixture(name: str, project: Path, prompt: str = QUESTION) -> str:
    """A host's documented input, its comment lines dropped, for ``project`` and ``prompt``."""
    lines = [
        x
        for x in (FIXTURES / f"{name}.jsonc").read_text(encoding="utf-8").splitlines()
        if not x.startswith("//")
    ]
    text = "\n".join(lines)
    text = text.replace("$PROJECT", json.dumps(str(project))[1:-1]).replace(
        "$PROMPT", json.dumps(prompt)[1:-1]
    )
    json.loads(text)  # the fixture is the JSON the host sends
    return text


def environment(tmp: Path, **extra: str) -> dict[str, str]:
    """What a host gives its hooks: a PATH with ckp on it, a home, and its own variables."""
    return {
        "PATH": f"{BIN}{os.pathsep}/usr/bin{os.pathsep}/bin",
        "HOME": str(tmp / "home"),
        "XDG_CONFIG_HOME": str(tmp / "home" / ".config"),
        **({"PYTHONDONTWRITEBYTECODE": "1"} if os.environ.get("PYTHONDONTWRITEBYTECODE") else {}),
        **extra,
    }


def mentat_project(tmp_path: Path) -> Path:
    """A project with the mentat sample as its memory bank (and a home folder beside it)."""
    proj = tmp_path / "shop"
    copy_tree(MENTAT, proj / "memory-bank")
    (tmp_path / "home").mkdir()
    return proj


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project with the mentat sample as its memory bank."""
    return mentat_project(tmp_path)


def ckp(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "ckp"), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


def install(host: str, project: Path) -> None:
    done = ckp("hooks", "install", host, str(project), cwd=project, env=environment(project.parent))
    assert done.returncode == 0, done.stderr


def host_command(host: str, event: str, project: Path) -> list[str]:
    """The command line the host's configuration holds for ``event``, as the host starts it."""
    if host == "cline":
        script = project / ".clinerules" / "hooks" / event
        assert os.access(script, os.X_OK)
        return [str(script)]
    files = {
        "claude-code": ".claude/settings.json",
        "codex": ".codex/hooks.json",
        "cursor": ".cursor/hooks.json",
        "copilot": ".github/hooks/ckp.json",
    }
    config = json.loads((project / files[host]).read_text(encoding="utf-8"))
    entries = config["hooks"][event]
    if host in ("claude-code", "codex"):  # matcher groups, each with its hooks
        commands = [h["command"] for group in entries for h in group["hooks"]]
    else:
        commands = [e["command"] for e in entries]
    ours = [c for c in commands if " hook " in f" {c} "]
    assert len(ours) == 1
    return ["sh", "-c", ours[0]]


def run_hook(argv: list[str], stdin: str | bytes, project: Path, **env: str) -> tuple[int, str, str]:
    data = stdin.encode() if isinstance(stdin, str) else stdin
    done = subprocess.run(
        argv,
        input=data,
        cwd=project,
        env=environment(project.parent, **env),
        capture_output=True,
        timeout=120,
    )
    return done.returncode, done.stdout.decode(), done.stderr.decode()


def context_of(host: str, event: str, out: str) -> str:
    """The context a host reads from the hook's stdout, checked against the host's output shape."""
    value: Any = json.loads(out)
    if host == "cline":
        assert value["cancel"] is False and set(value) == {"cancel", "contextModification"}
        return str(value["contextModification"])
    if host == "cursor":
        assert set(value) == {"additional_context"}
        return str(value["additional_context"])
    assert set(value) == {"hookSpecificOutput"}
    specific = value["hookSpecificOutput"]
    assert specific["hookEventName"] == event and set(specific) == {"hookEventName", "additionalContext"}
    return str(specific["additionalContext"])


PROMPT_HOOKS = [
    ("claude-code", "UserPromptSubmit"),
    ("codex", "UserPromptSubmit"),
    ("cline", "UserPromptSubmit"),
]
SESSION_HOOKS = [
    ("claude-code", "SessionStart"),
    ("codex", "SessionStart"),
    ("cline", "TaskStart"),
    ("cursor", "sessionStart"),
    ("copilot", "SessionStart"),
]


@pytest.mark.parametrize(("host", "event"), PROMPT_HOOKS)
def test_a_prompt_gets_the_routed_files_in_the_hosts_output(host: str, event: str, project: Path) -> None:
    install(host, project)
    code, out, err = run_hook(
        host_command(host, event, project),
        fixture(f"{host}.{event}", project),
        project,
        **({"CLAUDE_PROJECT_DIR": str(project)} if host == "claude-code" else {}),
    )
    assert code == 0 and err == ""
    context = context_of(host, event, out)
    first = context.splitlines()[0]
    assert re.match(r"\[CKP: loaded [34]/11 files — match: patterns/auth\.md via ", first) and first.endswith(
        "]"
    )
    auth = (project / "memory-bank/patterns/auth.md").read_text(encoding="utf-8")
    assert f'<bank-file path="memory-bank/patterns/auth.md">\n{auth.rstrip()}\n</bank-file>' in context
    assert '<bank-file path="memory-bank/patterns/jwt.md"' in context  # whole, or its TLDR and sections
    assert context.count("<bank-file ") >= 3 and len(context) <= 10_000


@pytest.mark.parametrize(("host", "event"), SESSION_HOOKS)
def test_a_session_start_gets_a_short_summary_never_the_whole_index(
    host: str, event: str, project: Path
) -> None:
    install(host, project)
    code, out, err = run_hook(
        host_command(host, event, project), fixture(f"{host}.{event}", project), project
    )
    assert code == 0 and err == ""
    context = context_of(host, event, out)
    assert context.startswith("[CKP: memory bank memory-bank/ — 11 concepts.")
    assert "- jwt (patterns/jwt.md): How the projects issue, sign, verify and rotate" in context
    index = (project / "memory-bank/_index.md").read_text(encoding="utf-8")
    assert len(context) <= 2_000 < len(index) and "| CONCEPT |" not in context


def test_the_budget_keeps_the_context_within_max_chars_and_the_declaration_says_what_it_cut(
    project: Path,
) -> None:
    argv = [str(BIN / "ckp"), "hook", "claude-code", "UserPromptSubmit", "--max-chars", "2500"]
    stdin = fixture("claude-code.UserPromptSubmit", project)
    code, out, err = run_hook(argv, stdin, project, CLAUDE_PROJECT_DIR=str(project))
    assert code == 0 and err == ""
    context = context_of("claude-code", "UserPromptSubmit", out)
    assert len(context) <= 2500
    first = context.splitlines()[0]
    assert "; budget ~" in first and ("as TLDR and matching sections" in first or "left out" in first)
    # The primary file comes first; a file cut comes as its TLDR, and says so.
    assert context.index("<bank-file ") == context.index('<bank-file path="memory-bank/patterns/auth.md"')
    assert 'part="sections">\nTLDR: ' in context and "read the file for the rest" in context
    tiny = [*argv[:-1], "200"]
    code, out, err = run_hook(tiny, stdin, project, CLAUDE_PROJECT_DIR=str(project))
    assert (code, out) == (0, "")  # not even the declaration fits: nothing rather than a broken context


@pytest.mark.parametrize(("host", "event"), PROMPT_HOOKS)
def test_out_of_domain_the_hook_prints_nothing(host: str, event: str, project: Path) -> None:
    install(host, project)
    stdin = fixture(f"{host}.{event}", project, OUT_OF_DOMAIN)
    assert run_hook(host_command(host, event, project), stdin, project) == (0, "", "")


def _silent(result: tuple[int, str, str]) -> str:
    code, out, err = result
    assert code == 0 and out == ""
    assert err.startswith("ckp hook: ") and err.count("\n") == 1
    return err


def test_every_error_exits_0_with_nothing_on_stdout_and_one_line_on_stderr(
    project: Path, tmp_path: Path
) -> None:
    argv = [str(BIN / "ckp"), "hook", "claude-code", "UserPromptSubmit"]
    good = fixture("claude-code.UserPromptSubmit", project)
    # Bad JSON, not an object, no prompt, not UTF-8.
    assert "not JSON" in _silent(run_hook(argv, "{not json", project))
    assert "not a JSON object" in _silent(run_hook(argv, "[1, 2]", project))
    assert "no prompt" in _silent(run_hook(argv, '{"prompt": ""}', project))
    assert "not UTF-8" in _silent(run_hook(argv, b'{"prompt": "\xff"}', project))
    # No bank.
    empty = tmp_path / "empty"
    empty.mkdir()
    err = _silent(
        run_hook(argv, fixture("claude-code.UserPromptSubmit", empty), empty, CLAUDE_PROJECT_DIR=str(empty))
    )
    assert "no memory bank" in err
    # A named bank that is not there.
    assert "no such bank folder" in _silent(run_hook([*argv, "--bank", "nowhere"], good, project))
    # Unknown host; an event that cannot add context (said, not pretended).
    assert "unknown host" in _silent(
        run_hook([str(BIN / "ckp"), "hook", "vim", "UserPromptSubmit"], good, project)
    )
    cursor = fixture("cursor.beforeSubmitPrompt", project)
    assert "can only allow or block" in _silent(
        run_hook([str(BIN / "ckp"), "hook", "cursor", "beforeSubmitPrompt"], cursor, project)
    )
    copilot = fixture("copilot.userPromptSubmitted", project)
    assert "does not read the output" in _silent(
        run_hook([str(BIN / "ckp"), "hook", "copilot", "userPromptSubmitted"], copilot, project)
    )


def test_a_broken_bank_is_silent_too(project: Path) -> None:
    argv = [str(BIN / "ckp"), "hook", "claude-code", "UserPromptSubmit"]
    stdin = fixture("claude-code.UserPromptSubmit", project)
    bank = project / "memory-bank"
    # A bank without any header: nothing can match.
    for f in bank.rglob("*.md"):
        if f.name != "_index.md":
            f.write_text("# Notes\n\nNo header here.\n", encoding="utf-8")
    assert "is not compiled" in _silent(run_hook(argv, stdin, project, CLAUDE_PROJECT_DIR=str(project)))
    # A cache of garbage, a settings file that is not TOML, front matter that is not YAML.
    shutil.rmtree(bank)
    copy_tree(MENTAT, bank)
    run_hook(argv, stdin, project, CLAUDE_PROJECT_DIR=str(project))  # writes the cache
    for cache in (bank / ".ckp-cache").glob("*"):
        if cache.is_file() and cache.name != ".gitignore":
            cache.write_bytes(os.urandom(4096))
    (bank / ".ckp.toml").write_text("[this is = not toml\n", encoding="utf-8")
    (bank / "broken.md").write_text(
        "---\nCONCEPT: [unclosed\nTLDR: !!int abc\n---\nBody.\n", encoding="utf-8"
    )
    code, out, err = run_hook(argv, stdin, project, CLAUDE_PROJECT_DIR=str(project))
    assert code == 0 and err.count("\n") <= 1
    if out:  # the readable files still answer
        assert context_of("claude-code", "UserPromptSubmit", out).startswith("[CKP: loaded ")


def test_a_host_started_in_a_sub_folder_finds_the_bank_its_hook_names(project: Path) -> None:
    install("codex", project)
    (project / ".git").mkdir()
    sub = project / "src" / "api"
    sub.mkdir(parents=True)
    command = host_command("codex", "UserPromptSubmit", project)
    stdin = fixture("codex.UserPromptSubmit", sub)
    code, out, err = run_hook(command, stdin, sub)
    assert code == 0 and err == ""
    assert re.match(r"\[CKP: loaded [34]/11 files", context_of("codex", "UserPromptSubmit", out))
