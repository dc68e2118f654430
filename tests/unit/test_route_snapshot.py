"""The routing snapshot (``route-snapshot.marshal``): a one-shot process that routes from it answers
exactly as one that reads and analyses the bank, sees every change on disk, and trusts it only as
the cache is trusted (this bank, this user, never through a link)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from ckp_lsp.core.project.config import config_for_bank
from ckp_lsp.core.project.discovery import find_banks
from ckp_lsp.core.routing import ranked, route_table, snapshot
from ckp_lsp.core.routing.index_pattern import Router
from ckp_lsp.core.routing.ranked import RankedRouter
from ckp_lsp.core.routing.snapshot import index_router, ranked_router
from ckp_lsp.faces.banks import load_bank, read_headers
from tests.copies import copy_tree
from tests.unit.builders import write_files

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
SNAPSHOT = Path(".ckp-cache") / "route-snapshot.marshal"


def header(concept: str, keywords: str) -> str:
    return f"CONCEPT: {concept}\nTLDR: Notes on {concept}.\nANSWERS_WHEN: {keywords}\nVALIDATED: 2025-05\n\n"


@pytest.fixture(autouse=True)
def cache_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CKP_NO_CACHE", raising=False)
    monkeypatch.delenv("CKP_CACHE_DIR", raising=False)


def nothing_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make reading or analysing the bank fail: only the snapshot can answer."""

    def refuse(*_: object, **__: object) -> Any:
        raise AssertionError("the bank was read, not the snapshot")

    monkeypatch.setattr(route_table, "read_route_table", refuse)
    monkeypatch.setattr(ranked, "analyse", refuse)


def answers(router: RankedRouter, queries: list[str]) -> list[dict[str, Any]]:
    return [router.route(q).as_dict() for q in queries]


