"""What a router decided for one question (SPEC §6): the files, why, the declaration and the tokens."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ckp_lsp.core.format.records import Frozen, Record

#: a loaded file over this many tokens is flagged (``file_budget_tokens`` in the configuration)
FILE_BUDGET_TOKENS = 8000


class RouteEntry(Record):
    """A file the router loaded (or matched without loading), and why."""

    _fields = ("concept", "file", "reason", "keywords", "via", "tokens", "over_budget", "words", "relevance")
    __slots__ = _fields

    def __init__(
        self,
        concept: str,
        file: str,
        reason: str,  # "match", "high" or "mid"; "match" for a file matched but not loaded
        keywords: list[str],  # the file's keywords the query matched, as written
        via: str | None,  # the primary concept that pulled a HIGH or MID file in
        tokens: int,
        over_budget: bool = False,  # more tokens than ``file_budget_tokens``
        #: the question's words the file holds beyond its keywords (headings, body), as written (6b)
        words: list[str] | None = None,
        relevance: float = 0.0,  # the ranked router's score (6b); 0 for the index pattern
    ) -> None:
        self.concept = concept
        self.file = file
        self.reason = reason
        self.keywords = keywords
        self.via = via
        self.tokens = tokens
        self.over_budget = over_budget
        self.words = [] if words is None else words
        self.relevance = relevance

    @property
    def score(self) -> int:
        return len(self.keywords)

    def as_dict(self) -> dict[str, Any]:
        return {
            "concept": self.concept,
            "file": self.file,
            "reason": self.reason,
            "keywords": list(self.keywords),
            "via": self.via,
            "tokens": self.tokens,
            "over_budget": self.over_budget,
            "words": list(self.words),
            "relevance": self.relevance,
        }


class RouteTokens(Frozen):
    """Token estimates of one query: the index, the loaded files, and the totals with and without CKP."""

    _fields = ("index", "loaded", "with_ckp", "without_ckp")
    __slots__ = _fields

    def __init__(self, index: int, loaded: int, with_ckp: int, without_ckp: int) -> None:
        self.index = index
        self.loaded = loaded
        self.with_ckp = with_ckp
        self.without_ckp = without_ckp

    @property
    def reduction(self) -> float:
        """The share of tokens CKP saves, 0-1."""
        return 1 - self.with_ckp / self.without_ckp if self.without_ckp else 0.0

    def as_dict(self) -> dict[str, int]:
        return {
            "index": self.index,
            "loaded": self.loaded,
            "with_ckp": self.with_ckp,
            "without_ckp": self.without_ckp,
        }


class RouteResult(Record):
    """What the router decided for one query."""

    _fields = (
        "query",
        "loaded",
        "matched_not_loaded",
        "out_of_domain",
        "declaration",
        "tokens",
        "files",
        "primaries",
        "file_budget_tokens",
    )
    __slots__ = _fields

    def __init__(
        self,
        query: str,
        loaded: list[RouteEntry],
        matched_not_loaded: list[RouteEntry],
        out_of_domain: bool,
        declaration: str,
        tokens: RouteTokens,
        files: int,  # knowledge files in the bank (Y of the declaration)
        primaries: list[RouteEntry] | None = None,
        file_budget_tokens: int = FILE_BUDGET_TOKENS,
    ) -> None:
        self.query = query
        self.loaded = loaded
        self.matched_not_loaded = matched_not_loaded
        self.out_of_domain = out_of_domain
        self.declaration = declaration
        self.tokens = tokens
        self.files = files
        self.primaries = [] if primaries is None else primaries
        self.file_budget_tokens = file_budget_tokens

    @property
    def concepts(self) -> list[str]:
        return [e.concept for e in self.loaded]

    @property
    def over_budget(self) -> list[RouteEntry]:
        """The loaded files over the budget of one file."""
        return [e for e in self.loaded if e.over_budget]

    def as_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "loaded": [e.as_dict() for e in self.loaded],
            "matched_not_loaded": [e.as_dict() for e in self.matched_not_loaded],
            "out_of_domain": self.out_of_domain,
            "declaration": self.declaration,
            "tokens": self.tokens.as_dict(),
            "file_budget_tokens": self.file_budget_tokens,
            "over_budget": [e.file for e in self.over_budget],
        }


def declaration(primaries: list[RouteEntry], loaded: int, files: int, over: Sequence[RouteEntry] = ()) -> str:
    """The one line an agent declares (SPEC §6 step 5); a file over the budget of one file is named
    at its end, so the agent knows what it is about to read."""
    if not primaries:
        return f"[CKP: loaded 0/{files} files — out of domain]"
    groups = "; ".join(f"{e.file} via {', '.join(e.keywords + e.words)}" for e in primaries)
    flagged = ", ".join(f"{e.file} ~{e.tokens:,} tokens" for e in over)
    return f"[CKP: loaded {loaded}/{files} files — match: {groups}" + (
        f" — over budget: {flagged}]" if flagged else "]"
    )


def describe(e: RouteEntry) -> str:
    """Why a file was loaded, in words: its keywords, or the primary file that pulled it in."""
    matched = ", ".join(e.keywords + e.words)
    if e.reason == "high":
        return f"HIGH of {e.via}" + (f" (also matches {matched})" if matched else "")
    if e.reason == "mid":
        return f"MID of {e.via}, matches {matched}"
    return "matches " + matched
