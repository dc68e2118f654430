"""The bank: loading, incremental updates and what they affect, and the updated date of §3."""

from __future__ import annotations

import datetime as dt
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.bank.checks import check_file
from ckp_lsp.core.bank.findings import Finding
from ckp_lsp.core.bank.index_checks import check_index
from ckp_lsp.core.format.dates import CkpDate
from ckp_lsp.core.format.text import Span
from ckp_lsp.core.project.config import Config
from ckp_lsp.faces.banks import load_bank, read_dates
from ckp_lsp.faces.updated import DISK
from tests.unit.builders import SHOP, bank_of_texts, bare_header, git, span_of_text, write_files

SHOP_FILES = [
    "billing.md",
    "cart.md",
    "http-headers.md",
    "infra/deploy.md",
    "jwt.md",
    "oauth2.md",
    "redis.md",
]


def shop_text(rel: str) -> str:
    return (SHOP / rel).read_text(encoding="utf-8")


def codes(bank: Bank, rel: str) -> list[str]:
    return [f.code for f in check_file(bank, rel)]


def all_findings(bank: Bank) -> dict[str, list[Finding]]:
    return {rel: check_file(bank, rel) for rel in bank.files}


# --- loading -----------------------------------------------------------------------------------


def test_load_reads_every_knowledge_file_and_the_index() -> None:
    bank = load_bank(SHOP)
    assert sorted(bank.files) == SHOP_FILES  # README.md (excluded) and _index.md are not knowledge files
    assert bank.concepts() == ["billing", "cart", "deploy", "http-headers", "jwt", "oauth2", "redis"]
    assert bank.index_text is not None and bank.index_text.startswith("# Shop memory bank")
    assert bank.backlinks["redis"] == {"cart.md", "infra/deploy.md"}
    assert bank.claims["cache"] == {"redis.md"}
    deploy = bank.file_of("deploy")
    assert deploy is not None and deploy.path == "infra/deploy.md"


def test_a_healthy_bank_has_no_findings() -> None:
    bank = load_bank(SHOP)
    assert all_findings(bank) == {rel: [] for rel in SHOP_FILES}
    assert check_index(bank) == []


def test_load_reports_non_utf8_and_strips_a_bom(tmp_path: Path) -> None:
    bom = b"\xef\xbb\xbf" + bare_header(CONCEPT="bom").encode("utf-8")
    latin1 = bare_header(CONCEPT="latin", TLDR="Caf\xe9 tokens.").encode("latin-1")
    bank = load_bank(write_files(tmp_path / "memory-bank", {"bom.md": bom, "latin.md": latin1}))
    assert codes(bank, "bom.md") == []
    assert bank.files["bom.md"].concept_span == Span(0, 9, 0, 12)
    (bad,) = [f for f in check_file(bank, "latin.md") if f.code == "CKP009"]
    assert bad.span == Span(1, 9, 1, 10)  # the invalid byte, after "TLDR: Caf"
    assert bank.files["latin.md"].concept == "latin"  # the rest of the header is still read


# --- what an update affects --------------------------------------------------------------------


def test_editing_validated_makes_relationships_to_it_stale() -> None:
    bank = load_bank(SHOP)
    affected = bank.set_file("redis.md", shop_text("redis.md").replace("2025-06", "2025-08"))
    assert affected == {"redis.md", "cart.md", "infra/deploy.md"}
    (stale,) = [f for f in check_file(bank, "cart.md") if f.code == "CKP050"]
    assert stale.span == span_of_text(shop_text("cart.md"), "redis:2025-06")
    assert "CKP050" in codes(bank, "infra/deploy.md")


def test_editing_what_no_other_file_depends_on_affects_that_file_alone() -> None:
    bank = load_bank(SHOP)
    text = shop_text("redis.md").replace("holds carts", "keeps carts").replace("One Redis", "A Redis")
    assert bank.set_file("redis.md", text) == {"redis.md"}


def test_adding_a_file_with_a_concept_fixes_unknown_concepts_naming_it() -> None:
    bank = load_bank(SHOP)
    cart = shop_text("cart.md").replace(
        "SIMILAR_MID:  billing:2025-06", "SIMILAR_MID:  billing:2025-06, payments:2025-06"
    )
    bank.set_file("cart.md", cart)
    (unknown,) = [f for f in check_file(bank, "cart.md") if f.code == "CKP041"]
    assert unknown.span == span_of_text(cart, "payments")
    affected = bank.set_file("payments.md", bare_header(CONCEPT="payments", ANSWERS_WHEN="payments"))
    assert affected == {"payments.md", "cart.md"}
    assert "CKP041" not in codes(bank, "cart.md")


