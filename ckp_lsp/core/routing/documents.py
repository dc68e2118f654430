"""A bank's files as the ranked router reads them: the header, the headings and the body, each analysed.

The header is the file's concept, TLDR, keywords and file name; the headings are its ATX headings;
the body is everything after the header. A bank read from its ``_index.md`` alone (a large bank,
``route_table.read_route_table``) gives only the header of each file.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from ckp_lsp.core.format.fields import BARE_HEADER
from ckp_lsp.core.format.patterns import lazy
from ckp_lsp.core.format.records import Frozen
from ckp_lsp.core.project.within import Folder

from .analysis import terms
from .store import Analysed

#: the fields, in the order of their weights
HEADER, HEADINGS, BODY = 0, 1, 2
FIELD_NAMES = ("header", "headings", "body")
_HEADING = lazy(r"^ {0,3}#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
#: characters of each file read to tell its languages
_SAMPLE = 2000


class FileText(Frozen):
    """One knowledge file's text as the router indexes it."""

    _fields = ("path", "header", "body", "raw")
    __slots__ = _fields

    def __init__(self, path: str, header: str, body: str, raw: str = "") -> None:
        self.path = path
        self.header = header  # concept, TLDR, keywords, file name
        self.body = body  # "" when only the header is known
        self.raw = raw  # the whole file as on disk ("" when only the header is known)


def header_text(path: str, concept: str, tldr: str, keywords: Iterable[str]) -> str:
    """The words of a header the ranking reads: ``auth/jwt-tokens.md`` gives ``jwt tokens`` too."""
    name = path.rsplit("/", 1)[-1].removesuffix(".md")
    return "\n".join((concept.replace("-", " "), tldr, ", ".join(keywords), name.replace("-", " ")))


def read_file_text(disk: Folder, path: str, concept: str, tldr: str, keywords: Iterable[str]) -> FileText:
    """A file of the bank ``disk`` read (its body after the header); only the header when it cannot
    be read, or leads outside the bank (``within.Folder``: a link swapped in since the listing)."""
    head = header_text(path, concept, tldr, keywords)
    try:
        text = disk.read(disk.base + path).text
    except OSError:
        return FileText(path, head, "")
    return FileText(path, head, text[body_offset(text) :], text)


_FRONT_MATTER_END = lazy(r"\n---[ \t]*(?:\r?\n|$)")


def body_offset(text: str) -> int:
    """Where the body starts: after the front matter's closing ``---``, or after the bare header's
    ``KEY: value`` lines (a file without a header is all body; the fields' own words are the
    header field)."""
    if text.startswith("---"):
        end = _FRONT_MATTER_END.search(text, 2)
        return end.end() if end else 0
    m = BARE_HEADER.match(text)
    return m.end() if m else 0


def bank_language(texts: Sequence[FileText]) -> str | None:
    """How the bank's ideographs are segmented (see ``language_of``)."""
    return language_of(texts)


def bank_languages(texts: Sequence[FileText]) -> tuple[str, ...]:
    """The languages of the bank's files (English always; a bank in plain ASCII is English)."""
    found = {"en"}
    sample = [t.header + "\n" + t.body[:_SAMPLE] for t in texts]
    if not all(s.isascii() for s in sample):
        from ..language import languages

        for s in sample:
            if not s.isascii():
                found.update(languages(s))
    return tuple(sorted(found))


def stemmers(languages: tuple[str, ...]) -> tuple[str, ...]:
    """The languages among ``languages`` that Snowball stems."""
    from ..language.stems import stemmed_languages

    return stemmed_languages(languages)


def analyse(t: FileText, language: str | None) -> Analysed:
    """A file's fields counted, and what tells its languages (see ``store``)."""
    found = fields(t, language)
    kana, ideographs = _scripts(t)
    sample = t.header + "\n" + t.body[:_SAMPLE]
    if sample.isascii():
        languages: tuple[str, ...] = ("en",)
    else:
        from ..language import languages as detect

        languages = detect(sample)
    counts = (_count(found[0]), _count(found[1]), _count(found[2]))
    cut = language if kana or ideographs else None
    return Analysed(counts, (len(found[0]), len(found[1]), len(found[2])), kana, ideographs, languages, cut)


def _count(found: list[str]) -> dict[str, int]:
    """Each term's count (a plain loop: most fields are a few words, where Counter costs more)."""
    out: dict[str, int] = {}
    get = out.get
    for term in found:
        out[term] = get(term, 0) + 1
    return out


def _scripts(t: FileText) -> tuple[bool, bool]:
    """Whether the file has kana, and ideographs."""
    kana = ideographs = False
    for part in (t.header, t.body[:_SAMPLE]):
        if not part.isascii():
            from ..language.scripts import CJK_RUN, KANA

            kana = kana or KANA.search(part) is not None
            ideographs = ideographs or CJK_RUN.search(part) is not None
    return kana, ideographs


def language_of(files: Iterable[Analysed | FileText]) -> str | None:
    """How the bank's ideographs are segmented: "ja" when a file has kana, "zh" when ideographs only."""
    ideographs = False
    for f in files:
        kana, ideo = (f.kana, f.ideographs) if isinstance(f, Analysed) else _scripts(f)
        if kana:
            return "ja"
        ideographs = ideographs or ideo
    return "zh" if ideographs else None


def fields(t: FileText, language: str | None) -> tuple[list[str], list[str], list[str]]:
    """A file's terms by field: header, headings, body."""
    if not t.body:
        return terms(t.header, language), [], []
    headings = "\n".join(_HEADING.findall(t.body)) if "#" in t.body else ""
    return terms(t.header, language), terms(headings, language), terms(t.body, language)
