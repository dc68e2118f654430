"""CKP dates: ``YYYY-MM`` or ``YYYY-MM-DD``, compared at the coarser precision of the two.

Pure: what day it is is never asked here. The faces read the clock (``ckp_lsp.faces.clock``) and
give the day to the core (``Bank.today``).
"""

from __future__ import annotations

import calendar
import datetime as _dt
import re
from dataclasses import dataclass
from functools import lru_cache

_DATE = re.compile(r"^([0-9]{4})-([0-9]{2})(?:-([0-9]{2}))?$")  # ASCII digits only, as written


@dataclass(frozen=True, slots=True)
class CkpDate:
    """A month (``day`` is None) or a day."""

    year: int
    month: int
    day: int | None = None

    def __str__(self) -> str:
        if self.day is None:
            return f"{self.year:04d}-{self.month:02d}"
        return f"{self.year:04d}-{self.month:02d}-{self.day:02d}"

    def is_after(self, other: CkpDate) -> bool:
        """Whether this date is later than ``other`` at the coarser precision of the two."""
        if self.year != other.year:
            return self.year > other.year
        if self.month != other.month:
            return self.month > other.month
        return self.day is not None and other.day is not None and self.day > other.day

    def month_text(self) -> str:
        """``YYYY-MM``: the month of this date, as VALIDATED and relationship entries write it."""
        return f"{self.year:04d}-{self.month:02d}"


@lru_cache(maxsize=8192)
def parse_date(text: str) -> CkpDate | None:
    """A CkpDate, or None when ``text`` is malformed or impossible (``2025-13``, ``2026-02-30``)."""
    m = _DATE.match(text.strip())
    if not m:
        return None
    year, month = int(m.group(1)), int(m.group(2))
    if not 1 <= month <= 12 or year < 1:
        return None
    if m.group(3) is None:
        return CkpDate(year, month)
    day = int(m.group(3))
    if not 1 <= day <= calendar.monthrange(year, month)[1]:
        return None
    return CkpDate(year, month, day)


def from_date(d: _dt.date) -> CkpDate:
    """CkpDate of a calendar day."""
    return CkpDate(d.year, d.month, d.day)
