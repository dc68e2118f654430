"""The core is a function of what it is given: updated dates and the day come from the caller;
git, the disk's modification times and the clock are read by the faces (``ckp_lsp.faces``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.bank.checks import check_file
from ckp_lsp.core.bank.updated import GivenDates, parse_git_dates
from ckp_lsp.core.format.dates import CkpDate
from ckp_lsp.core.project.config import Config
from ckp_lsp.faces.banks import load_bank
from tests.unit.builders import bank_of_texts, bare_header, write_files

CORE = Path(__file__).resolve().parents[2] / "ckp_lsp" / "core"

REDIS = bare_header(CONCEPT="redis", VALIDATED="2025-06")
CART = bare_header(CONCEPT="cart", SIMILAR_HIGH="redis:2025-06", VALIDATED="2025-06")


def stale(bank: Bank) -> dict[str, str]:
    return {f.data["concept"]: f.data["updated"] for f in check_file(bank, "cart.md") if f.code == "CKP050"}


def test_git_staleness_uses_the_commit_dates_it_is_given(tmp_path: Path) -> None:
    # tmp_path is no git repository: the dates can only come from the caller.
    root = write_files(tmp_path / "memory-bank", {"redis.md": REDIS, "cart.md": CART})
    given = GivenDates(committed={"redis.md": CkpDate(2025, 8, 1), "cart.md": CkpDate(2025, 6, 1)})
    bank = load_bank(root, Config(staleness="git"), dates=given)
    assert stale(bank) == {"redis": "2025-08-01"}
    (finding,) = [f for f in check_file(bank, "cart.md") if f.code == "CKP050"]
    assert "'redis' was last committed on 2025-08-01" in finding.message
    same_month = GivenDates(committed={"redis.md": CkpDate(2025, 6, 20), "cart.md": CkpDate(2025, 6, 1)})
    assert stale(load_bank(root, Config(staleness="git"), dates=same_month)) == {}


def test_mtime_staleness_uses_the_modification_days_it_is_given() -> None:
    root = Path("/nonexistent/memory-bank")
    bank = bank_of_texts({"redis.md": REDIS, "cart.md": CART}, Config(staleness="mtime"))
    assert stale(bank) == {}  # no source given: no modification day is known
    bank.dates = GivenDates(modified={root / "redis.md": CkpDate(2025, 9, 2)})
    assert stale(bank) == {"redis": "2025-09-02"}


def test_git_without_a_repository_falls_back_to_validated(tmp_path: Path) -> None:
    root = write_files(tmp_path / "memory-bank", {"redis.md": REDIS, "cart.md": CART})
    bank = load_bank(root, Config(staleness="git"), dates=GivenDates(committed=None))
    assert stale(bank) == {}
    assert bank.staleness_source == "validated"


def test_git_output_is_parsed_without_the_uncommitted_files() -> None:
    log = "\0" + "2025-08-01\n\nredis.md\n\0" + "2025-06-01\n\nredis.md\ncafé.md\ncart.md\n"
    dates = parse_git_dates(log, "new.md\ncart.md\n")
    assert dates == {"redis.md": CkpDate(2025, 8, 1), "café.md": CkpDate(2025, 6, 1)}


def test_git_dates_an_uncommitted_change_with_the_day_given(tmp_path: Path) -> None:
    # cart.md has no commit date (new, or changed since): it is dated the bank's day.
    root = write_files(tmp_path / "memory-bank", {"redis.md": REDIS, "cart.md": CART})
    given = GivenDates(committed={"cart.md": CkpDate(2025, 6, 1)})
    bank = load_bank(root, Config(staleness="git"), dates=given, today=CkpDate(2025, 9, 3))
    assert bank.updated_date(bank.files["redis.md"]) == CkpDate(2025, 9, 3)
    assert stale(bank) == {"redis": "2025-09-03"}
    # An edit in the editor is uncommitted too; a snapshot carries the day.
    bank.set_file("cart.md", CART + "Typing.\n")
    snap = bank.snapshot()
    assert snap.today == CkpDate(2025, 9, 3) and snap.updated_date(snap.files["cart.md"]) == CkpDate(
        2025, 9, 3
    )
    bank.today = CkpDate(2025, 9, 4)  # the face moves the day on; the snapshot keeps its own
    assert bank.updated_date(bank.files["cart.md"]) == CkpDate(2025, 9, 4)
    assert snap.updated_date(snap.files["cart.md"]) == CkpDate(2025, 9, 3)


# Where the core still reads the clock, and why.
CLOCK_ALLOWED: set[str] = set()  # the trust store is given the time it records


def core_sources() -> dict[str, str]:
    return {p.relative_to(CORE).as_posix(): p.read_text(encoding="utf-8") for p in CORE.rglob("*.py")}


#: every import of a module that runs a process, sends a signal or opens a connection: the LLM
#: compile's requests are sent and its command run by ``ckp_lsp/faces/llm``
OUTSIDE_IMPORT = re.compile(
    r"^[ \t]*(?:import[ \t]+[\w., \t]*?\b|from[ \t]+)(?:subprocess|signal|socket|ssl|http\.client"
    r"|urllib\.request)\b|^[ \t]*from[ \t]+(?:http|urllib)[ \t]+import[ \t][^\n]*\b(?:client|request)\b",
    re.M,
)


@pytest.mark.parametrize(
    "line",
    [
        "import subprocess",
        "import os, subprocess",
        "from subprocess import Popen",
        "import signal",
        "import socket",
        "from socket import gaierror",
        "import ssl",
        "import http.client",
        "from http.client import HTTPConnection",
        "from http import client",
        "import urllib.request",
        "from urllib.request import getproxies",
        "from urllib import parse, request",
        "    import subprocess  # inside a function",
    ],
)
def test_the_process_and_network_imports_are_recognised(line: str) -> None:
    assert OUTSIDE_IMPORT.search(line)
    for pure in (
        "import urllib.parse",
        "from urllib.parse import urlsplit",
        "import shlex",
        "from .wire import Request",
    ):
        assert not OUTSIDE_IMPORT.search(pure), pure


def reaching_outside(sources: dict[str, str]) -> set[str]:
    """The modules of ``sources`` that run a process, send a signal, open a connection or run git."""
    return {
        rel
        for rel, text in sources.items()
        if OUTSIDE_IMPORT.search(text) or re.search(r"""\[\s*["']git["']""", text)
    }


def test_the_core_runs_no_git_no_process_and_opens_no_connection() -> None:
    sources = core_sources()
    assert "bank/bank.py" in sources and "compile/providers.py" in sources
    assert reaching_outside(sources) == set()


@pytest.mark.parametrize(
    ("rel", "put_back"),
    [
        ("compile/providers.py", "from . import transport  # noqa\nimport http.client\n"),
        ("compile/command.py", "import os\nimport signal\nimport subprocess\n"),
        ("compile/wire.py", "import socket\nimport ssl\nimport urllib.request\n"),
        ("bank/updated.py", 'run(["git", "log"])\n'),
    ],
)
def test_an_import_put_back_into_the_core_is_caught(rel: str, put_back: str) -> None:
    sources = core_sources()
    sources[rel] = put_back + sources[rel]
    assert reaching_outside(sources) == {rel}


def test_a_retry_after_read_from_the_clock_is_caught_in_the_providers() -> None:
    sources = core_sources()
    sources["compile/providers.py"] += "\nnow = datetime.datetime.now(datetime.timezone.utc)\n"
    clock = {rel for rel, text in sources.items() if CLOCK_READ.search(text)}
    assert clock - CLOCK_ALLOWED == {"compile/providers.py"}


def test_the_llm_compile_is_sent_by_the_faces() -> None:
    faces = CORE.parent / "faces" / "llm"
    sent = {p.name for p in faces.glob("*.py") if OUTSIDE_IMPORT.search(p.read_text(encoding="utf-8"))}
    assert sent == {"transport.py", "command.py"}  # the check above sees what the core would import


#: every way Python tells the date or the time of day (``time.monotonic`` and ``perf_counter``
#: measure durations, and are not in it)
CLOCK_READ = re.compile(
    r"\b(?:date|datetime)\.(?:today|now|utcnow)\(|\bfromtimestamp\(|\btime\.(?:time|time_ns|localtime|gmtime"
    r"|ctime|asctime|strftime)\(|\bfrom\s+(?:datetime|time)\s+import\b[^\n]*\b(?:date|datetime|time|time_ns"
    r"|localtime|gmtime|strftime)\b"
)


@pytest.mark.parametrize(
    "line",
    [
        "x = _dt.date.today()",
        "x = datetime.date.today()",
        "now = datetime.datetime.now(datetime.timezone.utc)",
        "x = datetime.today()",
        "x = datetime.utcnow()",
        "x = date.fromtimestamp(st.st_mtime)",
        "x = time.time()",
        "x = time.time_ns()",
        "x = time.localtime()",
        "x = time.strftime('%Y-%m')",
        "from datetime import date",
        "from time import time",
    ],
)
def test_the_clock_reads_are_recognised(line: str) -> None:
    assert CLOCK_READ.search(line)
    assert not CLOCK_READ.search("started = time.monotonic()") and not CLOCK_READ.search(
        "from .dates import CkpDate"
    )


def test_the_core_reads_the_clock_only_where_documented_and_no_modification_day() -> None:
    sources = core_sources()
    assert "format/dates.py" in sources and "format/knowledge.py" in sources
    clock = {rel for rel, text in sources.items() if CLOCK_READ.search(text)}
    assert clock <= CLOCK_ALLOWED, clock - CLOCK_ALLOWED


#: the garbage collector's policy (pausing, freezing) is the faces' to choose
GC_USE = re.compile(r"^\s*(?:import\s+gc\b|from\s+gc\s+import\b)", re.M)


def test_the_core_leaves_the_garbage_collector_to_the_faces() -> None:
    sources = core_sources()
    assert {rel for rel, text in sources.items() if GC_USE.search(text)} == set()
    sources["bank/bank.py"] = "import gc\n" + sources["bank/bank.py"]
    assert {rel for rel, text in sources.items() if GC_USE.search(text)} == {"bank/bank.py"}
    faces = CORE.parent / "faces" / "collector.py"
    assert GC_USE.search(faces.read_text(encoding="utf-8"))  # where the pausing and freezing live
