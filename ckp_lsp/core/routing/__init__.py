"""Routing a question to the files to load (SPEC §6): the index pattern (§6a), the ranked router
(§6b) and what it is built of (the analysis of words, BM25F postings over each file's fields, the
plain BM25 peer that benchmarks measure it against), and ``route()``, which routes with either;
what the router needs of a bank (``route_table``), the budget rule (``budget``), typos of a
question word (``typos``) and the routing benchmark (``bench``).

Nothing is imported here: a face that needs one router loads that router alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ckp_lsp.core.bank.bank import Bank

    from .result import RouteResult


def route(bank: Bank, query: str, mode: str = "ranked") -> RouteResult:
    """Route one query over ``bank`` with the ranked router (SPEC §6b), or the index pattern (§6a)
    with ``mode="index"``; build a ``RankedRouter`` (or ``Router``) once to route many."""
    if mode == "index":
        from .index_pattern import Router

        return Router(bank).route(query)
    from .ranked import RankedRouter

    return RankedRouter(bank).route(query)
