"""``compile --all`` offline: every header of a bank at once, to a fixed point in one run.

The bank is compiled in phases (``offline.compile_bank``): concepts, keywords and TLDRs of every
file before any relationship, so no header depends on file order and a second run on an unchanged
bank changes no byte. By default the headers are filled (files without one get one, the others
their missing fields); with ``force`` every header is recompiled, keeping what SPEC §7 says an
offline compile keeps. Nothing is written here: the caller gets the new texts.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.bank.checks import bank_findings
from ckp_lsp.core.bank.findings import Severity
from ckp_lsp.core.edit.rewrite import body_of, replace_header
from ckp_lsp.core.format.fields import CONCEPT_RE
from ckp_lsp.core.format.knowledge import KnowledgeFile, read_knowledge_file

from .merge import front_matter_description, front_matter_title, kept_keywords, kept_tldr, offline_values
from .offline import BankFile, compile_bank
from .offline.bank import Progress


@dataclass(frozen=True)
class Outcome:
    """One file of the bank after ``compile --all``: its new text, or why it was left as it was."""

    rel: str
    old: str
    new: str  # == old when nothing changed or the compile was refused
    error: str = ""

    @property
    def changed(self) -> bool:
        return self.new != self.old


def compile_all(
    bank: Bank,
    texts: Mapping[str, str],
    month: str,
    *,
    force: bool = False,
    progress: Progress | None = None,
    unwritable: Mapping[str, str] | None = None,
) -> list[Outcome]:
    """The new text of every file of ``texts`` (the bank's knowledge files, by path), in path order.

    ``unwritable`` says, by path, why a file will not be rewritten whatever its text. A file whose
    header will not be written (that, or a compiled header that would not be valid) is no
    relationship target of the others: its concept is one only where its text declares it already.
    One such file then fails alone instead of every file whose body mentions it.
    """
    fill = not force
    headers = {rel: read_knowledge_file(rel, texts[rel]) for rel in sorted(texts)}
    held: dict[str, str] = {rel: why for rel, why in (unwritable or {}).items() if rel in texts}
    while True:
        new_texts = _compile(bank, texts, headers, month, fill, held, progress)
        refused = _refused(bank, texts, new_texts, held)
        fresh = {rel: r for rel, r in refused.items() if rel not in held}
        if not fresh:
            break
        # A file refused only because it names another refused file's concept may pass once that
        # concept is no target; the others are held first, and those only if nothing else is left.
        own = {rel: r for rel, r in fresh.items() if r.codes != {"CKP041"}}
        held.update({rel: r.why for rel, r in (own or fresh).items()})
    return [
        Outcome(rel, texts[rel], texts[rel], held[rel])
        if rel in held and new != texts[rel]  # an unwritable file that needs no change is no failure
        else Outcome(rel, texts[rel], new)
        for rel, new in new_texts.items()
    ]


def _compile(
    bank: Bank,
    texts: Mapping[str, str],
    headers: Mapping[str, KnowledgeFile],
    month: str,
    fill: bool,
    held: Mapping[str, str],
    progress: Progress | None,
) -> dict[str, str]:
    """The new text of every file, the files of ``held`` no relationship target."""
    files: list[BankFile] = []
    for rel in sorted(texts):
        kf = headers[rel]
        concept = kf.concept if kf.concept and CONCEPT_RE.match(kf.concept) else None
        files.append(
            BankFile(
                rel,
                body_of(texts[rel]),
                concept,
                kept_tldr(kf, fill) if kf.header is not None else None,
                kept_keywords(kf, fill) if kf.header is not None else None,
                front_matter_title(kf, texts[rel]),
                front_matter_description(kf, texts[rel]),
                target=rel not in held or concept is not None,
            )
        )
    answers = compile_bank(files, progress)
    concepts = {f.rel: f.concept or answers[f.rel].concept or "" for f in files}
    known = {concepts[f.rel] for f in files if f.target} | {
        kf.concept for rel, kf in bank.files.items() if rel not in texts and kf.concept
    }
    new_texts: dict[str, str] = {}
    for f in files:
        kf = headers[f.rel]
        values = offline_values(
            kf if kf.header is not None else None, answers[f.rel], concepts[f.rel], month, known, fill=fill
        )
        header, replaced = replace_header(texts[f.rel], values)
        new_texts[f.rel] = header + texts[f.rel][len(replaced) :]
    return new_texts


@dataclass(frozen=True)
class _Refusal:
    codes: frozenset[str]  # the codes of its error-level findings
    why: str


def _refused(
    bank: Bank, old: Mapping[str, str], new: Mapping[str, str], held: Collection[str]
) -> dict[str, _Refusal]:
    """Why each compiled header that would carry an error-level finding is refused (SPEC §7); the
    files of ``held`` keep their old text."""
    scratch = Bank(bank.root, bank.config.replace(staleness="validated"))
    for rel, kf in bank.files.items():
        if rel not in new:
            scratch.files[rel] = kf
            if kf.concept:
                scratch.by_concept.setdefault(kf.concept, []).append(rel)
    for rel in sorted(new):
        scratch.set_file(rel, old[rel] if rel in held else new[rel])
    refused: dict[str, _Refusal] = {}
    for rel in sorted(new):
        if new[rel] == old[rel] or rel in held:
            continue
        kf = scratch.files[rel]
        errors = [f for f in kf.local + bank_findings(scratch, kf) if f.severity == Severity.ERROR]
        errors = [f for f in errors if f.code != "CKP050"]
        if errors:
            detail = "; ".join(f"{f.code} {f.message}" for f in errors[:3])
            why = f"the compiled header would not be valid ({detail}): nothing was changed"
            refused[rel] = _Refusal(frozenset(f.code for f in errors), why)
    return refused
