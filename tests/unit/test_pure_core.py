"""The core is a function of what it is given: updated dates and the day come from the caller;
git, the disk's modification times and the clock are read by the faces (``ckp_lsp.faces``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ckp_lsp.core.bank import Bank
from ckp_lsp.core.checks import check_file
from ckp_lsp.core.config import Config
from ckp_lsp.core.dates import CkpDate
from ckp_lsp.core.updated import GivenDates, parse_git_dates
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
    bank = Bank.load(root, Config(staleness="git"), dates=given)
    assert stale(bank) == {"redis": "2025-08-01"}
    (finding,) = [f for f in check_file(bank, "cart.md") if f.code == "CKP050"]
    assert "'redis' was last committed on 2025-08-01" in finding.message
    same_month = GivenDates(committed={"redis.md": CkpDate(2025, 6, 20), "cart.md": CkpDate(2025, 6, 1)})
    assert stale(Bank.load(root, Config(staleness="git"), dates=same_month)) == {}


def test_mtime_staleness_uses_the_modification_days_it_is_given() -> None:
    root = Path("/nonexistent/memory-bank")
    bank = bank_of_texts({"redis.md": REDIS, "cart.md": CART}, Config(staleness="mtime"))
    assert stale(bank) == {}  # no source given: no modification day is known
    bank.dates = GivenDates(modified={root / "redis.md": CkpDate(2025, 9, 2)})
    assert stale(bank) == {"redis": "2025-09-02"}


def test_git_without_a_repository_falls_back_to_validated(tmp_path: Path) -> None:
    root = write_files(tmp_path / "memory-bank", {"redis.md": REDIS, "cart.md": CART})
    bank = Bank.load(root, Config(staleness="git"), dates=GivenDates(committed=None))
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
    bank = Bank.load(root, Config(staleness="git"), dates=given, today=CkpDate(2025, 9, 3))
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


# Where the core still reaches outside itself, and why.
SUBPROCESS_ALLOWED = {
    "compile/command.py",  # runs the compile command the user configured (the compile step's provider)
}
CLOCK_ALLOWED = {
    "trust.py",  # the trust store (a file the user owns) records when a folder was trusted
    "compile/providers.py",  # an HTTP Retry-After date is a wait from now
}


def core_sources() -> dict[str, str]:
    return {p.relative_to(CORE).as_posix(): p.read_text(encoding="utf-8") for p in CORE.rglob("*.py")}


def test_the_core_runs_no_git_and_no_other_process() -> None:
    sources = core_sources()
    assert "bank.py" in sources and "updated.py" in sources
    importing = {
        rel for rel, text in sources.items() if re.search(r"^\s*(import|from)\s+subprocess\b", text, re.M)
    }
    assert importing <= SUBPROCESS_ALLOWED, importing - SUBPROCESS_ALLOWED
    running_git = {rel for rel, text in sources.items() if re.search(r"""\[\s*["']git["']""", text)}
    assert running_git == set()


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
    assert "dates.py" in sources and "knowledge.py" in sources
    clock = {rel for rel, text in sources.items() if CLOCK_READ.search(text)}
    assert clock <= CLOCK_ALLOWED, clock - CLOCK_ALLOWED
