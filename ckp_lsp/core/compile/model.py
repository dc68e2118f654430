"""The values that flow through compilation: what the compiler sees of the bank, and what it answers."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class ConceptSummary:
    """Another concept of the bank, as the compiler sees it (its header only)."""

    concept: str
    tldr: str
    answers_when: tuple[str, ...] = ()
    similar: tuple[str, ...] = ()  # the concepts its header relates to (SIMILAR_HIGH and _MID)


@dataclass(frozen=True)
class CompileInput:
    """What a compiler gets: the file's body, its current concept (if any) and the bank's others."""

    body: str
    concept: str | None
    others: tuple[ConceptSummary, ...]
    path_hint: str = ""  # file name without extension, a hint for a concept name
    title: str = ""  # the title its front matter gives, if any
    description: str = ""  # the description (or summary) its front matter gives, if any
    current: tuple[str, ...] = ()  # the concepts the file's header relates to now


@dataclass
class Answer:
    """The answer contract of SPEC §7, before dates are added.

    SIMILAR_* hold concept names in the model's order of importance.
    """

    tldr: str
    answers_when: list[str]
    similar_high: list[str] = field(default_factory=list)
    similar_mid: list[str] = field(default_factory=list)
    confidence: str = "medium"
    concept: str | None = None


class CompileError(Exception):
    """A compile failed: the message says what went wrong and what to do."""
