"""``compile --all`` offline: every header of a bank at once, to a fixed point in one run.

The bank is compiled in phases (``offline.compile_bank``): concepts, keywords and TLDRs of every
file before any relationship, so no header depends on file order and a second run on an unchanged
bank changes no byte. By default the headers are filled (files without one get one, the others
their missing fields); with ``force`` every header is recompiled, keeping what SPEC §7 says an
offline compile keeps. Nothing is written here: the caller gets the new texts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from ..bank import Bank
from ..checks import bank_findings
from ..findings import Severity
from ..knowledge import CONCEPT_RE, KnowledgeFile, read_knowledge_file
from ..rewrite import body_of, replace_header
from .merge import front_matter_title, kept_keywords, kept_tldr, offline_values
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
) -> list[Outcome]:
    """The new text of every file of ``texts`` (the bank's knowledge files, by path), in path order."""
    fill = not force
    headers: dict[str, KnowledgeFile] = {}
    files: list[BankFile] = []
    for rel in sorted(texts):
        kf = read_knowledge_file(rel, texts[rel])
        headers[rel] = kf
        concept = kf.concept if kf.concept and CONCEPT_RE.match(kf.concept) else None
        files.append(
            BankFile(
                rel,
                body_of(texts[rel]),
                concept,
                kept_tldr(kf, fill) if kf.header is not None else None,
                kept_keywords(kf, fill) if kf.header is not None else None,
                front_matter_title(kf, texts[rel]),
            )
        )
    answers = compile_bank(files, progress)
    concepts = {f.rel: f.concept or answers[f.rel].concept or "" for f in files}
    known = set(concepts.values()) | {
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
    refused = _refused(bank, texts, new_texts)
    return [
        Outcome(rel, texts[rel], texts[rel], refused[rel])
        if rel in refused
        else Outcome(rel, texts[rel], new)
        for rel, new in new_texts.items()
    ]


def _refused(bank: Bank, old: Mapping[str, str], new: Mapping[str, str]) -> dict[str, str]:
    """Why each compiled header that would carry an error-level finding is refused (SPEC §7)."""
    scratch = Bank(bank.root, replace(bank.config, staleness="validated"))
    for rel, kf in bank.files.items():
        if rel not in new:
            scratch.files[rel] = kf
            if kf.concept:
                scratch.by_concept.setdefault(kf.concept, []).append(rel)
    for rel in sorted(new):
        scratch.set_file(rel, new[rel])
    refused: dict[str, str] = {}
    for rel in sorted(new):
        if new[rel] == old[rel]:
            continue
        kf = scratch.files[rel]
        errors = [f for f in kf.local + bank_findings(scratch, kf) if f.severity == Severity.ERROR]
        errors = [f for f in errors if f.code != "CKP050"]
        if errors:
            detail = "; ".join(f"{f.code} {f.message}" for f in errors[:3])
            refused[rel] = f"the compiled header would not be valid ({detail}): nothing was changed"
    return refused
