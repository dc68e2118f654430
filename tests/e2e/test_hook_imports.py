"""The prompt hook, run as a host runs it, imports only what routing needs (it runs before every
prompt, and a one-shot process spends most of its time importing)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.test_hooks import mentat_project

CKP = Path(sys.executable).with_name("ckp")
#: every word of five letters or more is a word of the bank's keywords, or too far from all of them
#: to be a typo of one
EXACT = "How do the JWT guards protect NestJS routes?"
#: "prophett" is a typo of the keyword "Prophet"
TYPO = "How is the prophett model trained?"

#: what routing from the kept snapshot never needs: the editor and agent protocols, YAML, file
#: parsing, whole-bank code, the faces' reading of banks and git, OpenSSL (no digest is taken),
#: temporary files, argparse (the hook's arguments are read without it) and diffs, dataclasses
#: (with ``inspect`` and ``ast``: the routing path's classes are plain ones, ``core.format.records``), and,
#: for a question with no typo or a clear one, RapidFuzz
NOT_IMPORTED = (
    "argparse",
    "dataclasses",
    "inspect",
    "ast",
    "difflib",
    "pygls",
    "lsprotocol",
    "mcp",
    "yaml",
    "rapidfuzz",
    "hashlib",
    "_hashlib",
    "tempfile",
    "ckp_lsp.server",
    "ckp_lsp.mcp",
    "ckp_lsp.faces.banks",
    "ckp_lsp.faces.git",
    "ckp_lsp.faces.llm",
    "ckp_lsp.core.bank.bank",
    "ckp_lsp.core.format.knowledge",
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project with the mentat sample as its memory bank (as in test_hooks)."""
    return mentat_project(tmp_path)


#: what the console script ``ckp`` runs, and the modules loaded when it ends written to a file
SCRIPT = """import atexit, sys
import os
atexit.register(lambda: open(os.environ["MODULES"], "w").write("\\n".join(sorted(sys.modules))))
from ckp_lsp.cli.main import main
sys.argv[0] = "ckp"
sys.exit(main())
"""


def imported(project: Path, prompt: str) -> tuple[set[str], str]:
    """The modules one run of the Claude Code hook imports, and what it prints."""
    env = {
        "PATH": f"{CKP.parent}{os.pathsep}/usr/bin{os.pathsep}/bin",
        "HOME": str(project.parent / "home"),
        "CLAUDE_PROJECT_DIR": str(project),
        "MODULES": str(project.parent / "modules.txt"),
    }
    stdin = json.dumps(
        {
            "session_id": "s",
            "transcript_path": str(project / "t.jsonl"),
            "cwd": str(project),
            "hook_event_name": "UserPromptSubmit",
            "prompt": prompt,
        }
    )
    modules, out = run_listed(["hook", "claude-code", "UserPromptSubmit"], project, env, stdin)
    assert "ckp_lsp.cli.hook_cmd" in modules  # the listing is read
    return modules, out


def run_listed(argv: list[str], cwd: Path, env: dict[str, str], stdin: str = "") -> tuple[set[str], str]:
    """The modules ``ckp *argv`` (run as ``SCRIPT``) imports, listed in ``env["MODULES"]``, and its output."""
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, *argv],
        input=stdin,
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return set(Path(env["MODULES"]).read_text(encoding="utf-8").split()), done.stdout


def test_a_prompt_routed_from_the_snapshot_imports_only_what_routing_needs(project: Path) -> None:
    imported(project, EXACT)  # the first prompt of a session builds the snapshot
    modules, out = imported(project, EXACT)
    assert "patterns/auth.md" in json.loads(out)["hookSpecificOutput"]["additionalContext"]
    needless = sorted(m for m in modules if any(m == n or m.startswith(n + ".") for n in NOT_IMPORTED))
    assert needless == []


def test_a_question_word_written_with_a_typo_is_matched_without_importing_rapidfuzz(project: Path) -> None:
    """The ratio of "prophett" and "prophet" is well above the cutoff: it is decided exactly
    without RapidFuzz (``core.routing.typos``; test_typos shows a ratio too close to call import it)."""
    imported(project, EXACT)
    modules, out = imported(project, TYPO)
    assert "rapidfuzz" not in modules
    declaration = json.loads(out)["hookSpecificOutput"]["additionalContext"].split("\n", 1)[0]
    assert "projects/prescient.md via Prophet" in declaration
