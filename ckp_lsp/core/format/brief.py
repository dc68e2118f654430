"""A knowledge file in brief: the plain values the fast scan read, as the cache keeps them and another process is sent them."""

from __future__ import annotations

from ckp_lsp.core.format.knowledge import KnowledgeFile, Relation, _valid_date
from ckp_lsp.core.format.text import Span

#: a clean file in plain values (quick to send to another process): path, size, CONCEPT, TLDR, CONFIDENCE,
#: VALIDATED as written, keywords, relations without their dates, header text, CONCEPT's span
Brief = tuple[
    str, int, str, str, str, str, list[str], list[tuple[str, str, str]], str, tuple[int, int, int, int]
]


def brief(kf: KnowledgeFile) -> Brief | None:
    """A file read by the fast scan, in plain values; None for one the full parser read."""
    if kf._source is None or kf.concept is None or kf._concept_span is None:
        return None
    relations = [(c, t, d or "") for c, t, d, _ in kf.relations]
    s = kf._concept_span
    span = (s.start_line, s.start_col, s.end_line, s.end_col)
    return (
        kf.path,
        kf.size,
        kf.concept,
        kf.tldr,
        kf.confidence,
        kf.validated_text,
        kf.keyword_texts,
        relations,
        kf._source,
        span,
    )


def from_brief(b: Brief) -> KnowledgeFile | None:
    """The file ``brief`` described; None when a date of it is not valid (not one the fast scan
    would have read)."""
    path, size, concept, tldr, confidence, validated_text, keywords, relations, source, span = b
    validated = _valid_date(validated_text)
    if validated is None:
        return None
    dated: list[Relation] = []
    for name, tier, date_text in relations:
        date = _valid_date(date_text)
        if date is None:
            return None
        dated.append((name, tier, date_text, date))
    kf = KnowledgeFile(path, None, size)
    kf.concept, kf.tldr, kf.confidence = concept, tldr, confidence
    kf.validated, kf.validated_text = validated, validated_text
    kf.keyword_texts, kf.relations = keywords, dated
    kf._source = source
    kf._concept_span = Span(*span)
    return kf
