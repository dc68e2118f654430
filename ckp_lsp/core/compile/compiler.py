"""Recompiling a file's header (SPEC §7): from its body and the bank's other headers.

One path for every compiler: build the input, get an answer (offline, or from a provider with
one repair round), enforce the answer contract, add the dates, rewrite the header only, and
validate the result. Failures are ``CompileError`` values with what to do.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from pathlib import PurePosixPath

from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.bank.checks import bank_findings
from ckp_lsp.core.bank.findings import Severity
from ckp_lsp.core.edit.rewrite import body_of, header_region, replace_header
from ckp_lsp.core.format.fields import CONCEPT_RE
from ckp_lsp.core.format.knowledge import read_knowledge_file

from .answer import answer_problems, normalize_answer, parse_answer
from .candidates import DEFAULT_CANDIDATES, candidates
from .job import Job, Usage, as_job
from .merge import front_matter_description, front_matter_title, offline_values
from .model import Answer, CompileError, CompileInput, ConceptSummary
from .offline import compile_offline
from .prompt import build_prompt, build_repair_prompt
from .providers import Provider


@dataclass(frozen=True)
class Compiled:
    """A recompiled file: ``header`` replaces ``replaced`` (the old header) at the top of the text."""

    text: str
    header: str
    replaced: str
    answer: Answer
    cached: bool = False
    usage: Usage = field(
        default_factory=Usage
    )  # what the model's requests cost (none when offline or cached)


def compile_input(bank: Bank, rel: str, text: str) -> CompileInput:
    """What the compiler sees: the body, the current concept, the other concepts' headers."""
    kf = read_knowledge_file(rel, text)
    concept = kf.concept if kf.concept and CONCEPT_RE.match(kf.concept) else None
    others = tuple(
        ConceptSummary(o.concept, o.tldr, tuple(o.keyword_texts), tuple(r[0] for r in o.relations))
        for o in bank.sorted_files()
        if o.concept and o.path != rel and o.concept != concept
    )
    return CompileInput(
        body=body_of(text),
        concept=concept,
        others=others,
        path_hint=PurePosixPath(rel).stem,
        current=tuple(r[0] for r in kf.relations),
        title=front_matter_title(kf, text),
        description=front_matter_description(kf, text),
    )


_CACHE: OrderedDict[str, Answer] = OrderedDict()
_CACHE_SIZE = 256
_CACHE_LOCK = threading.Lock()


def _cache_key(inp: CompileInput, provider: Provider | None) -> str:
    h = hashlib.sha256()
    h.update(repr((provider.name if provider else "offline", getattr(provider, "model", ""))).encode())
    h.update(repr(getattr(provider, "candidates", DEFAULT_CANDIDATES)).encode())
    h.update(repr((inp.body, inp.concept, inp.path_hint, inp.title, inp.description, inp.others)).encode())
    return h.hexdigest()


def get_answer(inp: CompileInput, provider: Provider | None, timeout: float | Job) -> tuple[Answer, bool]:
    """The normalised answer for ``inp`` and whether it came from the cache; ``timeout`` is the
    deadline of the whole answer (the repair round included), or the job carrying it."""
    key = _cache_key(inp, provider)
    with _CACHE_LOCK:  # ``compile --jobs`` asks from several threads
        if key in _CACHE:
            _CACHE.move_to_end(key)
            return _CACHE[key], True
    known = [o.concept for o in inp.others]
    taken = set(known)
    if provider is None:
        answer = _unique_concept(normalize_answer(compile_offline(inp), known, inp.concept), taken)
    else:
        answer = _ask(inp, provider, as_job(timeout), known, taken)
    with _CACHE_LOCK:
        _CACHE[key] = answer
        if len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return answer, False


