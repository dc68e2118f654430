"""`ckp check --format json` writes its JSON a finding at a time, the very bytes ``json.dumps``
of the whole would write: a bank with hundreds of thousands of findings does not hold their text."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ckp_lsp.cli.check import collect
from ckp_lsp.cli.main import main
from ckp_lsp.core.bank.findings import Finding, Severity
from ckp_lsp.core.format.text import Span
from ckp_lsp.faces.findings_json import as_json, json_chunks
from tests.unit.builders import bare_header, write_files

FILES = 200


class Recorder(io.StringIO):
    """stdout that remembers the largest single write."""

    largest = 0

    def write(self, s: str) -> int:
        self.largest = max(self.largest, len(s))
        return super().write(s)


def many_findings(root: Path) -> Path:
    """A bank whose every file relates to three others without dates: three CKP046 a file."""
    names = [f"note-{i}" for i in range(FILES)]
    files = {
        f"memory-bank/n{i}.md": bare_header(
            CONCEPT=name,
            TLDR=f'Note {i} — «ünïcode» and "quotes".',
            SIMILAR_MID=", ".join(names[(i + k) % FILES] for k in (1, 2, 3)),
        )
        for i, name in enumerate(names)
    }
    return write_files(root, files) / "memory-bank"


def test_the_json_is_written_a_finding_at_a_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bank = many_findings(tmp_path)
    monkeypatch.chdir(tmp_path)
    out = Recorder()
    monkeypatch.setattr("sys.stdout", out)
    assert main(["check", "--no-cache", "--format", "json", "memory-bank"]) == 0
    text = out.getvalue()
    results, _, checked, _ = collect([Path("memory-bank")])
    assert text == json.dumps(as_json(results, checked), indent=2, ensure_ascii=False) + "\n"
    assert len(results) >= 3 * FILES and len(text) > 300_000
    assert out.largest < 1_000  # one finding's text at most, never the whole
    assert bank.is_dir()


spans = st.builds(Span, *(st.integers(0, 10**6) for _ in range(4)))
findings = st.builds(
    Finding,
    code=st.sampled_from(["CKP001", "CKP046", "CKP050"]),
    span=spans,
    message=st.text(),
    severity=st.sampled_from(list(Severity)),
)
results = st.lists(st.tuples(st.builds(Path, st.sampled_from(["a.md", "d/é b.md", 'q"uote.md'])), findings))


@given(results, st.integers(0, 10**6))
def test_the_streamed_json_is_the_json_of_the_whole(found: list[tuple[Path, Finding]], checked: int) -> None:
    streamed = "".join(json_chunks(found, checked))
    assert streamed == json.dumps(as_json(found, checked), indent=2, ensure_ascii=False) + "\n"