@pytest.mark.parametrize("sample", sorted(p.parent.name for p in SAMPLES.glob("*/queries.yaml")))
def test_on_every_sample_the_snapshot_routes_every_query_as_the_bank_read_in_full(
    sample: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (found,) = find_banks([SAMPLES / sample])
    copy_tree(SAMPLES / sample, tmp_path / sample)
    root = tmp_path / sample / found.relative_to(SAMPLES / sample)
    items = yaml.safe_load((SAMPLES / sample / "queries.yaml").read_text(encoding="utf-8"))
    queries = [item["query"] for item in items]
    full = answers(RankedRouter(load_bank(root)), queries)
    first = answers(ranked_router(root, load=read_headers), queries)  # builds, and writes the snapshot
    assert (root / SNAPSHOT).is_file()
    with monkeypatch.context() as m:
        nothing_read(m)
        kept = answers(ranked_router(root, load=read_headers), queries)
    assert kept == first == full


@pytest.mark.parametrize("sample", sorted(p.parent.name for p in SAMPLES.glob("*/queries.yaml")))
def test_the_index_mode_routes_from_the_snapshot_as_from_the_bank_read_in_full(
    sample: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``ckp route --mode index``: the kept index pattern while the bank is unchanged (no file
    read), the table through the cache after a change; both answer as the bank read in full."""
    (found,) = find_banks([SAMPLES / sample])
    copy_tree(SAMPLES / sample, tmp_path / sample)
    root = tmp_path / sample / found.relative_to(SAMPLES / sample)
    items = yaml.safe_load((SAMPLES / sample / "queries.yaml").read_text(encoding="utf-8"))
    queries = [item["query"] for item in items] + ["weather in Lisbon"]
    config = config_for_bank(root)

    def index_answers(router: Router) -> list[dict[str, Any]]:
        return [router.route(q).as_dict() for q in queries]

    full = index_answers(Router(load_bank(root)))
    assert (
        index_answers(index_router(root, config, load=read_headers)) == full
    )  # no snapshot yet: the table read
    ranked_router(root, config, load=read_headers)  # writes the snapshot
    with monkeypatch.context() as m:
        nothing_read(m)
        assert index_answers(index_router(root, config, load=read_headers)) == full
    extra = root / "zz-notes.md"
    extra.write_text(header("zz-notes", "zebra crossing") + "Notes.\n", encoding="utf-8")
    changed = index_answers(Router(load_bank(root)))
    assert (
        index_answers(index_router(root, config, load=read_headers)) == changed
    )  # the snapshot no longer matches


def a_bank(tmp_path: Path) -> Path:
    return write_files(
        tmp_path / "memory-bank",
        {
            "ledger.md": header("ledger", "ledger, invoices") + "How invoices are reconciled.\n",
            "deploy.md": header("deploy", "deploy, canary") + "Canary releases go out first.\n",
        },
    )


def test_the_second_process_routes_from_the_snapshot_without_reading_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = a_bank(tmp_path)
    first = ranked_router(root, load=read_headers).route("canary release").as_dict()
    assert (root / SNAPSHOT).stat().st_mode & 0o777 == 0o600
    nothing_read(monkeypatch)
    assert ranked_router(root, load=read_headers).route("canary release").as_dict() == first
    assert first["loaded"][0]["file"] == "deploy.md"


def test_a_kept_router_decodes_only_the_rows_of_the_question_s_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The snapshot keeps each term's postings apart and no flat list of every keyword: a process
    decodes what its question reads, and a server's second question indexes the keywords then."""
    root = write_files(
        tmp_path / "memory-bank",
        {
            f"note-{i}.md": header(f"note-{i}", f"topic{i} alpha, shared words") + f"Body {i}.\n"
            for i in range(30)
        }
        | {"deploy.md": header("deploy", "deploy, canary") + "Canary releases go out first.\n"},
    )
    first = ranked_router(root, load=read_headers)
    queries = ["canary release", "topic7 alpha", "shared words", "deploy"]
    expected = answers(first, queries)
    nothing_read(monkeypatch)
    kept = ranked_router(root, load=read_headers)
    assert "_items" not in vars(kept.index)
    assert all(isinstance(t, snapshot.KeptRows) for t in kept.postings.tables)
    assert answers(kept, queries[:1]) == expected[:1]
    decoded = set().union(*(t._decoded for t in kept.postings.tables))
    assert decoded and decoded <= {"canary", "release", "releases"}  # (of one stem)
    assert "_items" not in vars(kept.index)
    assert answers(kept, queries[1:]) == expected[1:]  # (indexed now, as a server does)
    assert "_items" in vars(kept.index)


def test_a_file_changed_after_the_snapshot_is_seen(tmp_path: Path) -> None:
    root = a_bank(tmp_path)
    assert ranked_router(root, load=read_headers).route("sourdough starter").out_of_domain
    path = root / "deploy.md"
    # Of the same size, a nanosecond later, as a save within the same second gives.
    before = path.stat()
    text = path.read_text(encoding="utf-8")
    path.write_text(
        text.replace("Canary releases go out first.", "Sourdough starter is fed now."), encoding="utf-8"
    )
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 1))
    assert path.stat().st_size == before.st_size
    result = ranked_router(root, load=read_headers).route("sourdough starter")
    assert [e.file for e in result.primaries] == ["deploy.md"]


def test_a_file_added_or_removed_after_the_snapshot_is_seen(tmp_path: Path) -> None:
    root = a_bank(tmp_path)
    assert ranked_router(root, load=read_headers).route("webhook signing").out_of_domain
    (root / "hooks.md").write_text(
        header("webhooks", "webhook signing") + "Signed with HMAC.\n", encoding="utf-8"
    )
    assert [e.file for e in ranked_router(root, load=read_headers).route("webhook signing").primaries] == [
        "hooks.md"
    ]
    (root / "hooks.md").unlink()
    assert ranked_router(root, load=read_headers).route("webhook signing").out_of_domain
    assert ranked_router(root, load=read_headers).files == 2


