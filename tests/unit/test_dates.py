"""CKP dates: parsing, comparison at the coarser precision, and the date findings they lead to."""

from __future__ import annotations

import datetime as dt

import pytest

from ckp_lsp.core.bank.checks import check_file
from ckp_lsp.core.bank.findings import Severity
from ckp_lsp.core.format.dates import CkpDate, parse_date
from ckp_lsp.core.format.knowledge import read_knowledge_file
from ckp_lsp.faces.clock import this_month, today
from tests.unit.builders import bank_of_texts, bare_header, span_of_text


def next_month(day: dt.date) -> str:
    return f"{day.year + day.month // 12:04d}-{day.month % 12 + 1:02d}"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2025-05", CkpDate(2025, 5)),
        ("2025-05-18", CkpDate(2025, 5, 18)),
        ("2024-02-29", CkpDate(2024, 2, 29)),  # leap day
        ("2000-02-29", CkpDate(2000, 2, 29)),  # divisible by 400: leap
        ("2025-12-31", CkpDate(2025, 12, 31)),
        (" 2025-01 ", CkpDate(2025, 1)),
    ],
)
def test_valid_dates_parse(text: str, expected: CkpDate) -> None:
    assert parse_date(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "2026-02-30",  # no such day
        "2025-02-29",  # not a leap year
        "1900-02-29",  # divisible by 100, not by 400
        "2025-13",
        "2025-00",
        "2025-04-31",
        "2025-05-00",
        "25-05",
        "2025-5",
        "2025/05",
        "May 2025",
        "0000-01",
        "2025-05-18T10:00",
        "",
        "\u0662\u0660\u0662\u0665-\u0660\u0665",  # Arabic-Indic digits are not YYYY-MM
        "\uff12\uff10\uff12\uff15-05",  # full-width digits
    ],
)
def test_malformed_or_impossible_dates_do_not_parse(text: str) -> None:
    assert parse_date(text) is None


def test_a_date_prints_as_written() -> None:
    assert str(CkpDate(2025, 5)) == "2025-05"
    assert str(CkpDate(2025, 5, 8)) == "2025-05-08"


@pytest.mark.parametrize(
    ("later", "earlier", "after"),
    [
        (CkpDate(2026, 9, 18), CkpDate(2026, 9), False),  # same month at the coarser precision
        (CkpDate(2026, 9), CkpDate(2026, 9, 1), False),
        (CkpDate(2026, 10, 1), CkpDate(2026, 9), True),
        (CkpDate(2026, 9, 19), CkpDate(2026, 9, 18), True),
        (CkpDate(2026, 9, 18), CkpDate(2026, 9, 18), False),
        (CkpDate(2027, 1), CkpDate(2026, 12, 31), True),
        (CkpDate(2026, 8, 31), CkpDate(2026, 9), False),
    ],
)
def test_is_after_compares_at_the_coarser_precision(later: CkpDate, earlier: CkpDate, after: bool) -> None:
    assert later.is_after(earlier) is after


def test_the_faces_clock_says_today_and_this_month() -> None:
    now = dt.date.today()
    assert today() == CkpDate(now.year, now.month, now.day)
    assert this_month() == f"{now.year:04d}-{now.month:02d}" == today().month_text()
    assert CkpDate(2030, 1).month_text() == CkpDate(2030, 1, 15).month_text() == "2030-01"


def test_day_precise_validated_does_not_make_a_month_relationship_stale() -> None:
    cart = bare_header(CONCEPT="cart", SIMILAR_HIGH="billing:2026-09")
    billing = bare_header(CONCEPT="billing", VALIDATED="2026-09-18")
    bank = bank_of_texts({"cart.md": cart, "billing.md": billing})
    assert [f for f in check_file(bank, "cart.md") if f.code == "CKP050"] == []
    # One month later it is stale, and the message names both dates.
    bank.set_file("billing.md", bare_header(CONCEPT="billing", VALIDATED="2026-10-01"))
    stale = [f for f in check_file(bank, "cart.md") if f.code == "CKP050"]
    assert len(stale) == 1
    assert "2026-10-01" in stale[0].message and "2026-09" in stale[0].message


@pytest.mark.parametrize("bad", ["2026-02-30", "2025-13", "25-05"])
def test_impossible_validated_date_is_ckp051_on_the_date(bad: str) -> None:
    text = bare_header(VALIDATED=bad)
    found = [f for f in read_knowledge_file("a.md", text).local if f.code == "CKP051"]
    assert len(found) == 1
    assert found[0].severity == Severity.ERROR
    assert found[0].span == span_of_text(text, bad)
    assert "write YYYY-MM or YYYY-MM-DD" in found[0].message


