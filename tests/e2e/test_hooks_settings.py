"""``ckp hooks install|remove`` as a user runs them, on settings a user wrote: ours is told from
theirs exactly, every value is written back as it was, and a file that cannot be kept whole is
left untouched with a message."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e import test_hooks
from tests.e2e.test_hooks import ckp, environment

AUDIT = "./audit.sh --tag 'ckp hook claude-code review'"
LOOKALIKES = [
    AUDIT,
    "echo ckp hook claude-code UserPromptSubmit",
    "ckp hook claude-code UserPromptSubmit | tee x",
]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project with the mentat sample as its memory bank (as in test_hooks)."""
    return test_hooks.mentat_project(tmp_path)


def _run(project: Path, *args: str) -> tuple[int, str]:
    done = ckp("hooks", *args, "claude-code", str(project), cwd=project, env=environment(project.parent))
    return done.returncode, done.stderr


def _settings(project: Path) -> Path:
    (project / ".claude").mkdir(exist_ok=True)
    return project / ".claude" / "settings.json"


def _commands(text: str) -> list[str]:
    value = json.loads(text)
    return [h["command"] for g in value["hooks"]["UserPromptSubmit"] for h in g["hooks"]]


def test_a_users_hook_that_mentions_ours_is_kept_by_install_and_remove(project: Path) -> None:
    path = _settings(project)
    theirs = [{"hooks": [{"type": "command", "command": c}]} for c in LOOKALIKES]
    path.write_text(json.dumps({"hooks": {"UserPromptSubmit": theirs}}), encoding="utf-8")
    assert _run(project, "install") == (0, "")
    commands = _commands(path.read_text(encoding="utf-8"))
    assert commands[:3] == LOOKALIKES and commands[3].startswith("ckp hook claude-code UserPromptSubmit")
    assert _run(project, "install")[0] == 0  # again: ours replaced, never doubled, theirs kept
    assert _commands(path.read_text(encoding="utf-8")) == commands
    assert _run(project, "remove")[0] == 0
    value = json.loads(path.read_text(encoding="utf-8"))
    assert value == {"hooks": {"UserPromptSubmit": theirs}}


def test_every_number_is_written_back_as_it_was_written(project: Path) -> None:
    path = _settings(project)
    path.write_text('{"a": 1e400, "b": 1.00000000000000000001, "c": [-0, 2.50, 10E-3], "model": "opus"}\n')
    assert _run(project, "install")[0] == 0
    text = path.read_text(encoding="utf-8")
    assert '"a": 1e400' in text and '"b": 1.00000000000000000001' in text and "Infinity" not in text
    assert "-0,\n" in text and "2.50,\n" in text and "10E-3\n" in text
    assert _run(project, "remove")[0] == 0
    assert json.loads(path.read_text(encoding="utf-8"), parse_float=str) == {
        "a": "1e400",
        "b": "1.00000000000000000001",
        "c": [0, "2.50", "10E-3"],
        "model": "opus",
    }


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('{"hooks": {"Stop": []}, "model": "a", "hooks": {"PreToolUse": []}}', "'hooks' is written twice"),
        ('{"a": NaN}', "NaN is not JSON"),
        ("[" * 200_000 + "]" * 200_000, "nested too deeply"),
        ('{"a": {"b": ' * 5000 + "1" + "}}" * 5000, "nested too deeply"),
    ],
    ids=["duplicate keys", "NaN", "deep lists", "deep objects"],
)
def test_settings_that_cannot_be_kept_whole_are_left_untouched_with_a_message(
    project: Path, text: str, said: str
) -> None:
    path = _settings(project)
    path.write_text(text, encoding="utf-8")
    for action in ("install", "remove"):
        code, err = _run(project, action)
        assert code == 1 and said in err and "Traceback" not in err, err
        assert err.count("\n") == 1
        assert path.read_text(encoding="utf-8") == text
    done = ckp("init", "--hooks", "claude-code", cwd=project, env=environment(project.parent))
    assert "Traceback" not in done.stderr and said in done.stderr and path.read_text(encoding="utf-8") == text