def test_removing_a_file_makes_relationships_to_it_unknown() -> None:
    bank = load_bank(SHOP)
    assert bank.remove_file("redis.md") == {"cart.md", "infra/deploy.md"}
    assert "redis.md" not in bank.files
    assert "CKP041" in codes(bank, "cart.md")
    assert "CKP041" in codes(bank, "infra/deploy.md")
    assert bank.remove_file("redis.md") == set()
    assert bank.remove_file("never-there.md") == set()


def test_duplicate_concept_appears_and_disappears_on_both_files() -> None:
    bank = load_bank(SHOP)
    affected = bank.set_file("auth/jwt-copy.md", bare_header(CONCEPT="jwt"))
    assert affected == {"auth/jwt-copy.md", "jwt.md", "oauth2.md"}  # oauth2.md relates to jwt
    assert "CKP011" in codes(bank, "jwt.md")
    assert "CKP011" in codes(bank, "auth/jwt-copy.md")
    assert bank.remove_file("auth/jwt-copy.md") == {"jwt.md", "oauth2.md"}
    assert "CKP011" not in codes(bank, "jwt.md")


def test_renaming_a_concept_affects_both_names() -> None:
    bank = load_bank(SHOP)
    affected = bank.set_file(
        "redis.md", shop_text("redis.md").replace("CONCEPT:      redis", "CONCEPT:      cache")
    )
    assert affected == {"redis.md", "cart.md", "infra/deploy.md"}
    assert "CKP041" in codes(bank, "cart.md")
    affected = bank.set_file("redis.md", shop_text("redis.md"))
    assert affected == {"redis.md", "cart.md", "infra/deploy.md"}
    assert codes(bank, "cart.md") == []


def test_a_fourth_claimer_makes_a_keyword_ambiguous_for_every_claimer() -> None:
    bank = load_bank(SHOP)
    for name in ("alpha", "beta"):
        bank.set_file(f"{name}.md", bare_header(CONCEPT=name, ANSWERS_WHEN="cache"))
    affected = bank.set_file("gamma.md", bare_header(CONCEPT="gamma", ANSWERS_WHEN="Cache"))
    assert affected == {"alpha.md", "beta.md", "gamma.md", "redis.md"}
    for rel in affected:
        assert "CKP032" in codes(bank, rel)
    assert bank.remove_file("gamma.md") == {"alpha.md", "beta.md", "redis.md"}
    assert all("CKP032" not in codes(bank, rel) for rel in ("alpha.md", "beta.md", "redis.md"))


def test_renaming_a_claimer_updates_the_other_claimers_messages() -> None:
    bank = bank_of_texts({f"{c}.md": bare_header(CONCEPT=c, ANSWERS_WHEN="api") for c in "abcd"})
    affected = bank.set_file("d.md", bare_header(CONCEPT="z", ANSWERS_WHEN="api"))
    (ambiguous,) = [f for f in check_file(bank, "a.md") if f.code == "CKP032"]
    assert "(b, c, z)" in ambiguous.message
    assert affected == {"a.md", "b.md", "c.md", "d.md"}


# --- any sequence of updates equals loading the same texts -------------------------------------

PATHS = ["a.md", "b.md", "c.md", "sub/d.md", "e.md"]
CONCEPTS = ["x", "y", "z", "xy"]
DATES = ["2025-01", "2025-02", "2025-03-15"]


ENTRIES = [f"{c}:{d}" for c in [*CONCEPTS, "w"] for d in DATES] + [*CONCEPTS, "w"]
TIER = st.lists(st.sampled_from(ENTRIES), max_size=2).map(lambda xs: ", ".join(xs) or None)
KNOWLEDGE_TEXTS = st.one_of(
    st.builds(
        lambda concept, keywords, high, mid, validated: bare_header(
            CONCEPT=concept,
            ANSWERS_WHEN=", ".join(keywords),
            SIMILAR_HIGH=high,
            SIMILAR_MID=mid,
            VALIDATED=validated,
        ),
        st.sampled_from([*CONCEPTS, None]),
        st.lists(st.sampled_from(["api", "API", "cache", "x", "login"]), min_size=1, max_size=3),
        TIER,
        TIER,
        st.sampled_from([*DATES, None]),
    ),
    st.just("# No header\n"),
)


