"""What is done with a credential found: CKP080 findings, and text given out with each secret replaced by its placeholder."""

from __future__ import annotations

import bisect

from ckp_lsp.core.agent.secrets import ALLOW_COMMENT, Secret, find_secrets
from ckp_lsp.core.bank.findings import Finding
from ckp_lsp.core.format.patterns import lazy
from ckp_lsp.core.format.text import Span, line_offsets, span_of, split_lines


def placeholder(kind: str) -> str:
    """What a secret of ``kind`` is replaced with: ``<redacted: OPENAI_API_KEY>``."""
    return f"<redacted: {kind}>"


def redact(text: str) -> tuple[str, list[str]]:
    """``text`` with every detected secret replaced by its placeholder, and the kinds replaced
    (in order, each once)."""
    secrets = find_secrets(text)
    if not secrets:
        return text, []
    pieces: list[str] = []
    pos = 0
    for s in secrets:
        pieces += (text[pos : s.start], placeholder(s.kind))
        pos = s.end
    pieces.append(text[pos:])
    return "".join(pieces), list(dict.fromkeys(s.kind for s in secrets))


def redaction_note(kinds: list[str]) -> str:
    """The line an answer carries when it redacted something."""
    return f"[CKP: secrets redacted ({', '.join(kinds)}): each was replaced by <redacted: KIND>]"


_NOTE = lazy(r"\[CKP: secrets redacted \(([A-Z0-9_, ]{1,400})\)")  # (only a text that has one)


def noted_kinds(text: str) -> list[str]:
    """The kinds a ``redaction_note`` in ``text`` names (a text redacted before says so)."""
    if "[CKP: secrets redacted" not in text:
        return []
    return [k.strip() for m in _NOTE.finditer(text) for k in m.group(1).split(",") if k.strip()]


def secret_spans(text: str) -> list[tuple[Secret, Span]]:
    """Each secret with its span in the core's positions (line, UTF-16 column; end exclusive)."""
    found = find_secrets(text)
    if not found:
        return []  # the lines are cut only for a text with a secret
    offsets = line_offsets(text)
    lines = split_lines(text)
    out = []
    for s in found:
        a = bisect.bisect_right(offsets, s.start) - 1
        b = bisect.bisect_right(offsets, s.end) - 1
        if b > a and s.end == offsets[b]:
            b -= 1
        sa = span_of(a, lines[a], s.start - offsets[a], s.start - offsets[a])
        sb = span_of(b, lines[b], s.end - offsets[b], s.end - offsets[b])
        out.append((s, Span(sa.start_line, sa.start_col, sb.end_line, sb.end_col)))
    return out


def secret_findings(text: str) -> list[Finding]:
    """CKP080 on each secret of ``text``; the message never shows the secret."""
    return [
        Finding.of(
            "CKP080",
            span,
            f"a credential ({s.kind}) is written here: every agent that reads this bank and every clone "
            f"of it gets it. Move it to a secret store and revoke it (quick fix: replace it with "
            f"'{placeholder(s.kind)}'); if it is no secret, write {ALLOW_COMMENT} on its line",
            kind=s.kind,
            whole_value=_whole_value(text, s),
        )
        for s, span in secret_spans(text)
    ]


def _whole_value(text: str, s: Secret) -> bool:
    """Whether the secret is all of a plain ``key: value`` (nothing but blanks after it on its line)."""
    line_start = text.rfind("\n", 0, s.start) + 1
    before = text[line_start : s.start].rstrip(" \t")
    end = text.find("\n", s.end)
    after = text[s.end : end if end >= 0 else len(text)]
    return before.endswith(":") and not after.strip()
