"""A malformed bank through the real server, the real ``ckp mcp`` and the real ``ckp``: the bad
file is a finding or is skipped with a message; every other file is still checked."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.unit.builders import remove_nested

from .harness import Session, wait_for
from .test_mcp import call, serve

#: a good file with one finding (a duplicate keyword): seen only if the bank was checked
GOOD = "CONCEPT: good\nTLDR: The good file.\nANSWERS_WHEN: good, good\nVALIDATED: 2025-05\n\nBody.\n"
TAGGED = "---\nCONCEPT: tagged\nTLDR: !!int abc\nANSWERS_WHEN: !!bool maybe\n---\n\nBody.\n"


def with_tags(bank: Path) -> str:
    (bank / "tagged.md").write_text(TAGGED, encoding="utf-8")
    return "tagged.md"


def with_bytes_names(bank: Path) -> str:
    """A file and a folder whose names are not UTF-8 (Linux allows any bytes but / and NUL)."""
    (bank / os.fsdecode(b"\xff.md")).write_bytes(b"CONCEPT: bad\nTLDR: Bad.\nANSWERS_WHEN: bad\n")
    (bank / os.fsdecode(b"dir\xfe")).mkdir()
    (bank / os.fsdecode(b"dir\xfe") / "inner.md").write_text(GOOD.replace("good", "inner"))
    return "\\xff.md"


def nest(folder: Path, depth: int) -> int:
    """``depth`` folders ``d/d/…`` below ``folder`` (made through descriptors: a path that long
    cannot be named at once); the descriptor of the deepest one."""
    fd = os.open(folder, os.O_RDONLY)
    for _ in range(depth):
        os.mkdir("d", dir_fd=fd)
        inner = os.open("d", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = inner
    return fd


def with_deep_folders(bank: Path) -> str:
    """A thousand nested folders beside the bank and inside it, a knowledge file at the bottom."""
    os.close(nest(bank.parent, 1000))
    fd = nest(bank, 1000)
    out = os.open("x.md", os.O_WRONLY | os.O_CREAT, dir_fd=fd)
    os.write(out, b"CONCEPT: x\nTLDR: X.\nANSWERS_WHEN: x\n")
    os.close(out)
    os.close(fd)
    return "d/" * 64


#: each malformation: it builds itself into the bank and returns what a message must name
MALFORMED: dict[str, Callable[[Path], str]] = {
    "yaml-tags": with_tags,
    "bytes-names": with_bytes_names,
    "deep-folders": with_deep_folders,
}


@pytest.fixture(autouse=True)
def removed(tmp_path: Path) -> Iterator[None]:
    """The nested folders go at the end: pytest's own clean-up of old folders would recurse."""
    yield
    remove_nested(tmp_path)


def malformed_bank(tmp_path: Path, kind: str) -> tuple[Path, Path, str]:
    ws = tmp_path / "ws"
    bank = ws / "memory-bank"
    bank.mkdir(parents=True)
    (bank / "good.md").write_text(GOOD, encoding="utf-8")
    named = MALFORMED[kind](bank)
    return ws, bank, named


@pytest.mark.parametrize("kind", list(MALFORMED))
async def test_the_server_checks_the_rest_of_a_malformed_bank(tmp_path: Path, kind: str) -> None:
    ws, bank, named = malformed_bank(tmp_path, kind)
    good = (bank / "good.md").as_uri()
    async with Session.indexed(ws) as session:
        await wait_for(lambda: "CKP030" in {str(d.code) for d in session.client.diagnostics.get(good, [])})
        if kind == "yaml-tags":
            tagged = (bank / "tagged.md").as_uri()
            await wait_for(lambda: bool(session.client.diagnostics.get(tagged)))
            assert [str(d.code) for d in session.client.diagnostics[tagged]] == ["CKP006"]
        assert not session.failures(), session.failures()
        if kind == "bytes-names":
            logs = "\n".join(session.logs())
            assert f"{bank}/{named}: skipped (a file name that is not valid UTF-8)" in logs, logs
            assert f"{bank}/dir\\xfe: skipped (a folder name that is not valid UTF-8)" in logs, logs
        if kind == "deep-folders":
            logs = "\n".join(session.logs())
            assert f"{bank}/{named}d: skipped (a folder nested more than 64 levels deep)" in logs, logs
    assert "Traceback" not in session.stderr, session.stderr


@pytest.mark.parametrize("kind", list(MALFORMED))
async def test_ckp_mcp_serves_a_malformed_bank(tmp_path: Path, kind: str) -> None:
    ws, bank, _named = malformed_bank(tmp_path, kind)
    async with serve(ws) as s:
        checked = await call(s, "ckp_check")
        routed = await call(s, "ckp_route", query="good")
        if kind == "bytes-names":  # one more, seen by the next call's look at the folders
            (bank / os.fsdecode(b"late\xfd.md")).write_text(GOOD.replace("good", "late"))
        routed_again = await call(s, "ckp_route", query="good")
    found = {(Path(d["file"]).name, d["code"]) for d in checked["diagnostics"]}
    assert ("good.md", "CKP030") in found
    if kind == "yaml-tags":
        assert ("tagged.md", "CKP006") in found
    # answered, before and after the bank changed (what a route loads is the router's business)
    assert isinstance(routed["loaded"], list) and isinstance(routed_again["loaded"], list)


@pytest.mark.parametrize("kind", list(MALFORMED))
@pytest.mark.parametrize("command", ["check", "index", "fix"])
def test_ckp_commands_go_on_past_a_malformed_file(tmp_path: Path, kind: str, command: str) -> None:
    ws, bank, named = malformed_bank(tmp_path, kind)
    run = subprocess.run(
        [sys.executable, "-m", "ckp_lsp.cli.main", command, *([] if command == "check" else [str(bank)])],
        capture_output=True,
        cwd=ws,
        timeout=120,
        env={**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")},
    )
    stderr = run.stderr.decode("utf-8", "replace")
    assert "Traceback" not in stderr, stderr
    assert run.returncode in (0, 1), stderr
    if command == "check":
        assert b"CKP030" in run.stdout
    if kind == "bytes-names":
        assert f"{named}: skipped (a file name that is not valid UTF-8)" in stderr, stderr
        assert "dir\\xfe: skipped (a folder name that is not valid UTF-8)" in stderr, stderr
    if kind == "deep-folders":
        assert f"{named}d: skipped (a folder nested more than 64 levels deep)" in stderr, stderr
        if command == "check":
            assert "folders nested more than 64 levels deep are not searched for banks" in stderr, stderr
    if command == "index":
        assert "good" in (bank / "_index.md").read_text(encoding="utf-8")
