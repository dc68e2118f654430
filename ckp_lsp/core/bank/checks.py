"""Findings that need the whole bank or the day (SPEC §4): duplicate and unknown concepts,
staleness, ambiguous keywords and dates in the future (the index's are in ``index_checks``)."""

from __future__ import annotations

from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.bank.findings import Finding, apply_overrides
from ckp_lsp.core.format.dates import CkpDate
from ckp_lsp.core.format.knowledge import KnowledgeFile
from ckp_lsp.core.format.limits import CLAIM_LIMIT
from ckp_lsp.core.project.discovery import is_excluded


def check_file(bank: Bank, rel: str) -> list[Finding]:
    """Every finding of one knowledge file, user severities applied, in document order."""
    kf = bank.files.get(rel)
    if kf is None:
        return []
    found = kf.local + bank_findings(bank, kf)
    found = apply_overrides(found, bank.config.diagnostics)
    found.sort(key=lambda f: (f.span.start_line, f.span.start_col, f.code))
    return found


#: how many of the other files declaring the same concept CKP011 names
TWINS_NAMED = 3


def bank_findings(bank: Bank, kf: KnowledgeFile) -> list[Finding]:
    """CKP011, CKP032, CKP041, CKP050 and CKP052 of one file."""
    out = future_dates(kf, bank.today)
    if kf.concept:
        twins = [p for p in bank.by_concept.get(kf.concept, ()) if p != kf.path]
        if twins and kf.concept_span is not None:
            # A few are named: with thousands of copies, naming all in each message was quadratic.
            named = twins[:TWINS_NAMED]
            more = f" and {len(twins) - len(named):,} more" if len(twins) > len(named) else ""
            out.append(
                Finding.of(
                    "CKP011",
                    kf.concept_span,
                    f"concept '{kf.concept}' is also declared by {', '.join(named)}{more}: concepts must be "
                    "unique in a bank, rename one",
                    others=named,
                )
            )
    many = bank.claims.many
    for n, text in enumerate(kf.keyword_texts):
        claimers = many.get(text.casefold())
        if claimers is None or len(claimers) <= CLAIM_LIMIT:
            continue
        item = kf.keyword(n)
        others = [c for c, p in bank.claimants(item.text.casefold())[: CLAIM_LIMIT + 2] if p != kf.path and c]
        if len(claimers) - 1 >= CLAIM_LIMIT:
            shown = ", ".join(others[:CLAIM_LIMIT]) + (", …" if len(claimers) - 1 > CLAIM_LIMIT else "")
            out.append(
                Finding.of(
                    "CKP032",
                    item.span,
                    f"keyword '{item.text}' is also claimed by {len(claimers) - 1} other concepts "
                    f"({shown}): routing on it is ambiguous, prefer a more specific keyword",
                    claimed_by=len(claimers) - 1,
                )
            )
    by_concept, files = bank.by_concept, bank.files
    by_validated = bank.config.staleness == "validated"
    for n, (concept, _, _, date) in enumerate(kf.relations):
        if concept == kf.concept:
            continue
        paths = by_concept.get(concept)
        if paths:
            # Most relationships are fine: only a finding needs the entry's spans.
            if date is None:
                continue
            declared = files[paths[0]]
            updated = declared.validated if by_validated else bank.updated_date(declared)
            if updated is None or not updated.is_after(date) or is_session_file(bank, declared.path):
                continue
        rel = kf.relationship(n)
        target = bank.file_of(rel.concept)
        if target is None:
            guess = bank.suggest(rel.concept)
            hint = f": did you mean '{guess}'?" if guess else ": create it or remove the entry"
            out.append(
                Finding.of(
                    "CKP041",
                    rel.concept_span,
                    f"no concept '{rel.concept}' in this bank{hint}",
                    concept=rel.concept,
                    suggestion=guess,
                )
            )
            continue
        if rel.date is None or rel.date_span is None or is_session_file(bank, target.path):
            continue
        updated = bank.updated_date(target)
        if updated is not None and updated.is_after(rel.date):
            source = {"validated": "validated", "git": "last committed", "mtime": "modified"}[
                bank.staleness_source
            ]
            out.append(
                Finding.of(
                    "CKP050",
                    rel.span,
                    f"'{rel.concept}' was {source} on {updated}, after this relationship was validated "
                    f"({rel.date_text}): re-read it and re-validate the relationship",
                    concept=rel.concept,
                    updated=str(updated),
                    validated=rel.date_text,
                )
            )
    return out


def future_dates(kf: KnowledgeFile, today: CkpDate | None) -> list[Finding]:
    """CKP052: the dates of ``kf`` after ``today`` (none when no day is given)."""
    out: list[Finding] = []
    if today is None:
        return out
    # Months before the day's are never after it: most dates are told by one sum, no call.
    month = today.year * 12 + today.month
    validated = kf.validated
    if (
        validated is not None
        and validated.year * 12 + validated.month >= month
        and validated.is_after(today)
        and kf.header is not None
    ):
        # The first VALIDATED is the one read (a second is CKP004), and it has a value.
        field = next(f for f in kf.header.fields if f.key == "VALIDATED")
        out.append(
            Finding.of(
                "CKP052",
                field.items[0].span,
                f"VALIDATED {validated} is in the future: use this month or an earlier one",
            )
        )
    for n, (concept, _, _, date) in enumerate(kf.relations):
        if date is not None and date.year * 12 + date.month >= month and date.is_after(today):
            rel = kf.relationship(n)
            out.append(
                Finding.of(
                    "CKP052",
                    rel.date_span or rel.span,
                    f"the relationship to '{concept}' is dated {date}, in the future: use this month "
                    "or an earlier one",
                )
            )
    return out


def is_session_file(bank: Bank, rel: str) -> bool:
    """Whether ``rel`` is a file the agent rewrites every session (``session_files``): relationships
    to it are never stale, as its date moves every day."""
    return is_excluded(rel, bank.config.session_files)