@pytest.mark.parametrize("bad", ["2026-02-30", "2025-13", "25-05"])
def test_impossible_relationship_date_is_ckp051_on_the_date_only(bad: str) -> None:
    text = bare_header(SIMILAR_MID=f"oauth2:{bad}")
    found = [f for f in read_knowledge_file("a.md", text).local if f.code == "CKP051"]
    assert [f.span for f in found] == [span_of_text(text, bad, after="oauth2:")]


def test_leap_day_is_a_valid_date() -> None:
    text = bare_header(VALIDATED="2024-02-29", SIMILAR_MID="oauth2:2024-02-29")
    codes = {f.code for f in read_knowledge_file("a.md", text).local}
    assert "CKP051" not in codes


def future(text: str, day: CkpDate | None) -> list[str]:
    """The CKP052 messages of a file ``a.md`` of ``text``, checked on the day ``day``."""
    return [
        f.message for f in check_file(bank_of_texts({"a.md": text}, today=day), "a.md") if f.code == "CKP052"
    ]


#: a clean header (read by the fast scan) and one the full parser reads (an unknown field)
FORMS = pytest.mark.parametrize("extra", [{}, {"FOO": "bar"}], ids=["clean", "full"])


@FORMS
def test_future_dates_are_ckp052_relative_to_the_day_given(extra: dict[str, str]) -> None:
    text = bare_header(VALIDATED="2030-01", SIMILAR_MID="oauth2:2030-03-02", **extra)
    bank = bank_of_texts({"a.md": text}, today=CkpDate(2029, 12, 15))
    found = [f for f in check_file(bank, "a.md") if f.code == "CKP052"]
    assert {f.span for f in found} == {
        span_of_text(text, "2030-03-02", after="oauth2:"),
        span_of_text(text, "2030-01", after="VALIDATED: "),
    }
    assert all(f.severity == Severity.WARNING for f in found)
    assert all(
        "in the future" in f.message and "use this month or an earlier one" in f.message for f in found
    )
    # Said once, not "the VALIDATED date is dated …".
    assert sorted(f.message.split(" in the future")[0] for f in found) == [
        "VALIDATED 2030-01 is",
        "the relationship to 'oauth2' is dated 2030-03-02,",
    ]
    # The same file on a later day: nothing is in the future any more (the file is not read again).
    bank.today = CkpDate(2030, 3, 2)
    assert [f for f in check_file(bank, "a.md") if f.code == "CKP052"] == []
    assert future(text, CkpDate(2030, 2, 1)) == [
        "the relationship to 'oauth2' is dated 2030-03-02, in the future: use this month or an earlier one"
    ]


@FORMS
def test_the_day_given_and_its_month_are_not_in_the_future(extra: dict[str, str]) -> None:
    text = bare_header(VALIDATED="2030-01-15", SIMILAR_MID="oauth2:2030-01", **extra)
    assert future(text, CkpDate(2030, 1, 15)) == []
    assert future(text, CkpDate(2030, 1, 1)) == [
        "VALIDATED 2030-01-15 is in the future: use this month or an earlier one"
    ]
    assert future(text, CkpDate(2029, 12, 31)) == [
        "VALIDATED 2030-01-15 is in the future: use this month or an earlier one",
        "the relationship to 'oauth2' is dated 2030-01, in the future: use this month or an earlier one",
    ]


def test_no_date_is_in_the_future_of_a_bank_given_no_day() -> None:
    assert future(bare_header(VALIDATED="2999-01", SIMILAR_MID="oauth2:2999-02"), None) == []


def test_reading_a_file_does_not_depend_on_the_day() -> None:
    # What the day decides is a check of the bank: the file read is the same on any day.
    text = bare_header(VALIDATED="2999-01", SIMILAR_MID="oauth2:2999-02")
    kf = read_knowledge_file("a.md", text)
    assert kf.local == []
    assert kf.validated == CkpDate(2999, 1) and kf.relations == [
        ("oauth2", "MID", "2999-02", CkpDate(2999, 2))
    ]


def test_future_dates_of_the_test_run_are_ckp052() -> None:
    now = dt.date.today()
    ahead = next_month(now)
    tomorrow = (now + dt.timedelta(days=1)).isoformat()
    text = bare_header(VALIDATED=tomorrow, SIMILAR_MID=f"oauth2:{ahead}")
    assert len(future(text, today())) == 2
    assert future(bare_header(VALIDATED=now.isoformat(), SIMILAR_MID=f"oauth2:{this_month()}"), today()) == []
