"""``compile --all`` offline: phases, a fixed point in one run, order independence, what is kept."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from ckp_lsp.cli.main import main
from ckp_lsp.core.bank.checks import check_file
from ckp_lsp.core.bank.findings import Severity
from ckp_lsp.core.compile.compile_all import compile_all
from ckp_lsp.core.compile.offline import BankFile, compile_bank
from ckp_lsp.core.edit.rewrite import body_of
from ckp_lsp.core.format.knowledge import read_knowledge_file
from ckp_lsp.core.format.text import decode
from ckp_lsp.faces.banks import load_bank
from tests.unit.builders import copy_to_cwd, snapshot_files

SOURCE = Path(__file__).resolve().parent.parent / "data" / "compile_all"
MONTH = "2026-12"


@pytest.fixture
def bank(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A writable copy of the mixed-language test bank; the working directory is its parent."""
    return copy_to_cwd(SOURCE, tmp_path / "project", monkeypatch) / "memory-bank"


def texts_of(root: Path) -> dict[str, str]:
    loaded = load_bank(root)
    return {rel: decode((root / rel).read_bytes())[0] for rel in sorted(loaded.files)}


def run_all(root: Path, force: bool = False, order: list[str] | None = None) -> dict[str, str]:
    """The new texts of a bank after compile_all, the files given in `order`."""
    texts = texts_of(root)
    ordered = {rel: texts[rel] for rel in (order or list(texts))}
    return {o.rel: o.new for o in compile_all(load_bank(root), ordered, MONTH, force=force)}


def header(text: str) -> dict[str, str]:
    return read_knowledge_file("x.md", text).written()


# ---------------------------------------------------------------- fixed point and order


@pytest.mark.parametrize("force", [False, True])
def test_a_second_run_on_an_unchanged_bank_changes_no_byte(bank: Path, force: bool) -> None:
    flag = ["--force"] if force else []
    assert main(["compile", "--all", str(bank), *flag]) == 0
    first = snapshot_files(bank)
    assert main(["compile", "--all", str(bank), *flag]) == 0
    assert snapshot_files(bank) == first


def test_force_after_fill_and_fill_after_force_change_nothing(bank: Path) -> None:
    assert main(["compile", "--all", str(bank), "--force"]) == 0
    first = snapshot_files(bank)
    assert main(["compile", "--all", str(bank)]) == 0
    assert snapshot_files(bank) == first


def test_the_result_does_not_depend_on_file_order(bank: Path) -> None:
    expected = run_all(bank)
    for seed in range(3):
        order = sorted(expected)
        random.Random(seed).shuffle(order)
        assert run_all(bank, order=order) == expected


def test_compile_bank_is_independent_of_the_order_of_its_input() -> None:
    files = [
        BankFile("a.md", "# Alpha\n\nAlpha sends events to `beta` through Kafka topics every minute."),
        BankFile("b.md", "# Beta\n\nBeta consumes the Kafka topics that `alpha` writes, then stores them."),
        BankFile("c.md", "# Gamma\n\nGamma keeps a Redis cache of the Kafka topics for the dashboards."),
    ]
    expected = compile_bank(files)
    assert compile_bank(list(reversed(files))) == expected
    assert compile_bank([files[1], files[2], files[0]]) == expected


def test_relationships_see_files_compiled_later_in_path_order(bank: Path) -> None:
    new = run_all(bank)
    # active-context sorts first; it still relates to system-patterns, which it links to and
    # which names it back, and to tech-context, which it names.
    active = header(new["activeContext.md"])
    assert active["SIMILAR_HIGH"] == f"system-patterns:{MONTH}"
    assert f"tech-context:{MONTH}" in active["SIMILAR_MID"]
    assert header(new["systemPatterns.md"])["SIMILAR_HIGH"] == f"active-context:{MONTH}"


# ---------------------------------------------------------------- fill and force


def test_fill_gives_every_file_a_valid_header_and_keeps_the_bodies(bank: Path) -> None:
    before = texts_of(bank)
    assert main(["compile", "--all", str(bank)]) == 0
    after = texts_of(bank)
    for rel, text in after.items():
        assert text.endswith(body_of(before[rel])), rel  # the body, byte for byte
        assert header(text)["CONCEPT"] and header(text)["TLDR"] and header(text)["ANSWERS_WHEN"], rel
    loaded = load_bank(bank)
    errors = [f for rel in loaded.files for f in check_file(loaded, rel) if f.severity == Severity.ERROR]
    assert errors == []


