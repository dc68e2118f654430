"""A whole bank compiled offline in phases, so that no file's header depends on file order.

1. Read every body; the bank's languages and word statistics come from all of them.
2. Name every file that has no concept (in path order, so clashes resolve the same way).
3. Keywords and TLDR of every file, against the whole bank.
4. Relationships from the evidence of every body about every concept, both ways.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from functools import partial

from ckp_lsp.core.format.limits import CLAIM_LIMIT

from ...language import languages as text_languages
from ..model import Answer
from .concept import derive_concept, file_stem
from .keywords import Chosen, choose_keywords, keyword_name
from .reading import MAX_BODY, Reading, cjk_of, read_body, term_keys
from .relationships import Evidence, Relating, profile, ranked_tiers, tier
from .subjects import heading_key
from .summary import DESCRIPTION, PARAGRAPH, confidence, described, title_of, tldr
from .terms import Corpus, corpus_stops, part_keys
from .text import clean
from .trials import MAX_FILES, Trial, passages, tune

Progress = Callable[[str, int, int], None]  # (phase, done, total)

_SHARE_ROUNDS = 3


def _over_claimed(chosen: list[Chosen]) -> dict[int, frozenset[str]]:
    """Keywords more files claim than CLAIM_LIMIT, taken from all but the files that rank them
    highest (by file, the keywords it loses). A file's kept keywords and its name are never lost."""
    claims: dict[str, list[tuple[float, int]]] = {}
    for i, c in enumerate(chosen):
        for keyword in c.keywords[1:]:
            folded = keyword.casefold()
            claims.setdefault(folded, []).append((c.ranks.get(folded, float("inf")), i))
    lost: dict[int, set[str]] = {}
    for keyword, claimants in claims.items():
        if len(claimants) > CLAIM_LIMIT:
            claimants.sort(key=lambda rank_file: (-rank_file[0], rank_file[1]))
            for rank, i in claimants[CLAIM_LIMIT:]:
                if rank != float("inf"):
                    lost.setdefault(i, set()).add(keyword)
    return {i: frozenset(k) for i, k in lost.items()}


def _tried(
    ordered: list[BankFile],
    readings: list[Reading],
    concepts: list[str],
    cjks: list[str | None],
    chosen: list[Chosen],
) -> list[Chosen]:
    """The keyword lists after the trials on the bank's own passages (``trials``)."""
    trials = []
    claims: Counter[str] = Counter()
    for f, reading, concept, cjk, c in zip(ordered, readings, concepts, cjks, chosen, strict=True):
        keys = partial(part_keys, cjk=cjk)
        free = f.keywords is None
        mine = c.keywords[1:] if free else []
        order = sorted(mine, key=lambda k: -c.ranks.get(k.casefold(), 0.0))
        claims.update(k.casefold() for k in c.keywords[1:])
        trials.append(
            Trial(
                concept=concept,
                fixed=[frozenset(keys(k)) for k in [concept, *(c.keywords[:1] if free else c.keywords)]],
                chosen=[(k, frozenset(keys(k))) for k in order],
                spare=[(shown, frozenset(k)) for shown, k in c.spare],
                passages=passages(reading.blocks, keys),
                free=free,
            )
        )
    lists = tune(trials, claims, CLAIM_LIMIT)
    out = []
    for c, t, new in zip(chosen, trials, lists, strict=True):
        if not t.free:
            out.append(c)
            continue
        kept = [k for k in c.keywords[1:] if k in new]
        out.append(c._replace(keywords=[*c.keywords[:1], *kept, *(k for k in new if k not in kept)]))
    return out


@dataclass(frozen=True)
class BankFile:
    """One file of the bank to compile: its body, and what of its header is kept as it is."""

    rel: str
    body: str
    concept: str | None = None  # its valid CONCEPT, kept; None: one is derived
    tldr: str | None = None  # a TLDR to keep; None: one is compiled
    keywords: tuple[str, ...] | None = None  # ANSWERS_WHEN to keep; None: compiled
    title: str = ""  # the title its front matter gives, if any
    description: str = ""  # the description (or summary) its front matter gives, if any
    target: bool = True  # False: its header will not be written, so no header may name its concept


