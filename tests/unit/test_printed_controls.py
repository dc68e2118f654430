"""Nothing a file holds reaches the terminal as a control character: header values, file names and
messages are printed with ESC, NUL, BEL, C1 controls, bidirectional overrides and a carriage
return inside a line escaped; JSON output stays valid and keeps the values."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from ckp_lsp.cli.main import main
from ckp_lsp.cli.output import Shown, escape_controls, paint
from tests.unit.builders import bank_in_cwd, bare_header

HOSTILE = "\x1b]0;pwned\x07\x1b[2J\x00\x9b31m\u202egnp.exe\x0c"
#: what a terminal would act on: every C0 control but tab and newline, DEL, C1, bidi overrides
RAW = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


@pytest.fixture
def bank(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    files = {
        "evil.md": bare_header(
            CONCEPT="evil",
            TLDR=f"Looks fine {HOSTILE}. Second sentence.",
            ANSWERS_WHEN=f"evil, {HOSTILE}, evil",
            SIMILAR_HIGH=f"gho{HOSTILE}st:2025-05",
        ),
        f"n\x1b[31mame{chr(0x9B)}.md": bare_header(CONCEPT="named", ANSWERS_WHEN="named, named"),
    }
    return bank_in_cwd(tmp_path, files, monkeypatch)


@pytest.mark.parametrize(
    "args",
    [
        ["check"],
        ["route", "BANK", "evil"],
        ["graph"],
        ["fix", "--diff"],
        ["index", "--check"],
        ["compile", "--dry-run", "--diff", "--all"],
    ],
    ids=lambda a: " ".join(a),
)
def test_nothing_printed_holds_a_control_character(
    bank: Path, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    args = [str(bank) if a == "BANK" else a for a in args]
    if args[0] != "route":
        args = [*args, str(bank)]
    main(args)
    out, err = capsys.readouterr()
    assert out + err, "the command printed nothing"
    assert RAW.findall(out + err) == []
    assert "\r" not in (out + err).replace("\r\n", "")


def test_the_escaped_form_is_readable(bank: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["check", str(bank)])
    out = capsys.readouterr().out
    assert "\\u001b]0;pwned\\u0007" in out and "\\u009b" in out and "\\u202e" in out


def test_json_output_stays_valid_and_keeps_the_values(bank: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["check", "--format", "json", str(bank)])
    out, err = capsys.readouterr()
    assert RAW.findall(out + err) == []
    data = json.loads(out)
    files = {d["file"] for d in data["diagnostics"]}
    # A name holding control characters is no file of the bank: skipped, and said so escaped.
    assert files == {"memory-bank/_index.md", "memory-bank/evil.md"}
    assert "n\\x1b[31mame\\x9b.md: skipped (a file name with a control character)" in err, err
    assert any("\x1b]0;pwned" in d["message"] for d in data["diagnostics"])


def test_colours_of_ckp_itself_pass_and_a_progress_return_too() -> None:
    sink = io.StringIO()
    shown = Shown(sink)  # type: ignore[arg-type]
    shown.write(paint("error", "31", True) + " " + HOSTILE + "\n")
    shown.write("\r[###...] 3/6\r")
    assert sink.getvalue().startswith("\x1b[31merror\x1b[0m ")
    assert sink.getvalue().endswith("\n\r[###...] 3/6\r")
    assert RAW.findall(sink.getvalue().replace("\x1b[31m", "").replace("\x1b[0m", "")) == []
    assert escape_controls("a\tb\nc\r\n") == "a\tb\nc\r\n"
    assert escape_controls("shown\rhidden") == "shown\\u000dhidden"  # a return inside a line
