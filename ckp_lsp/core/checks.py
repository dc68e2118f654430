"""Findings that need the whole bank (SPEC §4): duplicate and unknown concepts, staleness,
ambiguous keywords, and the index's drift and budget."""

from __future__ import annotations

from .bank import CLAIM_LIMIT, Bank
from .findings import Finding, apply_overrides
from .index import expected_rows, parse_index, row_differences, tokens
from .knowledge import KnowledgeFile, closest
from .text import Span, split_lines, utf16_len


def check_file(bank: Bank, rel: str) -> list[Finding]:
    """Every finding of one knowledge file, user severities applied, in document order."""
    kf = bank.files.get(rel)
    if kf is None:
        return []
    found = kf.local + bank_findings(bank, kf)
    found = apply_overrides(found, bank.config.diagnostics)
    found.sort(key=lambda f: (f.span.start_line, f.span.start_col, f.code))
    return found


def bank_findings(bank: Bank, kf: KnowledgeFile) -> list[Finding]:
    """CKP011, CKP032, CKP041 and CKP050 of one file."""
    out: list[Finding] = []
    if kf.concept and kf.concept_span is not None:
        twins = [p for p in bank.by_concept.get(kf.concept, ()) if p != kf.path]
        if twins:
            out.append(
                Finding.of(
                    "CKP011",
                    kf.concept_span,
                    f"concept '{kf.concept}' is also declared by {', '.join(twins)}: concepts must be "
                    "unique in a bank, rename one",
                    others=twins,
                )
            )
    for item in kf.keywords:
        claimers = bank.claims.get(item.text.casefold())
        if claimers is None or len(claimers) <= CLAIM_LIMIT:
            continue
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
    for rel in kf.relationships:
        if rel.concept == kf.concept:
            continue
        target = bank.file_of(rel.concept)
        if target is None:
            guess = closest(rel.concept, bank.concepts())
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
        if rel.date is None or rel.date_span is None:
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


def _concept(bank: Bank, rel: str) -> str | None:
    kf = bank.files.get(rel)
    return kf.concept if kf else None


def check_index(bank: Bank) -> list[Finding]:
    """CKP070 and CKP071 of the bank's ``_index.md``."""
    out: list[Finding] = []
    text = bank.index_text
    expected = expected_rows(bank)
    if text is None:
        if expected:
            out.append(
                Finding.of(
                    "CKP070",
                    Span(0, 0, 0, 0),
                    "the bank has no _index.md: generate it with `ckp index` (or the Regenerate index action)",
                )
            )
        return apply_overrides(out, bank.config.diagnostics)
    doc = parse_index(text)
    anchor_line = doc.start_line if doc.start_line is not None else 0
    lines = split_lines(text)  # as the parser and editors count lines (a lone CR ends one too)
    anchor = Span(anchor_line, 0, anchor_line, utf16_len(lines[anchor_line]))
    if doc.start_line is None and not doc.rows:
        out.append(
            Finding.of(
                "CKP070",
                Span(0, 0, 0, utf16_len(lines[0])),
                "_index.md has no generated section (<!-- ckp:index:start --> … end): regenerate the index",
            )
        )
    else:
        out.extend(_drift(doc.rows, expected, anchor))
    used = tokens(text)
    budget = bank.config.index_budget_tokens
    if used > budget:
        out.append(
            Finding.of(
                "CKP071",
                anchor,
                f"_index.md is ~{used:,} tokens, over its budget of {budget:,}: it is always in the agent's "
                "context, so shorten TLDRs and keywords or split the bank",
                tokens=used,
                budget=budget,
            )
        )
    return apply_overrides(out, bank.config.diagnostics)


def _drift(rows: list, expected: list[dict[str, str]], anchor: Span) -> list[Finding]:
    out: list[Finding] = []
    by_key = {(r["CONCEPT"], r["FILE"]): r for r in expected}
    by_concept = {r["CONCEPT"]: r for r in expected}
    seen = set()
    for row in rows:
        want = by_key.get((row.concept, row.file)) if row.file else by_concept.get(row.concept)
        span = Span(row.line, 0, row.line, row.length)
        if want is None:
            out.append(
                Finding.of(
                    "CKP070",
                    span,
                    f"the index lists '{row.concept}', which no file of the bank declares: regenerate the index",
                    concept=row.concept,
                )
            )
            continue
        seen.add((want["CONCEPT"], want["FILE"]))
        diff = row_differences(row.values, want)
        if diff:
            out.append(
                Finding.of(
                    "CKP070",
                    span,
                    f"the index row of '{row.concept}' differs from its header ({', '.join(diff)}): "
                    "regenerate the index",
                    concept=row.concept,
                )
            )
    missing = [k for k in by_key if k not in seen]
    if missing:
        names = ", ".join(c for c, _ in missing[:5]) + (
            f" and {len(missing) - 5} more" if len(missing) > 5 else ""
        )
        out.append(
            Finding.of(
                "CKP070",
                anchor,
                f"the index is missing {names}: regenerate the index",
                missing=[c for c, _ in missing],
            )
        )
    return out