UPDATES = st.lists(st.tuples(st.sampled_from(PATHS), st.one_of(st.none(), KNOWLEDGE_TEXTS)), max_size=10)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(UPDATES)
def test_updates_report_every_file_whose_findings_change_and_end_as_a_fresh_load(
    updates: list[tuple[str, str | None]],
) -> None:
    bank = Bank(Path("/nonexistent/memory-bank"))
    texts: dict[str, str] = {}
    before = all_findings(bank)
    for rel, text in updates:
        if text is None:
            affected = bank.remove_file(rel)
            texts.pop(rel, None)
        else:
            affected = bank.set_file(rel, text)
            texts[rel] = text
        after = all_findings(bank)
        changed = {p for p in after if after[p] != before.get(p)}
        assert changed <= affected, (rel, changed - affected)
        assert affected <= set(bank.files)
        before = after
    with tempfile.TemporaryDirectory() as tmp:
        fresh = load_bank(write_files(Path(tmp) / "memory-bank", texts))
        assert all_findings(fresh) == before
        assert fresh.by_concept == bank.by_concept


# --- the updated date (SPEC §3) ----------------------------------------------------------------

REDIS = bare_header(CONCEPT="redis", VALIDATED="2025-06")
CART = bare_header(
    CONCEPT="cart", SIMILAR_HIGH="redis:2025-06", SIMILAR_MID="billing:2025-06", VALIDATED="2025-06"
)
BILLING = bare_header(CONCEPT="billing", VALIDATED="2025-06")


def stale_dates(bank: Bank, rel: str = "cart.md") -> dict[str, str]:
    """concept -> updated date of each stale relationship of ``rel``."""
    return {f.data["concept"]: f.data["updated"] for f in check_file(bank, rel) if f.code == "CKP050"}


def test_validated_is_the_default_source() -> None:
    assert Config().staleness == "validated"
    bank = bank_of_texts(
        {
            "redis.md": bare_header(CONCEPT="redis", VALIDATED="2025-07"),
            "cart.md": CART,
            "billing.md": BILLING,
        }
    )
    assert stale_dates(bank) == {"redis": "2025-07"}


def _set_mtime(path: Path, day: dt.date) -> None:
    stamp = dt.datetime(day.year, day.month, day.day, 12).timestamp()
    os.utime(path, (stamp, stamp))


@pytest.mark.parametrize(
    ("modified", "stale"),
    [
        (dt.date(2025, 8, 1), {"redis": "2025-08-01"}),
        (dt.date(2025, 6, 20), {}),  # same month as redis:2025-06
        (dt.date(2025, 5, 1), {}),
    ],
)
def test_mtime_uses_the_modification_day(tmp_path: Path, modified: dt.date, stale: dict[str, str]) -> None:
    root = write_files(tmp_path / "memory-bank", {"redis.md": REDIS, "cart.md": CART, "billing.md": BILLING})
    for rel in ("cart.md", "billing.md"):
        _set_mtime(root / rel, dt.date(2025, 6, 1))
    _set_mtime(root / "redis.md", modified)
    bank = load_bank(root, Config(staleness="mtime"), dates=DISK)
    assert stale_dates(bank) == stale
    if stale:
        (finding,) = [f for f in check_file(bank, "cart.md") if f.code == "CKP050"]
        assert "'redis' was modified on 2025-08-01" in finding.message


