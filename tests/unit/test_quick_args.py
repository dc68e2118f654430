"""The one-shot commands' arguments read without argparse (``cli/quick_args.py``): the same
namespace argparse gives for every plain command line, and argparse for anything else."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ckp_lsp.cli.main import _quick, main, parse

#: command lines in the plain form: read without argparse
PLAIN = [
    ["hook", "claude-code", "UserPromptSubmit"],
    ["hook", "cursor", "beforeSubmitPrompt", "--bank", "docs/memory"],
    ["hook", "codex", "UserPromptSubmit", "--max-chars=2000", "--bank=memory-bank"],
    ["hook", "--max-chars", "500", "cline", "UserPromptSubmit"],
    ["hook", "claude-code", "SessionStart", "--max-chars", "1", "--max-chars", "2"],
    ["hook", "", ""],
    ["route", "memory-bank", "how are invoices reconciled?"],
    ["route", "bank", "jwt", "--format", "json", "--mode", "index", "--max-tokens", "800"],
    ["route", "--mode=ranked", "bank", "a query with = and spaces", "--format=text"],
    ["route", "bank", "--max-tokens=12", "q"],
    ["route", "how are invoices reconciled?"],
    ["route", "--max-tokens", "12", "q", "--format=json"],
    ["route", "q", "--mode", "index"],
]
#: command lines argparse is to read or explain
OTHER = [
    ["hook"],
    ["hook", "-h"],
    ["hook", "claude-code", "UserPromptSubmit", "--help"],
    ["hook", "claude-code", "UserPromptSubmit", "--max", "5"],  # an abbreviation
    ["hook", "claude-code", "UserPromptSubmit", "--max-chars", "many"],
    ["hook", "claude-code", "UserPromptSubmit", "--max-chars"],
    ["hook", "claude-code", "UserPromptSubmit", "--bank", "--max-chars", "5"],
    ["hook", "claude-code", "UserPromptSubmit", "extra"],
    ["hook", "--", "claude-code", "UserPromptSubmit"],
    ["route", "bank", "-x"],
    ["route", "bank", "q", "--format", "yaml"],
    ["route", "bank", "q", "--max-tokens", "-5"],
    ["route"],
    ["route", "bank", "q", "more"],
    ["check", "bank"],
    ["--version"],
    [],
]


def parsed(argv: list[str]) -> dict[str, Any]:
    return vars(parse(argv))


@pytest.mark.parametrize("argv", PLAIN, ids=" ".join)
def test_a_plain_command_line_gives_what_argparse_gives(argv: list[str]) -> None:
    quick = _quick(argv)
    assert quick is not None
    assert vars(quick) == parsed(argv)


@pytest.mark.parametrize("argv", OTHER, ids=" ".join)
def test_any_other_command_line_goes_to_argparse(argv: list[str]) -> None:
    assert _quick(argv) is None


def test_a_bad_value_is_explained_by_argparse(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["hook", "claude-code", "UserPromptSubmit", "--max-chars", "many"])
    assert exit_.value.code == 2
    assert "--max-chars: invalid int value: 'many'" in capsys.readouterr().err


def test_the_hook_process_reads_its_arguments_without_argparse(tmp_path: Path) -> None:
    script = (
        "import sys\n"
        "from ckp_lsp.cli.main import main\n"
        "code = main(['hook', 'claude-code', 'UserPromptSubmit', '--max-chars', '100'])\n"
        "print('argparse' in sys.modules, code)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], input="{}", capture_output=True, text=True, cwd=tmp_path, timeout=60
    )
    assert done.stdout.split() == ["False", "0"], done.stderr
