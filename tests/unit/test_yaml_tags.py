"""Explicit YAML tags in front matter: a CKP006 finding on that file, never an exception."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ckp_lsp.core.bank.checks import check_file
from ckp_lsp.core.format.header import parse_header
from ckp_lsp.core.routing.bench import BenchError, load_queries
from tests.unit.builders import bank_of_texts, bare_header

ROOT = Path(__file__).resolve().parents[2]

#: tags whose constructor raises on the value (int, bool, float, timestamp), refuses it (binary,
#: python objects, unknown tags) or builds something that is not text
TAGGED = [
    "!!int abc",
    "!!bool maybe",
    "!!float x",
    "!!timestamp x",
    "!!binary x",
    "!!python/object:os.system x",
    "!!python/name:os.system ''",
    "!foo x",
    "!!map x",
    "!<tag:example.com,2000:x> y",
]


def tagged(value: str, key: str = "TLDR") -> str:
    fields = {"CONCEPT": "tagged", "TLDR": "The tagged file.", "ANSWERS_WHEN": "tagged", key: value}
    return "---\n" + "".join(f"{k}: {v}\n" for k, v in fields.items()) + "---\n\nBody.\n"


@pytest.mark.parametrize("value", TAGGED)
def test_a_tag_the_loader_cannot_build_is_ckp006_on_its_line(value: str) -> None:
    header = parse_header(tagged(value))
    assert header is not None and header.yaml_error is not None
    message, span = header.yaml_error
    assert "not valid YAML" in message
    assert span.start_line == 2  # the TLDR line, where the tag is


@pytest.mark.parametrize("value", TAGGED)
def test_a_tagged_file_is_one_finding_and_the_other_files_are_checked(value: str) -> None:
    bank = bank_of_texts({"tagged.md": tagged(value), "good.md": bare_header(CONCEPT="good")})
    assert [f.code for f in check_file(bank, "tagged.md")] == ["CKP006"]
    assert check_file(bank, "good.md") == []


@pytest.mark.parametrize("value", ["!!int abc", "!!bool maybe", "!!timestamp x", "!foo x"])
def test_a_tag_in_a_users_own_key_is_ckp006_too(value: str) -> None:
    header = parse_header(tagged(value, key="date"))
    assert header is not None and header.yaml_error is not None


@pytest.mark.parametrize("value", ["!!int abc", "!!bool maybe", "!!timestamp x", "!foo x"])
def test_a_tagged_queries_file_is_a_bench_error(tmp_path: Path, value: str) -> None:
    queries = tmp_path / "queries.yaml"
    queries.write_text(f"- query: jwt\n  max_loaded: {value}\n", encoding="utf-8")
    with pytest.raises(BenchError, match="not valid YAML"):
        load_queries(queries)


def test_ckp_check_reports_the_tagged_files_and_exits_1(tmp_path: Path) -> None:
    bank = tmp_path / "memory-bank"
    bank.mkdir()
    for n, value in enumerate(TAGGED):
        (bank / f"t{n}.md").write_text(tagged(value).replace("tagged", f"t{n}"), encoding="utf-8")
    (bank / "good.md").write_text(bare_header(CONCEPT="good"), encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "ckp_lsp.cli.main", "check", str(bank), "--no-cache"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert "Traceback" not in run.stderr, run.stderr
    assert run.returncode == 1
    assert sorted(
        line.split(": ")[0].rsplit("/", 1)[1].split(":")[0]
        for line in run.stdout.splitlines()
        if "CKP006" in line
    ) == sorted(f"t{n}.md" for n in range(len(TAGGED)))
    assert "good.md" not in run.stdout
