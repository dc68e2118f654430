"""Offline TLDRs say what a file is about: never structure (a status, a lead-in, a closing line, a
pointer, a label and its value, text cut inside brackets), a description the file carries first,
never the same TLDR for two files; and CONFIDENCE from the evidence."""

from __future__ import annotations

import pytest

from ckp_lsp.core.compile.model import Answer, CompileInput, ConceptSummary
from ckp_lsp.core.compile.offline import MAX_TLDR, BankFile, compile_bank, compile_offline
from ckp_lsp.core.compile.offline.structure import balanced, structure

PROSE = "The importer reads each uploaded CSV file in chunks and stops at ten thousand rows."


def compile_text(text: str, hint: str = "note", **kw: object) -> Answer:
    return compile_offline(CompileInput(text, None, (), hint, **kw))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("first", "why"),
    [
        ("Status: Refactor (80%).", "status"),
        ("Build: ✅ green on every branch since the move.", "status"),
        ("Runtime: Node 20 (required), 80% done.", "status"),
        ("The service offers the following features:", "lead-in"),
        ("The module has the following parts, listed below.", "lead-in"),
        ("このサービスには次の機能があります。", "lead-in"),
        ("Los módulos siguientes forman el núcleo del sistema de pedidos.", "lead-in"),
        ("That is all for this document.", "closing"),
        ("See ROADMAP.md for details.", "pointer"),
        ("Siehe docs/architektur.md für alle Einzelheiten dazu.", "pointer"),
        ('The user said "ship the importer on Friday and then.', "cut"),
    ],
)
def test_a_structure_sentence_is_never_the_tldr(first: str, why: str) -> None:
    assert structure(first, 5) == why
    answer = compile_text(f"# Importer\n\n{first}\n\n{PROSE}")
    assert answer.tldr == f"Importer: {PROSE}" or answer.tldr == PROSE


def test_a_label_and_a_short_value_is_a_field_not_a_tldr() -> None:
    items = "- Frontend: React and Vite.\n- Backend: Go.\n"
    assert compile_text(f"# Stack\n\n{items}\n{PROSE}").tldr.endswith(PROSE)


def test_a_label_leading_a_whole_sentence_is_dropped() -> None:
    text = "# Brief\n\n- Purpose: an admin panel that lets support staff refund orders without engineering help.\n"
    tldr = compile_text(text).tldr
    assert tldr.endswith("an admin panel that lets support staff refund orders without engineering help.")
    assert "Purpose" not in tldr


def test_a_pointer_remark_is_dropped_from_a_sentence() -> None:
    text = "Weekly reports are mailed to every store manager on Monday morning (see docs/reports.md)."
    assert compile_text(text).tldr == "Weekly reports are mailed to every store manager on Monday morning."


def test_a_long_sentence_is_cut_at_a_clause_and_never_inside_brackets() -> None:
    long = (
        "The nightly export gathers every order of the day, including refunds, partial shipments and "
        "gift cards (which are booked separately because the ledger treats them as liabilities rather "
        "than revenue until they are redeemed by a customer in a store or online)."
    )
    tldr = compile_text(long).tldr
    assert len(tldr) <= MAX_TLDR and balanced(tldr), tldr
    assert tldr == "The nightly export gathers every order of the day, including refunds."


def test_without_a_sentence_the_tldr_is_the_title_and_keywords_in_any_language() -> None:
    table = "| Schicht | Werkzeug |\n|---|---|\n| Bau | Vite |\n| Test | Vitest |\n| Paket | pnpm |\n"
    answer = compile_text(f"# Werkzeuge\n\n{table}")
    listed = answer.tldr.removeprefix("Werkzeuge: ").rstrip(".").split(", ")
    assert answer.tldr.startswith("Werkzeuge: ") and "Notes" not in answer.tldr
    assert len(listed) == 3 and set(listed) <= set(answer.answers_when), answer


def test_a_front_matter_description_is_the_tldr() -> None:
    answer = compile_text(
        f"# Import\n\n{PROSE}", description="How the CSV importer chunks files, and its row limit."
    )
    assert answer.tldr == "How the CSV importer chunks files, and its row limit."


def test_a_long_description_is_folded_to_one_sentence_within_the_limit() -> None:
    description = (
        "Import rules. " + "The importer keeps every rejected row in a quarantine table for review, " * 5
    )
    answer = compile_text(PROSE, description=description)
    assert answer.tldr == "Import rules."
    answer = compile_text(PROSE, description=description.removeprefix("Import rules. "))
    assert len(answer.tldr) <= MAX_TLDR and "\n" not in answer.tldr


def test_a_description_in_front_matter_becomes_the_tldr_of_a_bank_compile() -> None:
    files = [
        BankFile("a.md", f"# A\n\n{PROSE}", description="When the CSV importer rejects a file."),
        BankFile("b.md", "# B\n\nPayments are captured when the order ships, never before."),
    ]
    answers = compile_bank(files)
    assert answers["a.md"].tldr == "When the CSV importer rejects a file."
    assert answers["b.md"].tldr.endswith("Payments are captured when the order ships, never before.")


def test_no_two_files_get_the_same_tldr() -> None:
    shared = "# Plan\n\nThe plan moves every tenant to the new billing engine by the end of spring.\n\n"
    files = [
        BankFile("plan.md", shared + "The migration runs tenant by tenant with a dry run first."),
        BankFile("plan-copy.md", shared + "The copy keeps the outline of the plan for later reviews."),
        BankFile("plan-old.md", shared),
    ]
    tldrs = [a.tldr for a in compile_bank(files).values()]
    assert len({t.casefold() for t in tldrs}) == 3, tldrs


def test_a_title_many_files_share_leads_no_tldr() -> None:
    files = [
        BankFile(f"{name}.md", f"# Acme Shop\n\n{sentence}")
        for name, sentence in (
            ("stack", "Orders are stored in PostgreSQL and cached in Redis for an hour."),
            ("flow", "Customers pay by card and receive a receipt by mail within minutes."),
        )
    ]
    answers = compile_bank(files)
    assert not any(a.tldr.startswith("Acme Shop") for a in answers.values())


def test_one_file_compiled_alone_avoids_the_tldr_of_another_concept() -> None:
    other = ConceptSummary("orders", "Orders are stored in PostgreSQL and cached in Redis for an hour.")
    text = "Orders are stored in PostgreSQL and cached in Redis for an hour. Refunds go back to the card."
    answer = compile_offline(CompileInput(text, "refunds", (other,), "refunds"))
    assert answer.tldr.casefold() != other.tldr.casefold()


# ---------------------------------------------------------------- CONFIDENCE


def test_a_thin_header_says_so_in_its_confidence() -> None:
    assert compile_text("# Notes\n\n| a | b |\n|---|---|\n| x | y |\n").confidence == "low"
    assert compile_text(PROSE).confidence == "medium"
    rich = "\n\n".join(
        f"## {t}\n\nThe `CsvImporter` handles {t.lower()} for uploads: it validates headers, "
        f"quarantines rows that fail the {t.lower()} rules and reports them to the `ImportJob` owner."
        for t in ("Encoding", "Chunking", "Quarantine", "Limits", "Retries", "Reports", "Audit")
    )
    assert compile_text(f"# CSV import\n\n{PROSE}\n\n{rich}").confidence == "high"