def _ask(inp: CompileInput, provider: Provider, job: Job, known: list[str], taken: set[str]) -> Answer:
    # The prompt lists a bounded few of the others, so that it does not grow with the bank; an
    # answer may still name any concept of the bank.
    inp = replace(inp, others=candidates(inp, getattr(provider, "candidates", DEFAULT_CANDIDATES)))
    raw = provider.complete(build_prompt(inp), job)
    answer = normalize_answer(parse_answer(raw), known, inp.concept)
    problems = answer_problems(answer, needs_concept=inp.concept is None, taken=taken)
    if not problems:
        return answer
    raw = provider.complete(build_repair_prompt(inp, raw, problems), job)
    answer = normalize_answer(parse_answer(raw), known, inp.concept)
    problems = answer_problems(answer, needs_concept=inp.concept is None, taken=taken)
    if problems:
        raise CompileError(
            "the model's answer still breaks the header rules after one repair ("
            + "; ".join(problems)
            + "): nothing was changed; try again or choose another model"
        )
    return answer


def _unique_concept(answer: Answer, taken: set[str]) -> Answer:
    if answer.concept is None or answer.concept not in taken:
        return answer
    n = 2
    while f"{answer.concept}-{n}" in taken:
        n += 1
    answer.concept = f"{answer.concept}-{n}"
    return answer


def header_values(answer: Answer, concept: str, month: str) -> dict[str, str | list[str]]:
    """The header fields of ``answer``, relationship dates and VALIDATED set to ``month``."""
    return {
        "CONCEPT": concept,
        "TLDR": answer.tldr,
        "ANSWERS_WHEN": list(answer.answers_when),
        "SIMILAR_HIGH": [f"{c}:{month}" for c in answer.similar_high],
        "SIMILAR_MID": [f"{c}:{month}" for c in answer.similar_mid],
        "CONFIDENCE": answer.confidence,
        "VALIDATED": month,
    }


def compile_header(
    bank: Bank,
    rel: str,
    text: str,
    provider: Provider | None = None,
    timeout: float | Job = 60.0,
    month: str | None = None,
) -> Compiled:
    """Recompile the header of ``text`` (the file ``rel`` of ``bank``); raises CompileError.

    ``timeout`` is the deadline of the answer in seconds, or a Job (which can also be cancelled);
    ``month`` is the VALIDATED written, the month of ``bank.today`` unless given."""
    inp = compile_input(bank, rel, text)
    job = as_job(timeout)
    answer, cached = get_answer(inp, provider, job)
    concept = inp.concept or answer.concept
    if not concept:
        raise CompileError(
            "the compiler gave no CONCEPT for a file that has none; add a CONCEPT line and try again"
        )
    month = month or bank.this_month()
    if provider is None:
        kf = read_knowledge_file(rel, text)
        known = {c for c in bank.by_concept if c} | {concept}
        values = offline_values(
            kf if kf.header is not None else None, answer, concept, month, known, fill=False
        )
    else:
        values = header_values(answer, concept, month)
    header, replaced = replace_header(text, values)
    new_text = header + text[len(replaced) :]
    _validate(bank, rel, new_text)
    return Compiled(new_text, header, replaced, answer, cached, job.usage)


def _validate(bank: Bank, rel: str, text: str) -> None:
    """The compiled header must carry no error-level finding (SPEC §7)."""
    kf = read_knowledge_file(rel, text)
    body_line = header_region(text).body_line
    # A secret in the body is the body's (a compile never touches it); one in the header is refused.
    errors = [
        f
        for f in kf.local
        if f.severity == Severity.ERROR and not (f.code == "CKP080" and f.span.start_line >= body_line)
    ]
    scratch = Bank(bank.root, bank.config, bank.dates, bank.today)
    scratch.files, scratch.by_concept = dict(bank.files), {k: list(v) for k, v in bank.by_concept.items()}
    scratch.files.pop(rel, None)
    for paths in scratch.by_concept.values():
        if rel in paths:
            paths.remove(rel)
    scratch.by_concept = {k: v for k, v in scratch.by_concept.items() if v}
    scratch.by_concept.setdefault(kf.concept or "", []).append(rel)
    scratch.files[rel] = kf
    errors += [f for f in bank_findings(scratch, kf) if f.severity == Severity.ERROR and f.code != "CKP050"]
    if errors:
        detail = "; ".join(f"{f.code} {f.message}" for f in errors[:3])
        raise CompileError(f"the compiled header would not be valid ({detail}): nothing was changed")