#: the day the git-mode banks are given: what an uncommitted change is dated
DAY = CkpDate(2026, 3, 4)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository whose bank (in a subfolder) was committed on 2025-06-10."""
    git(tmp_path, "init", "-q")
    write_files(
        tmp_path / "docs" / "memory-bank", {"redis.md": REDIS, "cart.md": CART, "billing.md": BILLING}
    )
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "bank", date="2025-06-10T12:00:00")
    return tmp_path / "docs" / "memory-bank"


def test_git_uses_the_last_commit_that_touched_the_file(repo: Path) -> None:
    assert stale_dates(load_bank(repo, Config(staleness="git"), dates=DISK, today=DAY)) == {}
    (repo / "redis.md").write_text(REDIS + "More body.\n", encoding="utf-8")
    git(repo, "commit", "-q", "-am", "redis", date="2025-08-01T12:00:00")
    bank = load_bank(repo, Config(staleness="git"), dates=DISK, today=DAY)
    assert stale_dates(bank) == {"redis": "2025-08-01"}
    (finding,) = [f for f in check_file(bank, "cart.md") if f.code == "CKP050"]
    assert "'redis' was last committed on 2025-08-01" in finding.message


def test_git_counts_an_uncommitted_change_as_today(repo: Path) -> None:
    (repo / "billing.md").write_text(BILLING + "Edited, not committed.\n", encoding="utf-8")
    bank = load_bank(repo, Config(staleness="git"), dates=DISK, today=DAY)
    assert stale_dates(bank) == {"billing": str(DAY)}


def test_git_counts_an_untracked_file_as_today(repo: Path) -> None:
    write_files(repo, {"new.md": bare_header(CONCEPT="new", SIMILAR_MID="cart:2025-06")})
    (repo / "cart.md").write_text(
        CART.replace("billing:2025-06", "billing:2025-06, new:2025-06"), encoding="utf-8"
    )
    git(repo, "commit", "-q", "-am", "cart", date="2025-06-11T12:00:00")
    bank = load_bank(repo, Config(staleness="git"), dates=DISK, today=DAY)
    assert stale_dates(bank) == {"new": str(DAY)}


def test_git_opening_a_file_unchanged_keeps_its_commit_date(repo: Path) -> None:
    bank = load_bank(repo, Config(staleness="git"), dates=DISK, today=DAY)
    assert stale_dates(bank) == {}
    # An editor opening redis.md hands the bank the same text, and the face says it is the disk's.
    affected = bank.set_file("redis.md", REDIS, on_disk=True)
    assert stale_dates(bank) == {}
    assert "cart.md" in affected
    # Typing in it is an uncommitted change: today, the day the bank was given.
    bank.set_file("redis.md", REDIS + "Typing.\n")
    assert stale_dates(bank) == {"redis": "2026-03-04"}
    bank.today = CkpDate(2026, 3, 5)  # the face moved the day on
    assert stale_dates(bank) == {"redis": "2026-03-05"}
    bank.today = None  # no day given: an uncommitted change has no date, so it makes nothing stale
    assert stale_dates(bank) == {}


def test_git_read_dates_sees_a_new_commit(repo: Path) -> None:
    bank = load_bank(repo, Config(staleness="git"), dates=DISK, today=DAY)
    assert stale_dates(bank) == {}
    (repo / "redis.md").write_text(REDIS + "More.\n", encoding="utf-8")
    git(repo, "commit", "-q", "-am", "redis", date="2025-09-02T12:00:00")
    read_dates(bank)  # the bank service asks the dates source again
    assert stale_dates(bank) == {"redis": "2025-09-02"}


def test_git_checks_run_no_git_and_use_the_dates_known_until_new_ones_are_taken(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bank = load_bank(repo, Config(staleness="git"), dates=DISK)
    (repo / "redis.md").write_text(REDIS + "More.\n", encoding="utf-8")
    git(repo, "commit", "-q", "-am", "redis", date="2025-09-02T12:00:00")
    fresh = DISK.committed(repo)
    asked: list[Path] = []
    monkeypatch.setattr(DISK, "committed", lambda root: asked.append(root))
    # The editor saves redis.md (its text is the disk's): the checks still run no git.
    bank.set_file("redis.md", (repo / "redis.md").read_text(encoding="utf-8"), on_disk=True)
    assert stale_dates(bank) == {}
    assert asked == []
    # The dates a face read elsewhere: the files relating to redis are the ones to check again.
    assert bank.take_dates(fresh) == {"cart.md"}
    assert stale_dates(bank) == {"redis": "2025-09-02"}
    assert asked == []


def test_git_reads_non_ascii_file_names(repo: Path) -> None:
    (repo / "redis.md").rename(repo / "café.md")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "rename", date="2025-06-12T12:00:00")
    bank = load_bank(repo, Config(staleness="git"), dates=DISK, today=DAY)
    redis = bank.file_of("redis")
    assert redis is not None and redis.path == "café.md"
    assert bank.updated_date(redis) == CkpDate(2025, 6, 12)
    assert stale_dates(bank) == {}


def test_git_outside_a_repository_falls_back_to_validated(tmp_path: Path) -> None:
    root = write_files(tmp_path / "memory-bank", {"redis.md": REDIS, "cart.md": CART, "billing.md": BILLING})
    bank = load_bank(root, Config(staleness="git"), dates=DISK)
    assert stale_dates(bank) == {}
    bank.set_file("redis.md", bare_header(CONCEPT="redis", VALIDATED="2025-07"))
    assert stale_dates(bank) == {"redis": "2025-07"}
