"""A header value holding an index marker cannot end the generated section early: the index
stays the same size however often it is regenerated, and reads back without drift."""

from __future__ import annotations

from pathlib import Path

import pytest

from ckp_lsp.cli.main import main
from ckp_lsp.core.bank.index_checks import check_index
from ckp_lsp.core.format.index import update_index_text
from ckp_lsp.core.format.index_format import INDEX_END, INDEX_START
from ckp_lsp.faces.banks import load_bank
from tests.unit.builders import alone, bank_of_texts, bare_header, write_files

HOSTILE = {
    "evil.md": bare_header(
        CONCEPT="evil", TLDR=f"Ends the index here {INDEX_END} and starts again {INDEX_START} twice."
    ),
    "keys.md": bare_header(CONCEPT="keys", ANSWERS_WHEN=f"keys, {INDEX_END}, <!-- a comment -->"),
    "ok.md": bare_header(CONCEPT="ok"),
}


@pytest.mark.parametrize("form", ["table", "blocks"])
def test_regenerating_an_index_with_markers_in_headers_changes_nothing_the_second_time(form: str) -> None:
    bank = bank_of_texts(HOSTILE)
    first = update_index_text(None, bank, form)
    assert first.count(INDEX_START) == 1 and first.count(INDEX_END) == 1
    again = update_index_text(first, bank, form)
    assert again == first
    assert update_index_text(again, bank, form) == first
    bank.index_text = first
    assert [f.code for f in check_index(bank)] in ([], ["CKP071"])
    assert "Ends the index here <\\!-- ckp:index:end -->" in first


def test_ckp_index_on_disk_stays_the_same_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    bank = alone(write_files(tmp_path / "memory-bank", HOSTILE))
    assert main(["index", str(bank)]) == 0
    size = (bank / "_index.md").stat().st_size
    for _ in range(3):
        assert main(["index", str(bank)]) == 0
        assert main(["index", "--check", str(bank)]) == 0
    assert (bank / "_index.md").stat().st_size == size
    assert not [f for f in check_index(load_bank(bank)) if f.code == "CKP070"]
