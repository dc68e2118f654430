"""The question's compounds (`cross-encoder`) that a file holds only apart, as coincidences.

The analysis reads `cross-encoder` as two words. A file that holds both, apart or in another form
(`cross-platform`, `encoding`), where the bank never writes one of them as the question does,
holds something else: those pieces count nothing toward its share of the question. A file that
holds only one piece of a compound holds it as any word (`Archive` for `Kontext-Archiv`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from ckp_lsp.core.format.patterns import lazy

from .analysis import QueryWord
from .postings import Postings

#: a compound of words of two letters or more (`cross-encoder`, `Parquet-Dateien`; not `a-t-on`);
#: it starts only where no word or hyphen precedes, so the search is linear
COMPOUND = lazy(r"(?<![\w-])[^\W\d_]{2,}(?:-[^\W\d_]{2,})+(?![\w-])")


def held_apart(
    query: str,
    groups: Sequence[tuple[QueryWord, frozenset[str]]],
    best: int,
    postings: Postings,
    stops: Collection[str],
) -> frozenset[str]:
    """The pieces (case-folded) of the question's compounds that file `best` holds only apart."""
    if "-" not in query:
        return frozenset()
    files = {w.written.casefold(): postings.files_of(g) for w, g in groups if g}
    out: set[str] = set()
    for compound in COMPOUND.findall(query):
        pieces = [p for p in compound.casefold().split("-") if p not in stops]
        if (
            len(pieces) >= 2
            and any(p not in postings.vocabulary for p in pieces)
            and all(best in files.get(p, ()) for p in pieces)
        ):
            out.update(pieces)
    return frozenset(out)
