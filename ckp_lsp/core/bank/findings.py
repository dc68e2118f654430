"""Findings: what the checker reports, with the stable codes and default severities of SPEC §4."""

from __future__ import annotations

from enum import IntEnum
from typing import Any

from ckp_lsp.core.format.records import Record
from ckp_lsp.core.format.text import Span


class Severity(IntEnum):
    """LSP severity numbers."""

    ERROR = 1
    WARNING = 2
    INFORMATION = 3
    HINT = 4


E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFORMATION

#: code -> (default severity, short title)
CODES: dict[str, tuple[Severity, str]] = {
    "CKP001": (W, "no CKP header"),
    "CKP002": (E, "required field missing"),
    "CKP003": (W, "unknown field"),
    "CKP004": (E, "field appears twice"),
    "CKP005": (E, "required field empty"),
    "CKP006": (E, "front matter is not valid YAML"),
    "CKP009": (E, "file is not UTF-8 text"),
    "CKP010": (E, "invalid CONCEPT name"),
    "CKP011": (E, "duplicate CONCEPT in the bank"),
    "CKP020": (W, "TLDR too long or more than one sentence"),
    "CKP030": (W, "duplicate keyword"),
    "CKP031": (W, "more than 20 keywords"),
    "CKP032": (I, "keyword claimed by 3+ other concepts"),
    "CKP040": (E, "malformed relationship entry"),
    "CKP041": (E, "unknown concept"),
    "CKP042": (E, "file relates to itself"),
    "CKP043": (W, "concept twice in one tier"),
    "CKP044": (E, "concept in both SIMILAR_HIGH and SIMILAR_MID"),
    "CKP045": (W, "too many relationships"),
    "CKP046": (W, "relationship has no date"),
    "CKP050": (W, "stale relationship"),
    "CKP051": (E, "malformed or impossible date"),
    "CKP052": (W, "date in the future"),
    "CKP060": (E, "invalid CONFIDENCE"),
    "CKP070": (W, "_index.md out of date"),
    "CKP071": (W, "_index.md over its token budget"),
    "CKP072": (E, "_index.md holds merge conflict markers"),
    "CKP080": (E, "a secret in a knowledge file"),
}


class Finding(Record):
    """One diagnostic: a code, where, what is wrong and what to do; ``data`` feeds quick fixes."""

    _fields = ("code", "span", "message", "severity", "data")
    __slots__ = _fields

    def __init__(
        self,
        code: str,
        span: Span,
        message: str,
        severity: Severity = Severity.WARNING,
        data: dict[str, Any] | None = None,
    ) -> None:
        self.code = code
        self.span = span
        self.message = message
        self.severity = severity
        self.data: dict[str, Any] = {} if data is None else data

    @classmethod
    def of(cls, code: str, span: Span, message: str, **data: Any) -> Finding:
        """A finding with the code's default severity."""
        return cls(code, span, message, CODES[code][0], data)


def apply_overrides(findings: list[Finding], overrides: dict[str, Severity | None]) -> list[Finding]:
    """Findings with user severities applied; codes set to ``off`` (None) are dropped."""
    if not overrides:
        return findings
    out = []
    for f in findings:
        if f.code in overrides:
            sev = overrides[f.code]
            if sev is None:
                continue
            f = Finding(f.code, f.span, f.message, sev, f.data)
        out.append(f)
    return out
