"""What a router decided for one question (SPEC §6): the files, why, the declaration and the tokens."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

#: a loaded file over this many tokens is flagged (``file_budget_tokens`` in the configuration)
FILE_BUDGET_TOKENS = 8000


@dataclass(slots=True)
class RouteEntry:
    """A file the router loaded (or matched without loading), and why."""

    concept: str
    file: str
    reason: str  # "match", "high" or "mid"; "match" for a file matched but not loaded
    keywords: list[str]  # the file's keywords the query matched, as written
    via: str | None  # the primary concept that pulled a HIGH or MID file in
    tokens: int
    over_budget: bool = False  # more tokens than ``file_budget_tokens``
    #: the question's words the file holds beyond its keywords (headings, body), as written (6b)
    words: list[str] = field(default_factory=list)
    relevance: float = 0.0  # the ranked router's score (6b); 0 for the index pattern

    @property
    def score(self) -> int:
        return len(self.keywords)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class RouteTokens:
    """Token estimates of one query: the index, the loaded files, and the totals with and without CKP."""

    index: int
    loaded: int
    with_ckp: int
    without_ckp: int

    @property
    def reduction(self) -> float:
        """The share of tokens CKP saves, 0-1."""
        return 1 - self.with_ckp / self.without_ckp if self.without_ckp else 0.0

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


@dataclass
class RouteResult:
    """What the router decided for one query."""

    query: str
    loaded: list[RouteEntry]
    matched_not_loaded: list[RouteEntry]
    out_of_domain: bool
    declaration: str
    tokens: RouteTokens
    files: int  # knowledge files in the bank (Y of the declaration)
    primaries: list[RouteEntry] = field(default_factory=list)
    file_budget_tokens: int = FILE_BUDGET_TOKENS

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
