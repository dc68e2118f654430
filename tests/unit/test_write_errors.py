"""A write the system refuses (full disk, read-only folder, a name at the length limit) is reported
for its file, the run goes on with the others, and the command exits 1 without a traceback."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Any

import pytest

from ckp_lsp.cli.main import main
from tests.unit.builders import alone, bank_in_cwd, bare_header, write_files

ROOT = Path(__file__).resolve().parents[2]
HANG = 120


def _fixable(concept: str) -> str:
    return bare_header(CONCEPT=concept, ANSWERS_WHEN=f"{concept}, {concept}, food")


def _fixed(concept: str) -> str:
    return bare_header(CONCEPT=concept, ANSWERS_WHEN=f"{concept}, food")


@pytest.fixture
def bank(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return bank_in_cwd(
        tmp_path, {"a.md": _fixable("a"), "b/b.md": _fixable("b"), "c.md": _fixable("c")}, monkeypatch
    )


def test_a_name_of_242_bytes_is_fixed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    name = "é" * 119 + "x.md"  # 242 bytes: the temporary file's name must still fit in 255
    assert len(name.encode()) == 242
    bank = alone(write_files(tmp_path / "memory-bank", {name: _fixable("long")}))
    assert main(["fix", str(bank)]) == 0
    assert (bank / name).read_text() == _fixed("long")
    assert sorted(p.name for p in bank.iterdir()) == sorted([name, "_index.md"])


def _fail_in(monkeypatch: pytest.MonkeyPatch, folder: Path, error: OSError) -> None:
    """Every temporary file in ``folder`` fails to be created, as in a read-only folder."""
    real = tempfile.mkstemp

    def mkstemp(*args: Any, **kwargs: Any) -> tuple[int, str]:
        if Path(kwargs.get("dir", "")) == folder:
            raise error
        return real(*args, **kwargs)

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)


@pytest.mark.parametrize(
    "error",
    [
        OSError(errno.ENOSPC, "No space left on device"),
        PermissionError(errno.EACCES, "Permission denied"),
        OSError(errno.EROFS, "Read-only file system"),
    ],
    ids=["full disk", "read-only folder", "read-only file system"],
)
def test_a_refused_write_is_reported_per_file_and_the_run_goes_on(
    bank: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], error: OSError
) -> None:
    _fail_in(monkeypatch, bank / "b", error)
    assert main(["fix", str(bank)]) == 1
    err = capsys.readouterr().err
    assert f"b.md: cannot be written ({error.strerror})" in err and "Traceback" not in err
    assert (bank / "b" / "b.md").read_text() == _fixable("b")
    assert (bank / "a.md").read_text() == _fixed("a") and (bank / "c.md").read_text() == _fixed("c")
    assert (bank / "_index.md").exists()


def test_a_read_only_folder_for_real(bank: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (bank / "b").chmod(0o555)
    try:
        code = main(["fix", str(bank)])
    finally:
        (bank / "b").chmod(0o755)
    if os.geteuid() == 0:  # root writes into a read-only folder: the file is fixed
        assert code == 0 and (bank / "b" / "b.md").read_text() == _fixed("b")
    else:
        assert code == 1 and "b.md: cannot be written (Permission denied)" in capsys.readouterr().err
    assert (bank / "a.md").read_text() == _fixed("a")


@pytest.mark.parametrize("command", ["index", "compile"])
def test_index_and_compile_report_a_refused_write(
    bank: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    _fail_in(monkeypatch, bank, OSError(errno.ENOSPC, "No space left on device"))
    args = ["index", str(bank)] if command == "index" else ["compile", str(bank / "a.md"), str(bank / "c.md")]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert "cannot be written (No space left on device)" in err
    if command == "compile":
        assert "a.md: cannot be written" in err and "c.md: cannot be written" in err  # both tried


_CHILD = """
import errno, os, sys
real = os.fsync
def fsync(fd):
    if os.readlink(f"/proc/self/fd/{fd}").split("/")[-1].startswith(".b.md."):
        raise OSError(errno.ENOSPC, "No space left on device")
    real(fd)
os.fsync = fsync
from ckp_lsp.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def test_a_full_disk_in_a_real_run_ends_without_a_traceback(bank: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_CHILD), "fix", str(bank)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=HANG,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert run.returncode == 1, run.stderr
    assert "Traceback" not in run.stderr
    assert "b.md: cannot be written (No space left on device)" in run.stderr
    assert (bank / "a.md").read_text() == _fixed("a") and (bank / "c.md").read_text() == _fixed("c")
    assert (bank / "b" / "b.md").read_text() == _fixable("b")
    assert not [p for p in (bank / "b").iterdir() if p.name.startswith(".")]