def test_a_changed_index_or_setting_builds_the_router_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = a_bank(tmp_path)
    ranked_router(root, load=read_headers)
    built: list[Path] = []
    real = snapshot._built
    monkeypatch.setattr(snapshot, "_built", lambda r, *rest: built.append(r) or real(r, *rest))
    ranked_router(root, load=read_headers)
    assert built == []
    (root / "_index.md").write_text("# Index\n", encoding="utf-8")
    ranked_router(root, load=read_headers)
    assert len(built) == 1
    (root.parent / ".ckp.toml").write_text('exclude = ["deploy.md"]\n', encoding="utf-8")
    (root.parent / ".git").mkdir()  # (the settings of the project the bank is in)
    router = ranked_router(root, load=read_headers)
    assert len(built) == 2
    assert router.table.paths == ["ledger.md"]


def test_a_snapshot_of_another_bank_is_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Copied with its bank, files and times alike (or left by a bank deleted and made anew at
    its path), it is another bank's: bound to the bank's path and inode."""
    root = a_bank(tmp_path / "one")
    ranked_router(root, load=read_headers)
    other = copy_tree(root, tmp_path / "two" / "memory-bank")
    (other / SNAPSHOT).parent.mkdir()
    (other / SNAPSHOT).write_bytes((root / SNAPSHOT).read_bytes())
    (other / SNAPSHOT).chmod(0o600)
    nothing_read(monkeypatch)
    ranked_router(root, load=read_headers)  # (the first bank's own is used)
    with pytest.raises(AssertionError, match="the bank was read"):
        ranked_router(other, load=read_headers)


def test_a_snapshot_others_may_write_is_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = a_bank(tmp_path)
    ranked_router(root, load=read_headers)
    (root / SNAPSHOT).chmod(0o666)
    nothing_read(monkeypatch)
    with pytest.raises(AssertionError, match="the bank was read"):
        ranked_router(root, load=read_headers)


def test_a_cache_folder_that_is_a_link_is_neither_read_nor_written(tmp_path: Path) -> None:
    """A repository may commit ``.ckp-cache -> /elsewhere``: nothing is written there."""
    root = a_bank(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (root / ".ckp-cache").symlink_to(elsewhere, target_is_directory=True)
    assert [e.file for e in ranked_router(root, load=read_headers).route("canary").primaries] == ["deploy.md"]
    assert list(elsewhere.iterdir()) == []


def test_a_broken_snapshot_is_built_again(tmp_path: Path) -> None:
    root = a_bank(tmp_path)
    first = ranked_router(root, load=read_headers).route("canary").as_dict()
    data = (root / SNAPSHOT).read_bytes()
    for broken in (b"", data[: len(data) // 2], data[:4] + b"\x00" * (len(data) - 4)):
        (root / SNAPSHOT).write_bytes(broken)
        assert ranked_router(root, load=read_headers).route("canary").as_dict() == first
    assert (root / SNAPSHOT).read_bytes() == data


def test_with_the_cache_turned_off_no_snapshot_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CKP_NO_CACHE", "1")
    root = a_bank(tmp_path)
    assert [e.file for e in ranked_router(root, load=read_headers).route("canary").primaries] == ["deploy.md"]
    assert not (root / ".ckp-cache").exists()


def test_the_snapshot_and_the_kept_analysis_are_written_only_where_the_cache_may_be(tmp_path: Path) -> None:
    # The same rule as the bank's cache (``cache.cache_place``): inside one of the folders named.
    root = a_bank(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    ranked_router(root, within=[elsewhere], load=read_headers)
    assert not (root / ".ckp-cache").exists()  # no snapshot, no bank.marshal, no route.marshal
    ranked_router(root, within=[tmp_path], load=read_headers)
    for name in ("route-snapshot.marshal", "bank.marshal", "route.marshal"):
        assert (root / ".ckp-cache" / name).exists()