def compile_bank(files: Iterable[BankFile], progress: Progress | None = None) -> dict[str, Answer]:
    """Every file's answer (CONCEPT set only where the file had none), by path."""
    ordered = sorted(files, key=lambda f: f.rel)
    total = len(ordered)
    step = progress or (lambda phase, done, total: None)
    langs: set[str] = set()
    cjks: list[str | None] = []  # each file's ideographs are read as Japanese (kana) or Chinese
    for f in ordered:
        text = clean(f.body[:MAX_BODY])
        langs.update(text_languages(text))
        cjks.append(cjk_of(text))
    stops = corpus_stops(langs)
    df: Counter[str] = Counter()
    corpus = Corpus(files=total, df=df, stops=stops, syllabic="vi" in langs)
    corpora = {cjk: replace(corpus, cjk=cjk) for cjk in set(cjks)}  # the same counts, shared
    readings: list[Reading] = []
    weight: Counter[str] = Counter()
    for n, (f, cjk) in enumerate(zip(ordered, cjks, strict=True), 1):
        reading = read_body(f.body, corpora[cjk])
        readings.append(reading)
        df.update(term_keys(reading))
        weight.update({key: term.score for key, term in reading.terms.items()})
        step("reading", n, total)
    mass = sum(weight.values())
    corpora = {cjk: replace(c, weight=weight, mass=mass) for cjk, c in corpora.items()}

    taken = {f.concept for f in ordered if f.concept}
    concepts: list[str] = []
    for f, reading, cjk in zip(ordered, readings, cjks, strict=True):
        if f.concept:
            concepts.append(f.concept)
        else:
            concepts.append(derive_concept(f.rel, title_of(reading.blocks, f.title), taken, cjk))
            taken.add(concepts[-1])

    names = Counter(" ".join(part_keys(c)) for c in concepts)
    main = next((code for code in sorted(langs) if code != "en"), "en")
    summaries: list[tuple[str, str]] = []
    excluded: list[frozenset[str]] = [frozenset() for _ in ordered]
    keyword_lists: list[Chosen] = []
    name_keys = frozenset(names)  # another concept's name routes to that concept, not here
    todo = [i for i, f in enumerate(ordered) if f.keywords is None]
    keyword_lists = [
        Chosen(list(f.keywords), 0, {}) if f.keywords is not None else Chosen([], 0, {}) for f in ordered
    ]
    for _ in range(_SHARE_ROUNDS):
        for i in todo:
            reading, concept, cjk = readings[i], concepts[i], cjks[i]
            keyword_lists[i] = choose_keywords(
                reading.terms, keyword_name(concept), corpora[cjk], name_keys, reading.headings, excluded[i]
            )
        over = _over_claimed(keyword_lists)
        for i, lost in over.items():
            excluded[i] = excluded[i] | lost
        todo = sorted(over)  # only the files that gave a keyword up choose again
        if not todo:
            break
    if len(ordered) <= MAX_FILES and any(f.keywords is None for f in ordered):
        keyword_lists = _tried(ordered, readings, concepts, cjks, keyword_lists)
    step("keywords", total, total)
    # A title several files carry is the project's name, not what one file is about; no two files
    # get the same TLDR (the ones kept first, then in path order).
    titles = [
        title_of(reading.blocks, f.title).casefold() for f, reading in zip(ordered, readings, strict=True)
    ]
    shared = {t for t, n in Counter(titles).items() if t and n > 1}
    # A heading several files carry (`Original Request` in every task file) is a template's.
    heading_counts = Counter(k for reading in readings for k in {heading_key(h) for h in reading.headings})
    common = frozenset(k for k, n in heading_counts.items() if k and n > 1)
    taken = {f.tldr.casefold() for f in ordered if f.tldr is not None}
    for n, (f, reading, concept, cjk) in enumerate(zip(ordered, readings, concepts, cjks, strict=True), 1):
        if f.tldr is not None:
            summaries.append((f.tldr, PARAGRAPH))
        elif f.description and described(f.description) and described(f.description).casefold() not in taken:
            summaries.append((described(f.description), DESCRIPTION))
        else:
            summaries.append(
                tldr(
                    reading.blocks,
                    concept,
                    corpora[cjk],
                    main,
                    f.title,
                    keywords=keyword_lists[n - 1].keywords,
                    taken=taken,
                    title_shared=titles[n - 1] in shared,
                    common_headings=common,
                )
            )
        taken.add(summaries[-1][0].casefold())
        step("summaries", n, total)

    profiles = [
        profile(concept, summary, tuple(chosen.keywords), stops, cjk, stem_name=file_stem(f.rel))
        for f, concept, (summary, _), chosen, cjk in zip(
            ordered, concepts, summaries, keyword_lists, cjks, strict=True
        )
    ]
    relating = Relating(profiles, corpus)
    evidence: list[dict[int, Evidence]] = []
    for n, (reading, concept) in enumerate(zip(readings, concepts, strict=True), 1):
        evidence.append(relating.evidence(reading, skip=concept))
        step("relationships", n, total)
    back: list[dict[int, Evidence]] = [{} for _ in ordered]
    for a, found in enumerate(evidence):
        for b, e in found.items():
            back[b][a] = e

    answers: dict[str, Answer] = {}
    none = Evidence()
    for a, f in enumerate(ordered):
        candidates = []
        for b in sorted(set(evidence[a]) | set(back[a])):
            ab, ba = evidence[a].get(b, none), back[a].get(b, none)
            level = tier(ab, ba)
            if level and concepts[b] != concepts[a] and ordered[b].target:
                candidates.append((concepts[b], level, ab.strength + ba.strength / 2))
        high, mid = ranked_tiers(candidates, total)
        keywords, strong = keyword_lists[a].keywords, keyword_lists[a].strong
        summary, source = summaries[a]
        answers[f.rel] = Answer(
            tldr=summary,
            answers_when=keywords,
            similar_high=high,
            similar_mid=mid,
            confidence=confidence(readings[a].words, source, strong),
            concept=None if f.concept else concepts[a],
        )
    return answers
