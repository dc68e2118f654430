"""What an offline compile keeps of a header (SPEC §7): a recompile may only add.

The offline compiler cannot judge what an author wrote, so it keeps every existing relationship
with its date (removing only entries naming concepts that do not exist), every keyword and a valid
CONFIDENCE; it adds relationships it found evidence for (dated now) within the caps, and a few of
the body's most distinctive terms the keywords do not cover yet. A valid human TLDR is kept;
VALIDATED is set only where the file had none. Filling (``compile --all`` without ``--force``)
keeps every field that is there and valid, and adds only the missing ones.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from ckp_lsp.core.format.knowledge import KnowledgeFile
from ckp_lsp.core.format.limits import MAX_HIGH, MAX_KEYWORDS, MAX_MID, MAX_TLDR

from .answer import sentence_count
from .model import Answer
from .offline.summary import acceptable
from .offline.terms import keyword_key

Values = dict[str, str | list[str]]


_TITLE = re.compile(r"""^title[ \t]*:[ \t]*(['"]?)(.*?)\1[ \t]*$""", re.MULTILINE)


def front_matter_title(kf: KnowledgeFile, text: str) -> str:
    """The `title:` of a file's front matter (the user's key, kept by every rewrite), or ''."""
    header = kf.header
    if header is None or header.form != "frontmatter" or "title" not in header.user_keys:
        return ""
    lines = text.splitlines()[1 : header.end_line]
    found = _TITLE.search("\n".join(lines))
    return found.group(2).strip() if found else ""


_DESCRIPTION_KEYS = ("description", "summary")


def front_matter_description(kf: KnowledgeFile, text: str) -> str:
    """The `description:` (else `summary:`) of a file's front matter as one line, or '': the
    sentence its author (a Claude Code memory file, a Cursor rule) wrote to say what it is about."""
    header = kf.header
    if header is None or header.form != "frontmatter":
        return ""
    keys = {k.casefold(): k for k in header.user_keys}
    if not any(k in keys for k in _DESCRIPTION_KEYS):
        return ""
    lines = [line for line in text.splitlines()[1 : header.end_line] if line.strip() not in ("---", "...")]
    try:
        import yaml

        data = yaml.safe_load("\n".join(lines))
    except Exception:  # any YAML problem is the header check's to report; no description here
        return ""
    if not isinstance(data, dict):
        return ""
    for key in _DESCRIPTION_KEYS:
        value = data.get(keys.get(key, key))
        if isinstance(value, str) and value.strip():
            return " ".join(value.split())
    return ""


def tldr_valid(text: str) -> bool:
    """Whether a TLDR meets SPEC §2: one sentence, not empty, at most 200 characters."""
    text = text.strip()
    return bool(text) and len(text) <= MAX_TLDR and sentence_count(text) == 1


def kept_tldr(kf: KnowledgeFile | None, fill: bool) -> str | None:
    """The file's own TLDR if an offline compile keeps it: valid when filling, else also a real
    sentence (not a metadata line, a lead-in or a placeholder)."""
    if kf is None or not tldr_valid(kf.tldr):
        return None
    return kf.tldr if fill or acceptable(kf.tldr) else None


def kept_keywords(kf: KnowledgeFile | None, fill: bool) -> tuple[str, ...] | None:
    """The file's own ANSWERS_WHEN if filling keeps it."""
    if kf is None or not fill or not kf.keyword_texts:
        return None
    return tuple(kf.keyword_texts)


#: how many of the compiler's first keywords a recompile may add to an author's list: a fixed few
#: of its best, so that a second recompile adds nothing more
ADDED_KEYWORDS = 4


def merged_keywords(own: list[str], compiled: list[str]) -> list[str]:
    """An author's keywords, all kept in their order, and those of the compiler's first few that
    name a topic the list does not cover yet (none of their words is a keyword word already)."""
    if not own:
        return list(compiled)
    covered = {k for kw in own for k in keyword_key(kw).split()}
    out = list(own)
    for keyword in compiled[1 : ADDED_KEYWORDS + 1]:  # its first one is the concept's own name
        parts = keyword_key(keyword).split()
        if len(out) >= MAX_KEYWORDS or not parts or covered.intersection(parts):
            continue
        out.append(keyword)
        covered.update(parts)
    return out


def offline_values(
    kf: KnowledgeFile | None,
    answer: Answer,
    concept: str,
    month: str,
    known: Collection[str],
    *,
    fill: bool,
) -> Values:
    """The header fields after an offline compile of a file whose header was `kf`."""
    written = kf.written() if kf is not None else {}
    tldr = kept_tldr(kf, fill) or answer.tldr
    own = list(kf.keyword_texts) if kf is not None else []
    keywords = own if fill and own else merged_keywords(own, answer.answers_when)
    high, mid = _relationships(kf, answer, concept, month, known, fill)
    confidence = (kf.confidence if kf is not None else "").strip().lower()
    if confidence not in ("high", "medium", "low"):
        confidence = answer.confidence
    validated = kf.validated_text if kf is not None and kf.validated is not None else month
    values: Values = {
        "CONCEPT": concept,
        "TLDR": tldr,
        "ANSWERS_WHEN": keywords,
        "SIMILAR_HIGH": high,
        "SIMILAR_MID": mid,
        "CONFIDENCE": confidence,
        "VALIDATED": validated,
    }
    if written.get("VALIDATED") and kf is not None and kf.validated is None:
        values["VALIDATED"] = month  # an unreadable date is no date
    return values


def _relationships(
    kf: KnowledgeFile | None, answer: Answer, concept: str, month: str, known: Collection[str], fill: bool
) -> tuple[list[str], list[str]]:
    """SIMILAR_HIGH and SIMILAR_MID: existing entries kept, evidence added where there is room."""
    present: set[str] = {concept}
    high: list[str] = []
    mid: list[str] = []
    had_high = had_mid = False
    for other, level, date_text, _ in kf.relations if kf is not None else ():
        had_high = had_high or level == "HIGH"
        had_mid = had_mid or level == "MID"
        if other not in known or other in present:
            continue  # names no concept of the bank, or repeats one
        present.add(other)
        entry = f"{other}:{date_text}" if date_text else f"{other}:{month}"
        (high if level == "HIGH" else mid).append(entry)
    if kf is not None and kf.header is not None:
        keys = {f.key for f in kf.header.fields}
        had_high, had_mid = had_high or "SIMILAR_HIGH" in keys, had_mid or "SIMILAR_MID" in keys
    mid = (high[MAX_HIGH:] + mid)[:MAX_MID]  # over the HIGH cap: kept one tier lower
    high = high[:MAX_HIGH]
    add_high, add_mid = not (fill and had_high), not (fill and had_mid)
    # Additions stop where the compiler's own list would: an author's many links are kept, and a
    # file gains none that would make it pull in more of the bank than either list does.
    room = max(len(high) + len(mid), len(answer.similar_high) + len(answer.similar_mid))
    for other in answer.similar_high:
        if other in present or other not in known or len(high) + len(mid) >= room:
            continue
        if add_high and len(high) < MAX_HIGH:
            high.append(f"{other}:{month}")
        elif add_mid and len(mid) < MAX_MID:
            mid.append(f"{other}:{month}")
        else:
            continue
        present.add(other)
    for other in answer.similar_mid:
        if len(high) + len(mid) >= room:
            break
        if other not in present and other in known and add_mid and len(mid) < MAX_MID:
            mid.append(f"{other}:{month}")
            present.add(other)
    return high, mid
