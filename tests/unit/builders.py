"""What the unit tests build from: banks from short texts, files on disk, spans of text, CLI runs."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from ckp_lsp.cli.main import main
from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.format.dates import CkpDate
from ckp_lsp.core.format.text import Span, decode, split_lines, utf16_len
from ckp_lsp.core.project.config import Config
from ckp_lsp.core.project.discovery import INDEX_NAME
from ckp_lsp.faces.clock import today
from tests.copies import copy_tree

DATA = Path(__file__).resolve().parent.parent / "data"
SHOP = DATA / "shop" / "memory-bank"
FAULTY = DATA / "faulty" / "memory-bank"
#: the bank the compile tests write to, at ``memory-bank`` in this folder
COMPILE = DATA / "compile" / "bank"
HEADERS = DATA / "headers"

#: the day of the test run, as a face gives it to the banks it reads
TODAY = today()

#: a complete, valid bare header; ``bare_header`` overrides its fields
BASE_FIELDS = {
    "CONCEPT": "jwt",
    "TLDR": "How access tokens are signed.",
    "ANSWERS_WHEN": "jwt, access token",
    "VALIDATED": "2025-05",
}


def bare_header(**fields: str | None) -> str:
    """A bare-form file: the base header with ``fields`` changed (None drops one), then a body."""
    merged = {**BASE_FIELDS, **fields}
    lines = [f"{key}: {value}" for key, value in merged.items() if value is not None]
    return "\n".join(lines) + "\n\nBody.\n"


def bank_of_texts(
    files: Mapping[str, str | bytes], config: Config | None = None, today: CkpDate | None = TODAY
) -> Bank:
    """A bank held in memory, given the day ``today``; ``_index.md`` becomes its index text, bytes
    are decoded as from disk."""
    bank = Bank(Path("/nonexistent/memory-bank"), config, today=today)
    for rel, content in files.items():
        text, utf8 = decode(content) if isinstance(content, bytes) else (content, True)
        if rel == INDEX_NAME:
            bank.index_text = text
        else:
            bank.set_file(rel, text, utf8)
    return bank


def write_files(root: Path, files: Mapping[str, str | bytes]) -> Path:
    """Write ``files`` (bank-relative paths) below ``root`` byte for byte; returns ``root``."""
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return root


def copy_bank(source: Path, dest: Path) -> Path:
    """A writable copy of a data bank."""
    copy_tree(source, dest)
    return dest


def copy_to_cwd(source: Path, dest: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A writable copy of ``source`` at ``dest``, whose parent becomes the current folder."""
    monkeypatch.chdir(dest.parent)
    return copy_bank(source, dest)


def bank_in_cwd(folder: Path, files: Mapping[str, str | bytes], monkeypatch: pytest.MonkeyPatch) -> Path:
    """A bank of ``files`` at ``folder/memory-bank``, ``folder`` the current folder, no bank above it."""
    monkeypatch.chdir(folder)
    return alone(write_files(folder / "memory-bank", files))