def test_fill_keeps_the_fields_a_header_has_and_front_matter_keys(bank: Path) -> None:
    new = run_all(bank)
    tiendas = header(new["tiendas.md"])
    assert tiendas["TLDR"] == "Catálogo de tiendas con horarios y direcciones."
    assert tiendas["ANSWERS_WHEN"] == "tiendas, horarios, direcciones"
    assert tiendas["VALIDATED"] == "2025-02"  # not moved forward
    assert "title: Technical context\nowner: platform-team\ntags: [stack]\n" in new["techContext.md"]


def test_an_offline_compile_removes_only_entries_naming_no_concept(bank: Path) -> None:
    for force in (False, True):
        tiendas = header(run_all(bank, force=force)["tiendas.md"])
        assert "ghost-concept" not in tiendas["SIMILAR_MID"]
        assert "progress:2025-02" in tiendas["SIMILAR_MID"]  # kept, with its date


def test_force_recompiles_keywords_but_keeps_a_valid_human_tldr_and_validated(bank: Path) -> None:
    tiendas = header(run_all(bank, force=True)["tiendas.md"])
    assert tiendas["TLDR"] == "Catálogo de tiendas con horarios y direcciones."
    assert tiendas["VALIDATED"] == "2025-02"
    assert tiendas["ANSWERS_WHEN"] != "tiendas, horarios, direcciones"
    assert tiendas["ANSWERS_WHEN"].startswith("tiendas, ")


def test_force_replaces_a_tldr_that_is_a_metadata_line(bank: Path) -> None:
    path = bank / "progress.md"
    path.write_text(
        "CONCEPT: progress\nTLDR: Status: Accepted.\nANSWERS_WHEN: progress\n\n" + path.read_text()
    )
    new = header(run_all(bank, force=True)["progress.md"])
    assert new["TLDR"].startswith("Progress: Sending and receiving messages")


def test_new_entries_are_dated_now_and_existing_ones_keep_their_date(bank: Path) -> None:
    path = bank / "activeContext.md"
    path.write_text("CONCEPT: active-context\nSIMILAR_MID: progress:2026-01\n\n" + path.read_text())
    active = header(run_all(bank, force=True)["activeContext.md"])
    assert "progress:2026-01" in active["SIMILAR_MID"]
    assert f"system-patterns:{MONTH}" in active["SIMILAR_HIGH"]


# ---------------------------------------------------------------- the command


