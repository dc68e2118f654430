"""A bank's files as the ranked router reads them: the header, the headings and the body, each analysed.

The header is the file's concept, TLDR, keywords and file name; the headings are its ATX headings;
the body is everything after the header. A bank read from its ``_index.md`` alone (a large bank,
``route_table.read_route_table``) gives only the header of each file.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from .analysis import terms

#: the fields, in the order of their weights
HEADER, HEADINGS, BODY = 0, 1, 2
FIELD_NAMES = ("header", "headings", "body")
_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
_KANA = re.compile("[\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f]")
_IDEOGRAPH = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f]")
#: characters of each file read to tell its languages
_SAMPLE = 2000


@dataclass(frozen=True, slots=True)
class FileText:
    """One knowledge file's text as the router indexes it."""

    path: str
    header: str  # concept, TLDR, keywords, file name
    body: str  # "" when only the header is known
    raw: str = ""  # the whole file as on disk ("" when only the header is known)


def header_text(path: str, concept: str, tldr: str, keywords: Iterable[str]) -> str:
    """The words of a header the ranking reads: ``auth/jwt-tokens.md`` gives ``jwt tokens`` too."""
    name = path.rsplit("/", 1)[-1].removesuffix(".md")
    return "\n".join((concept.replace("-", " "), tldr, ", ".join(keywords), name.replace("-", " ")))


def read_file_text(root: Path, path: str, concept: str, tldr: str, keywords: Iterable[str]) -> FileText:
    """A file read from disk (its body after the header); only the header when it cannot be read."""
    from ..bank import read_text
    from ..rewrite import header_region

    head = header_text(path, concept, tldr, keywords)
    try:
        text, _ = read_text(root / path)
    except OSError:
        return FileText(path, head, "")
    return FileText(path, head, text[header_region(text).body_offset :], text)


def bank_language(texts: Sequence[FileText]) -> str | None:
    """How the bank's ideographs are segmented: "ja" when it has kana, "zh" when ideographs only."""
    kana = ideographs = False
    for t in texts:
        for part in (t.header, t.body[:_SAMPLE]):
            if part.isascii():
                continue
            kana = kana or _KANA.search(part) is not None
            ideographs = ideographs or _IDEOGRAPH.search(part) is not None
        if kana:
            return "ja"
    return "zh" if ideographs else None


def stemmers(texts: Sequence[FileText]) -> tuple[str, ...]:
    """The Snowball languages of the bank's files (English always)."""
    found = {"en"}
    sample = [t.header + "\n" + t.body[:_SAMPLE] for t in texts]
    if not all(s.isascii() for s in sample):
        from ..language import languages

        for s in sample:
            if not s.isascii():
                found.update(languages(s))
    from ..language.stems import stemmed_languages

    return stemmed_languages(tuple(sorted(found)))


def fields(t: FileText, language: str | None) -> tuple[list[str], list[str], list[str]]:
    """A file's terms by field: header, headings, body."""
    headings = "\n".join(_HEADING.findall(t.body)) if "#" in t.body else ""
    return terms(t.header, language), terms(headings, language), terms(t.body, language)
