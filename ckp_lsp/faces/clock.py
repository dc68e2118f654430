"""The clock, read by the faces only: the core is given the day (``Bank.today``), never asks it."""

from __future__ import annotations

import datetime as _dt

from ckp_lsp.core.format.dates import CkpDate, from_date


def today() -> CkpDate:
    """Today, as a day, in the local time zone (as the user dates files)."""
    return from_date(_dt.date.today())


def utc_stamp() -> str:
    """Now, in UTC, as ``YYYY-MM-DDTHH:MM:SSZ``: when a folder was trusted."""
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def this_month() -> str:
    """The current month as ``YYYY-MM``: what re-validating and compiling write."""
    return today().month_text()