def test_dry_run_diff_for_all_shows_every_change_and_writes_nothing(
    bank: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = snapshot_files(bank)
    assert main(["compile", "--all", str(bank), "--dry-run", "--diff"]) == 0
    assert snapshot_files(bank) == before
    captured = capsys.readouterr()
    assert captured.out.count("+++ b/") == len(before)
    assert re.search(r"10 file\(s\): 10 would change, 0 failed \(\d+\.\d s\)\.", captured.err)


def test_progress_of_a_long_run_goes_to_stderr(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "memory-bank"
    root.mkdir()
    for n in range(120):
        (root / f"note-{n}.md").write_text(f"# Note {n}\n\nThe worker{n} drains queue{n} every night.\n")
    monkeypatch.chdir(tmp_path)
    assert main(["compile", "--all", "memory-bank"]) == 0
    captured = capsys.readouterr()
    assert "ckp: compiling 120 files: relationships…" in captured.err
    assert captured.out == ""


def test_force_needs_all(bank: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compile", "--force", str(bank / "progress.md")]) == 2
    assert "--force goes with --all" in capsys.readouterr().err


def test_a_front_matter_bank_gets_its_fields_in_the_front_matter_and_titles_from_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = copy_to_cwd(SOURCE / "adr", tmp_path / "adr", monkeypatch) / "memory-bank"
    assert main(["compile", "--all", str(root)]) == 0
    text = (root / "0003-event-bus.md").read_text()
    assert text.startswith("---\ntitle: Use Kafka as the event bus\nstatus: accepted\ndate: 2026-01-14\n")
    written = header(text)
    assert written["CONCEPT"] == "0003-event-bus"
    assert written["TLDR"] == (
        "Use Kafka as the event bus: Services call each other synchronously today, so one slow "
        "service stalls the checkout."
    )
    outbox = header((root / "0004-outbox.md").read_text())["TLDR"]
    assert outbox.startswith("An event must reach Kafka exactly when")  # it names the title's words


# ---------------------------------------------------------------- a file whose header will not be written

_MENTIONED = {
    "geography.md": "---\ntitle: [broken\n---\n# Geography\n\n"
    "Geography of the coastline: rivers, mountains and the coastline maps used by the routing service.\n",
    "routing.md": "# Routing\n\n"
    "The routing service reads the geography maps: rivers, mountains and coastline maps decide each route.\n",
    "maps.md": "# Maps\n\n"
    "Maps of the coastline, rivers and mountains come from the geography data; the routing service draws them.\n",
}


def _similar(path: Path) -> str:
    written = header(path.read_text(encoding="utf-8"))
    return written.get("SIMILAR_HIGH", "") + written.get("SIMILAR_MID", "")


def _mentioned_bank(tmp_path: Path) -> Path:
    root = tmp_path / "memory-bank"
    root.mkdir()
    for rel, text in _MENTIONED.items():
        (root / rel).write_text(text, encoding="utf-8")
    return root


def test_a_file_with_broken_front_matter_fails_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _mentioned_bank(tmp_path)
    assert main(["compile", "--all", str(root)]) == 1
    err = capsys.readouterr().err
    failures = [line for line in err.splitlines() if "nothing was changed" in line]
    assert len(failures) == 1 and "geography.md" in failures[0] and "CKP006" in failures[0]
    assert "CKP041" not in err
    assert "3 file(s): 2 filled, 1 failed" in err
    assert (root / "geography.md").read_text(encoding="utf-8") == _MENTIONED["geography.md"]
    loaded = load_bank(root)
    for rel in ("routing.md", "maps.md"):
        kf = loaded.files[rel]
        assert kf.concept == rel.removesuffix(".md")
        assert "geography" not in _similar(root / rel)
        assert not [f for f in check_file(loaded, rel) if f.severity == Severity.ERROR]


def test_a_read_only_file_is_no_relationship_target_and_fails_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _mentioned_bank(tmp_path)
    geography = root / "geography.md"
    geography.write_text(_MENTIONED["geography.md"].replace("[broken", "Geography"), encoding="utf-8")
    geography.chmod(0o444)
    try:
        assert main(["compile", "--all", str(root)]) == 1
    finally:
        geography.chmod(0o644)
    err = capsys.readouterr().err
    failed = [line for line in err.splitlines() if line.startswith("ckp: ") and "file(s)" not in line]
    assert len(failed) == 1 and "geography.md" in failed[0] and "read-only" in failed[0]
    assert "3 file(s): 2 filled, 1 failed" in err
    for rel in ("routing.md", "maps.md"):
        assert "maps" in _similar(root / "routing.md")  # relationships are still made, to the others
        assert "geography" not in _similar(root / rel)


# ---------------------------------------------------------------- keywords a question names


def test_a_latin_name_in_chinese_prose_is_a_keyword_even_used_once() -> None:
    body = (
        "# 馆藏检索\n\n## 索引\n\n检索服务每天凌晨同步一次全部馆藏，白天每五分钟增量同步一次借阅状态。\n"
        "索引使用 Elasticsearch，中文字段用分词器建索引。\n\n## 排序\n\n结果先按是否可借排序，再按相关度排序。\n"
    )
    other = "# 预约\n\n读者可以预约已借出的图书，图书归还后按排队顺序分配给读者，并发送通知。\n"
    answers = compile_bank([BankFile("search.md", body), BankFile("reservation.md", other)])
    assert "elasticsearch" in [k.casefold() for k in answers["search.md"].answers_when]


def test_a_numbered_concept_still_gets_the_words_of_its_name_as_keywords() -> None:
    """A query never says `0001`: the words of a numbered name must route on their own."""
    body = (
        "# Record architecture decisions\n\n## Decision\n\n"
        "We keep architecture decision records in the repository, one file per decision. A record "
        "that replaces an earlier one supersedes it, and the architecture guild approves each record.\n"
    )
    other = "# Kafka\n\nEvents go through Kafka topics; every consumer reads its topic in order.\n"
    files = [BankFile("0001-record-architecture-decisions.md", body), BankFile("0002-kafka.md", other)]
    keywords = compile_bank(files)["0001-record-architecture-decisions.md"].answers_when
    assert keywords[0] == "0001-record-architecture-decisions"
    assert {"architecture", "record"} & {k.casefold() for k in keywords[1:]}