def snapshot_files(root: Path) -> dict[str, bytes]:
    """Every file below ``root``, by its POSIX path relative to ``root``, with its bytes."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``ckp *argv`` called in-process: its exit code, stdout and stderr."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def edit_on_disk_during(
    monkeypatch: pytest.MonkeyPatch, owner: object, name: str, path: Path, typed: str
) -> str:
    """Make ``owner.name(bank, rel, ...)``, once it has worked on the file ``path``, append ``typed``
    to that file on disk, as a user typing meanwhile does; returns the text the file then holds."""
    edited = path.read_text(encoding="utf-8") + typed
    real = getattr(owner, name)

    def then_edit(bank: Bank, rel: str, *args: Any, **kwargs: Any) -> Any:
        result = real(bank, rel, *args, **kwargs)
        if (bank.root / rel).resolve() == path.resolve():
            path.write_text(edited, encoding="utf-8")
        return result

    monkeypatch.setattr(owner, name, then_edit)
    return edited


def span_of_text(text: str, needle: str, nth: int = 0, after: str = "") -> Span:
    """Span of the ``nth`` occurrence of ``needle`` (after ``after`` on its line; ASCII) in ``text``."""
    seen = 0
    for no, line in enumerate(split_lines(text)):
        if after not in line:
            continue
        start = line.find(needle, line.index(after) + len(after))
        while start >= 0:
            if seen == nth:
                return Span(no, start, no, start + len(needle))
            seen += 1
            start = line.find(needle, start + 1)
    raise AssertionError(f"{needle!r} does not occur {nth + 1} time(s) in the text")


def text_at(text: str, span: Span) -> str:
    """The text a one-line span covers, counting UTF-16 columns."""
    assert span.start_line == span.end_line
    line = split_lines(text)[span.start_line]
    units = line.encode("utf-16-le")
    return units[span.start_col * 2 : span.end_col * 2].decode("utf-16-le")


def assert_inside(text: str, span: Span) -> None:
    """``span`` is ordered and lies inside ``text`` as an editor counts lines and UTF-16 columns."""
    lines = split_lines(text)
    assert (span.start_line, span.start_col) <= (span.end_line, span.end_col), span
    assert 0 <= span.start_line <= span.end_line < len(lines), (span, len(lines))
    assert 0 <= span.start_col <= utf16_len(lines[span.start_line]), (span, lines[span.start_line])
    assert 0 <= span.end_col <= utf16_len(lines[span.end_line]), (span, lines[span.end_line])


GIT_ENV = {
    "GIT_AUTHOR_NAME": "ckp tests",
    "GIT_AUTHOR_EMAIL": "tests@example.invalid",
    "GIT_COMMITTER_NAME": "ckp tests",
    "GIT_COMMITTER_EMAIL": "tests@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}


def git(repo: Path, *args: str, date: str | None = None) -> None:
    """Run git in ``repo`` with a fixed identity (and commit date, e.g. ``2025-08-01T12:00:00``)."""
    env = {**os.environ, **GIT_ENV}
    if date is not None:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = f"{date} +0000"
    subprocess.run(["git", "-C", str(repo), *args], check=True, env=env, capture_output=True)


def run_ckp(
    args: list[str], cwd: Path, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``ckp *args`` as a child process in ``cwd``, with ``env`` on top of this environment and this
    checkout first on the path; no input, two minutes at most."""
    return subprocess.run(
        [sys.executable, "-m", "ckp_lsp.cli.main", *args],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2]), **(env or {})},
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )


def run_python(code: str, env: Mapping[str, str] | None = None) -> str:
    """What ``python -c code`` prints, run in this checkout (``env``: the whole environment)."""
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=root, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def alone(bank: Path) -> Path:
    """``bank``, once sure no folder above it is a bank: a command run on it would take that one
    (an ``_index.md`` left at ``/`` makes the whole machine one bank)."""
    from ckp_lsp.core.project.discovery import bank_of

    assert bank_of(bank) == bank.resolve(), f"{bank_of(bank)} holds {bank}: refusing to run on it"
    return bank


def remove_nested(folder: Path) -> None:
    """Remove ``folder`` and any depth of folders below it without recursion (``shutil.rmtree``
    recurses once per level, and so does pytest's clean-up of old temporary folders)."""
    if not folder.exists():
        return
    fds = [os.open(folder, os.O_RDONLY)]
    names: list[str] = []  # the folder entered at each level below ``folder``
    try:
        while True:
            sub = None
            for name in os.listdir(fds[-1]):
                if stat.S_ISDIR(os.stat(name, dir_fd=fds[-1], follow_symlinks=False).st_mode):
                    sub = name
                    break
                os.unlink(name, dir_fd=fds[-1])
            if sub is not None:
                fds.append(os.open(sub, os.O_RDONLY, dir_fd=fds[-1]))
                names.append(sub)
            elif len(fds) > 1:
                os.close(fds.pop())
                os.rmdir(names.pop(), dir_fd=fds[-1])
            else:
                break
    finally:
        for fd in fds:
            os.close(fd)
    os.rmdir(folder)
