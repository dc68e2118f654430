"""What each header field means, its value and its limits (SPEC §2), as hover and completion tell
the user; the numbers come from ``limits`` and the concept pattern from ``fields``."""

from __future__ import annotations

from typing import NamedTuple

from ckp_lsp.core.format.fields import CONCEPT_PATTERN
from ckp_lsp.core.format.limits import MAX_KEYWORDS, MAX_TLDR, TIER_CAPS

#: what a relationship of each tier means for loading (SPEC §2's rubric)
TIER_MEANING = {
    "HIGH": "understanding one requires the other — always loaded together",
    "MID": "same domain — loaded when the query also matches its keywords",
}


class FieldDoc(NamedTuple):
    """What a header field means and its limits (SPEC §2)."""

    need: str
    meaning: str
    value: str
    limits: str


FIELD_DOCS = {
    "CONCEPT": FieldDoc(
        "required",
        "The name this file declares; other files relate to it by this name.",
        f"`{CONCEPT_PATTERN}` (lower-case letters, digits, `.`, `_`, `-`)",
        "unique in the bank",
    ),
    "TLDR": FieldDoc(
        "required",
        "What the file is about, for an agent reading the index to decide whether to load it.",
        "one sentence, written for an LLM to read",
        f"at most {MAX_TLDR} characters",
    ),
    "ANSWERS_WHEN": FieldDoc(
        "required",
        "The keywords a query must match for the router to load this file.",
        "comma-separated keywords or short phrases (or a YAML list)",
        f"1–{MAX_KEYWORDS} keywords, no duplicates (case-insensitive)",
    ),
    "SIMILAR_HIGH": FieldDoc(
        "optional",
        f"Concepts this one depends on: {TIER_MEANING['HIGH']}.",
        "comma-separated `concept:DATE` (or a YAML list)",
        f"at most {TIER_CAPS['HIGH']}",
    ),
    "SIMILAR_MID": FieldDoc(
        "optional",
        f"Concepts of the same domain, no direct dependency: {TIER_MEANING['MID']}.",
        "comma-separated `concept:DATE` (or a YAML list)",
        f"at most {TIER_CAPS['MID']}",
    ),
    "CONFIDENCE": FieldDoc(
        "optional",
        "How sure the author (or the compiler) is that the header is right.",
        "`high`, `medium` or `low` (any case)",
        "",
    ),
    "VALIDATED": FieldDoc(
        "recommended",
        "The month the header was last checked; relationships to this file dated earlier are stale.",
        "`YYYY-MM` or `YYYY-MM-DD`",
        "not in the future",
    ),
}
