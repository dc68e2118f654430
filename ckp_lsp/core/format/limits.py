"""SPEC's numbers, in one place: every check, hover, prompt and compiler takes them from here."""

from __future__ import annotations

#: most entries of SIMILAR_HIGH and of SIMILAR_MID (SPEC §2; CKP045)
MAX_HIGH = 3
MAX_MID = 5
TIER_CAPS = {"HIGH": MAX_HIGH, "MID": MAX_MID}
#: most keywords of ANSWERS_WHEN (CKP031)
MAX_KEYWORDS = 20
#: most characters of a TLDR (CKP020)
MAX_TLDR = 200
#: most primary files the index pattern loads for a question (SPEC §6a)
MAX_PRIMARY = 3
#: a keyword claimed by this many other concepts is ambiguous (CKP032)
CLAIM_LIMIT = 3
#: the token budget of ``_index.md`` unless configured (CKP071)
INDEX_BUDGET_TOKENS = 4000
