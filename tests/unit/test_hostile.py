"""Hostile files: each gives a clear finding or is skipped with a reason; nothing raises or hangs."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from ckp_lsp.cli.main import main
from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.bank.checks import check_file
from ckp_lsp.core.bank.findings import Finding
from ckp_lsp.core.bank.index_checks import check_index
from ckp_lsp.core.format.text import Span, decode, split_lines, utf16_len
from ckp_lsp.core.project.within import Folder
from ckp_lsp.faces.banks import load_bank
from tests.unit.builders import assert_inside, bank_of_texts, bare_header, write_files

ROOT = Path(__file__).resolve().parents[2]
#: a hang guard for whatever could block, never a timed assertion
HANG = 120


def findings(bank: Bank, rel: str) -> list[tuple[str, Span]]:
    return [(f.code, f.span) for f in check_file(bank, rel)]


def codes(bank: Bank, rel: str) -> set[str]:
    return {f.code for f in check_file(bank, rel)}


def finishes(fn: Callable[[], Any]) -> Any:
    """``fn()``, failing (not hanging) when it does not return: a hang guard for blocking reads."""
    result: list[Any] = []
    worker = threading.Thread(target=lambda: result.append(fn()), daemon=True)
    worker.start()
    worker.join(HANG)
    assert not worker.is_alive(), f"{fn} did not return"
    return result[0]


# --- bytes that are not text ------------------------------------------------------------------


def test_a_binary_file_has_no_header_and_is_not_utf8() -> None:
    data = bytes(range(256)) * 16
    bank = bank_of_texts({"blob.md": data})
    assert codes(bank, "blob.md") == {"CKP001", "CKP009"}
    for f in check_file(bank, "blob.md"):
        assert_inside(decode(data)[0], f.span)


def test_a_file_that_is_not_utf8_gets_ckp009_at_the_first_bad_byte() -> None:
    data = "CONCEPT: menu\nTLDR: Crème brûlée.\nANSWERS_WHEN: menu\nVALIDATED: 2025-05\n".encode("latin-1")
    bank = bank_of_texts({"menu.md": data})
    bad = next(f for f in check_file(bank, "menu.md") if f.code == "CKP009")
    assert bad.span == Span(1, 8, 1, 9)  # the è of Crème
    assert "not valid UTF-8" in bad.message
    assert bank.files["menu.md"].concept == "menu"  # the header is still read


def test_an_empty_file_has_no_header() -> None:
    bank = bank_of_texts({"empty.md": b""})
    assert findings(bank, "empty.md") == [("CKP001", Span(0, 0, 0, 0))]


def test_nul_bytes_are_text_like_any_other() -> None:
    data = b"CONCEPT: nul\x00x\nTLDR: A\x00B.\nANSWERS_WHEN: a\x00\nVALIDATED: 2025-05\n\x00\x00body"
    bank = bank_of_texts({"nul.md": data})
    bad = next(f for f in check_file(bank, "nul.md") if f.code == "CKP010")
    assert bad.span == Span(0, 9, 0, 14)  # the whole "nul\x00x", NUL included
    for f in check_file(bank, "nul.md"):
        assert_inside(data.decode(), f.span)


# --- line endings and BOM ---------------------------------------------------------------------

STALE = (
    "CONCEPT: cart\nTLDR: The cart.\nANSWERS_WHEN: cart, cart\nSIMILAR_HIGH: redis:2025-01, nosuch:2025-01\n"
    "VALIDATED: 2025-05\n\nBody.\n"
)
REDIS = bare_header(CONCEPT="redis", ANSWERS_WHEN="redis", VALIDATED="2025-06")


@pytest.mark.parametrize(
    "variant",
    [
        pytest.param(lambda t: t.replace("\n", "\r\n"), id="crlf"),
        pytest.param(lambda t: t.replace("\n", "\r"), id="lone-cr"),
        pytest.param(lambda t: "\ufeff" + t, id="bom"),
        pytest.param(lambda t: "\ufeff" + t.replace("\n", "\r\n"), id="bom-crlf"),
    ],
)
def test_line_endings_and_a_bom_give_the_same_findings_at_the_same_places(
    variant: Callable[[str], str],
) -> None:
    plain = bank_of_texts({"cart.md": STALE, "redis.md": REDIS})
    other = bank_of_texts({"cart.md": variant(STALE).encode(), "redis.md": REDIS})
    assert findings(other, "cart.md") == findings(plain, "cart.md")
    assert {"CKP030", "CKP041", "CKP050"} <= codes(plain, "cart.md")


def test_mixed_line_endings_count_lines_as_an_editor_does() -> None:
    text = "CONCEPT: mixed\r\nTLDR: T.\rANSWERS_WHEN: a, a\nSIMILAR_MID: x:2025-13\r\n\rBody\n"
    bank = bank_of_texts({"mixed.md": text.encode()})
    found = findings(bank, "mixed.md")
    assert ("CKP030", Span(2, 17, 2, 18)) in found  # line 2 after a CRLF and a lone CR
    assert ("CKP051", Span(3, 15, 3, 22)) in found
    for _, span in found:
        assert_inside(text, span)


def test_a_front_matter_header_after_a_bom_is_read() -> None:
    data = "\ufeff---\r\nCONCEPT: fm\r\nTLDR: T.\r\nANSWERS_WHEN: [a, b]\r\nVALIDATED: 2025-05\r\n---\r\nBody\r\n"
    bank = bank_of_texts({"fm.md": data.encode()})
    assert bank.files["fm.md"].concept == "fm"
    assert check_file(bank, "fm.md") == []


# --- size -------------------------------------------------------------------------------------


def test_a_one_megabyte_line_without_header_is_one_ckp001_over_that_line() -> None:
    bank = bank_of_texts({"line.md": "y" * 1_000_000})
    assert findings(bank, "line.md") == [("CKP001", Span(0, 0, 0, 1_000_000))]


def test_a_one_megabyte_keyword_line_is_checked() -> None:
    keywords = ", ".join(f"k{i}" for i in range(120_000))  # ~1 MB on one line
    bank = bank_of_texts({"many.md": bare_header(CONCEPT="many", ANSWERS_WHEN=keywords)})
    too_many = [f for f in check_file(bank, "many.md") if f.code == "CKP031"]
    assert len(too_many) == 1 and "120000 keywords" in too_many[0].message
    assert too_many[0].span.end_col == len("ANSWERS_WHEN: " + keywords)


@pytest.mark.scale
def test_a_one_megabyte_front_matter_of_aliases_and_escapes_is_checked() -> None:
    aliases = ",".join(["*b"] * 100_000)
    bomb = (
        "---\na: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
        f"CONCEPT: bomb\nTLDR: *b\nANSWERS_WHEN: [{aliases}]\n"
        "SIMILAR_MID: [" + ",".join(['"\\x41"'] * 50_000) + "]\n---\nBody\n"
    )
    bank = bank_of_texts({"bomb.md": bomb})
    found = codes(bank, "bomb.md")
    assert {"CKP030", "CKP031", "CKP040", "CKP045"} <= found
    tldr = bank.files["bomb.md"].tldr
    assert len(tldr) < 200 and tldr.startswith("[x, x, x, x, …], ")  # a bounded view of the nested value


@pytest.mark.scale
def test_a_fifty_megabyte_file_is_read_and_checked(tmp_path: Path) -> None:
    line = "All work and no play makes a very large knowledge file. " * 2 + "\n"
    body = line * (50_000_000 // len(line))
    bank_dir = write_files(
        tmp_path / "memory-bank",
        {"huge.md": bare_header(CONCEPT="huge", ANSWERS_WHEN="huge, huge") + body, "headless.md": body},
    )
    bank = load_bank(bank_dir)
    assert findings(bank, "huge.md") == [("CKP030", Span(2, 20, 2, 24))]
    assert findings(bank, "headless.md") == [("CKP001", Span(0, 0, 0, len(line) - 1))]
    assert bank.files["huge.md"].size > 50_000_000


# --- what is not a file of the bank -----------------------------------------------------------


@pytest.fixture
def odd_bank(tmp_path: Path) -> Path:
    """A bank with one good file and every kind of ``*.md`` that must not be read."""
    outside = tmp_path / "secret.md"
    outside.write_text(bare_header(CONCEPT="secret"))
    bank = write_files(tmp_path / "memory-bank", {"good.md": bare_header(CONCEPT="good")})
    os.mkfifo(bank / "pipe.md")
    (bank / "loop-a.md").symlink_to("loop-b.md")
    (bank / "loop-b.md").symlink_to("loop-a.md")
    (bank / "dangling.md").symlink_to("nowhere.md")
    (bank / "escape.md").symlink_to(outside)
    (bank / "up").symlink_to("..")  # a folder loop, never followed
    (bank / "x.md").mkdir()  # a folder named like a file: its files are knowledge files
    (bank / "x.md" / "inner.md").write_text(bare_header(CONCEPT="inner"))
    return bank


SKIPPED = {
    "pipe.md": "a named pipe, not a file",
    "loop-a.md": "a symbolic link loop",
    "loop-b.md": "a symbolic link loop",
    "dangling.md": "a symbolic link to a file that does not exist",
    "escape.md": "a symbolic link that leads outside the bank",
}


def test_pipes_loops_broken_links_and_links_out_of_the_bank_are_skipped_with_a_reason(odd_bank: Path) -> None:
    bank = finishes(lambda: load_bank(odd_bank))  # a reader of the pipe would block forever
    assert sorted(bank.files) == ["good.md", "x.md/inner.md"]
    assert bank.unreadable == SKIPPED
    assert "secret" not in bank.by_concept


def test_ckp_check_names_each_skipped_file_on_stderr_and_never_hangs(odd_bank: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ckp_lsp.cli.main", "check", str(odd_bank)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=HANG,
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    for rel, why in SKIPPED.items():
        assert f"{odd_bank / rel}: skipped ({why})" in done.stderr
    assert "secret" not in done.stdout + done.stderr


def test_an_unreadable_file_is_skipped_with_the_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # chmod 000 does not stop root (CI runs as root): the read itself is made to fail.
    bank_dir = write_files(
        tmp_path / "memory-bank",
        {"good.md": bare_header(CONCEPT="good"), "locked.md": bare_header(CONCEPT="x")},
    )
    real = Folder.bytes_of

    def bytes_of(self: Folder, path: str | Path) -> bytes:
        if str(path).endswith("locked.md"):
            raise PermissionError(13, "Permission denied", str(path))
        return real(self, path)

    monkeypatch.setattr(Folder, "bytes_of", bytes_of)
    bank = load_bank(bank_dir)
    assert sorted(bank.files) == ["good.md"]
    assert bank.unreadable == {"locked.md": "cannot be read: Permission denied"}
    assert main(["check", str(bank_dir)]) == 0
    assert f"{bank_dir / 'locked.md'}: skipped (cannot be read: Permission denied)" in capsys.readouterr().err


def test_an_index_that_leads_outside_the_bank_is_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.md"
    outside.write_text("<!-- ckp:index:start -->\n| CONCEPT | FILE |\n|---|---|\n| secret | x.md |\n")
    bank_dir = write_files(tmp_path / "memory-bank", {"good.md": bare_header(CONCEPT="good")})
    (bank_dir / "_index.md").symlink_to(outside)
    bank = load_bank(bank_dir)
    assert bank.index_text is None
    assert bank.unreadable == {"_index.md": "a symbolic link that leads outside the bank"}


# --- many files -------------------------------------------------------------------------------


@pytest.mark.scale
def test_ten_thousand_concepts_claiming_one_keyword_each_get_one_clear_finding(tmp_path: Path) -> None:
    bank_dir = tmp_path / "memory-bank"
    bank_dir.mkdir()
    for i in range(10_000):
        (bank_dir / f"c{i:05}.md").write_text(
            f"CONCEPT: c{i:05}\nTLDR: Concept {i}.\nANSWERS_WHEN: shared\nVALIDATED: 2025-05\n"
        )
    bank = load_bank(bank_dir)
    first = check_file(bank, "c00000.md")
    assert [f.code for f in first] == ["CKP032"]
    assert first[0].message.startswith(
        "keyword 'shared' is also claimed by 9999 other concepts (c00001, c00002, c00003, …)"
    )
    last = check_file(bank, "c09999.md")
    assert [f.code for f in last] == ["CKP032"] and "(c00000, c00001, c00002, …)" in last[0].message
    assert [f.code for f in check_index(bank)] == ["CKP070"]


# --- text from an editor ----------------------------------------------------------------------


def test_a_lone_surrogate_from_an_editor_counts_as_one_utf16_unit() -> None:
    text = "CONCEPT: a\ud800b\nTLDR: x\ud800.\nANSWERS_WHEN: a\n"
    bank = bank_of_texts({"s.md": text})
    bad = next(f for f in check_file(bank, "s.md") if f.code == "CKP010")
    assert bad.span == Span(0, 9, 0, 12)
    assert utf16_len("\ud800") == 1


def test_unicode_line_separators_do_not_end_lines() -> None:
    # LSP ends lines at \n, \r\n and \r only: U+2028, U+0085 and form feeds are ordinary characters.
    text = "CONCEPT: sep\nTLDR: One\u2028two\x0cthree\x85four.\nANSWERS_WHEN: a, a\n"
    bank = bank_of_texts({"sep.md": text})
    assert ("CKP030", Span(2, 17, 2, 18)) in findings(bank, "sep.md")
    assert len(split_lines(text)) == 4


@pytest.mark.parametrize("sep", ["\u2028", "\x85", "\u2029"])
def test_a_yaml_only_line_break_in_front_matter_keeps_spans_on_the_editors_lines(sep: str) -> None:
    # YAML ends lines at U+2028, U+0085 and U+2029 too; positions must be counted the editor's way.
    for text, line in ((f"---\n{sep}AAAA:\n---", 1), (f"---\nCONCEPT: a\nTLDR: x{sep}AAAA: b\n---\n", 2)):
        bank = bank_of_texts({"sep.md": text})
        found = check_file(bank, "sep.md")
        for f in found:
            assert_inside(text, f.span)
        (span,) = [f.span for f in found if f.code == "CKP003"]
        assert span.start_line == span.end_line == line
        assert split_lines(text)[line][span.start_col : span.end_col] == "AAAA"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example([b"---\n\xe2\x80\xa8AAAA:\n---"])
@given(
    st.lists(
        st.one_of(
            st.binary(max_size=40),
            st.sampled_from(
                [
                    b"\xef\xbb\xbf",
                    b"---\n",
                    b"CONCEPT: a\n",
                    b"ANSWERS_WHEN: x, x\r\n",
                    b"SIMILAR_HIGH: a:2025-13, b\r",
                    b"TLDR: \x00\xff\n",
                    b"\xe2\x80\xa8",
                    b"- [*a, &a x]\n",
                    b"\xed\xa0\x80",
                ]
            ),
        ),
        max_size=12,
    ),
)
def test_any_bytes_give_findings_inside_the_text_and_never_raise(parts: list[bytes]) -> None:
    data = b"".join(parts)
    bank = bank_of_texts({"any.md": data, "other.md": bare_header(CONCEPT="a", ANSWERS_WHEN="x")})
    text = decode(data)[0]
    found: list[Finding] = check_file(bank, "any.md")
    for f in found:
        assert_inside(text, f.span)
    check_index(bank)
