"""Every face reads, lists and writes a bank's files one way: through ``core.project.within`` (the
reader and lister that judges the file or folder it opened) and ``core.edit.writes`` (given the
folder it must stay in).

The scan fails on a module that opens, reads, lists, copies, moves or removes a file any other way;
each module allowed to is named with what it opens, none of which is a bank's or a project's file. The behaviour tests follow a
symbolic link from inside a bank to a file outside it through the CLI, ``ckp mcp``'s tools and
the language server's state: it is never read, compiled or written.
"""

from __future__ import annotations

import argparse
import ast
import functools
import json
from pathlib import Path

import pytest

import ckp_lsp
from ckp_lsp.cli import hook_cmd
from ckp_lsp.cli.main import main
from ckp_lsp.core.project.config import Config
from ckp_lsp.core.project.within import Folder, Outside, read_inside
from ckp_lsp.core.routing.ranked import RankedRouter
from ckp_lsp.core.routing.route_table import read_route_table
from ckp_lsp.faces.banks import read_headers
from ckp_lsp.mcp.banks import Refusal, ServedBanks
from ckp_lsp.server.state import WorkspaceState
from tests.unit.builders import bare_header, write_files

PACKAGE = Path(ckp_lsp.__file__).parent

#: the modules that may open, read, list or write a file themselves, and why: each opens no file
#: of a bank or a project but through ``within`` (the two first are the way)
ALLOWED = {
    "core/project/within.py": "the one reader and lister: the file opened is judged by where it really is",
    "core/edit/writes.py": "the one writer (and /proc/self/status for the umask)",
    "core/bank/cache.py": "the cache files, by a folder's descriptor that within judges, never through a link;"
    " and the package's own modules, for the cache's stamp",
    "core/project/trust.py": "the user's trust store in their own configuration folder: no project's file",
    "core/routing/store.py": "the package's own routing modules, for the kept analysis's stamp",
    "core/routing/snapshot.py": "the package's own language modules, for the snapshot's stamp",
    "core/routing/bench.py": "the questions file named on ckp bench's command line: the user's, no bank's",
    "core/language/stopwords.py": "the package's own word lists",
    "server/methods_cache.py": "the package's own compiled protocol methods, beside its byte code",
    "server/pygls_compat.py": "the installed pygls's metadata folder, for its version",
    "cli/index_cmd.py": "the three temporary files git hands its merge driver: git's, outside any bank",
}
#: the calls that open, read, list or write a file
METHODS = {
    "open",
    "read_text",
    "read_bytes",
    "write_text",
    "write_bytes",
    "iterdir",
    "glob",
    "rglob",
    "unlink",
}
OS_CALLS = {"open", "fdopen", "replace", "rename", "remove", "unlink", "scandir", "walk", "listdir"}
SHUTIL_CALLS = {"copy", "copy2", "copyfile", "copytree", "copyfileobj", "move", "rmtree"}
FUNCTIONS = {"open", "read_text", "scandir", "listdir"}


def _file_calls(tree: ast.AST) -> list[tuple[int, str]]:
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        if isinstance(f, ast.Name) and f.id in FUNCTIONS:
            out.append((node.lineno, f.id))
        elif isinstance(f, ast.Attribute):
            on = f.value.id if isinstance(f.value, ast.Name) else None
            if on == "os":
                found = f.attr in OS_CALLS
            elif on == "shutil":
                found = f.attr in SHUTIL_CALLS
            else:
                found = f.attr in METHODS
            if found:
                out.append((node.lineno, f.attr))
    return out


@functools.cache
def _modules() -> list[tuple[str, ast.AST]]:
    return [
        (p.relative_to(PACKAGE).as_posix(), ast.parse(p.read_text(encoding="utf-8")))
        for p in sorted(PACKAGE.rglob("*.py"))
    ]


def test_no_module_opens_reads_or_writes_a_file_but_the_allowed_ones() -> None:
    found = [
        f"{rel}:{line}: {name}(...)"
        for rel, tree in _modules()
        if rel not in ALLOWED
        for line, name in _file_calls(tree)
    ]
    assert found == [], "read through core.within.Folder / read_inside, write through write_atomic"


def test_the_scan_finds_each_way_of_opening_a_file() -> None:
    # The scan above must be able to fail: each spelling it looks for is found.
    source = "\n".join(
        [
            "open(p)",
            "p.open()",
            "p.read_text()",
            "p.read_bytes()",
            "p.write_text(t)",
            "p.write_bytes(b)",
            "os.open(p, 0)",
            "os.fdopen(3)",
            "os.replace(a, b)",
            "os.rename(a, b)",
            "read_text(p)",
            "os.remove(p)",
            "os.unlink(p)",
            "p.unlink()",
            "os.scandir(p)",
            "os.walk(p)",
            "os.listdir(p)",
            "scandir(p)",
            "listdir(p)",
            "p.iterdir()",
            "p.glob('*.md')",
            "p.rglob('*.md')",
            "shutil.copy(a, b)",
            "shutil.copy2(a, b)",
            "shutil.copyfile(a, b)",
            "shutil.copytree(a, b)",
            "shutil.move(a, b)",
            "shutil.rmtree(p)",
        ]
    )
    assert len(_file_calls(ast.parse(source))) == 28
    assert _file_calls(ast.parse("bank.disk.read(p)\nread_inside(p, root)\nos.path.join(a, b)")) == []
    assert _file_calls(ast.parse("disk.entries(p)\ndisk.head(p, 9)\nlisting(p)\nshutil.which('git')")) == []


#: the one module that reads a bank from disk (``load_bank``): the bank service every face uses
BANK_SERVICE = "faces/banks.py"


def _bank_loads(tree: ast.AST) -> list[int]:
    """The lines calling ``load_bank`` (by its name or as an attribute: ``banks.load_bank``)."""
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and (
            (isinstance(node.func, ast.Name) and node.func.id == "load_bank")
            or (isinstance(node.func, ast.Attribute) and node.func.attr == "load_bank")
        )
    ]


def test_only_the_bank_service_loads_a_bank() -> None:
    # A face (or the core) that called load_bank itself would read a bank without the service's
    # configuration, cache, dates or day: each is given a loader instead.
    found = [f"{rel}:{line}" for rel, tree in _modules() if rel != BANK_SERVICE for line in _bank_loads(tree)]
    assert found == [], "load a bank through faces.banks (read_bank, loader, read_headers)"
    assert _bank_loads(dict(_modules())[BANK_SERVICE]), "the bank service no longer loads banks"


def test_the_bank_load_scan_finds_each_spelling() -> None:
    source = "load_bank(root)\nbanks.load_bank(root, config)\nself._bank = load_bank(r, c, cache, d, t)"
    assert len(_bank_loads(ast.parse(source))) == 3
    assert _bank_loads(ast.parse("yaml.load(text)\nload(root, config, cache)\nbank.reload_index()")) == []


def test_every_allowed_module_still_opens_a_file() -> None:
    # An entry left behind after its module stopped opening files would allow the next one to.
    modules = dict(_modules())
    assert [rel for rel in ALLOWED if not _file_calls(modules[rel])] == []


def test_every_write_atomic_call_names_the_folder_it_must_stay_in() -> None:
    missing = [
        f"{rel}:{node.lineno}"
        for rel, tree in _modules()
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and getattr(node.func, "id", getattr(node.func, "attr", None)) == "write_atomic"
        and not any(k.arg == "within" for k in node.keywords)
    ]
    assert missing == []


@pytest.fixture
def linked(tmp_path: Path) -> Path:
    """A project whose bank holds a link to a secret file outside it, beside a file of its own."""
    (tmp_path / "project" / ".git").mkdir(parents=True)
    bank = tmp_path / "project" / "memory-bank"
    write_files(bank, {"own.md": bare_header(CONCEPT="own")})
    secret = bare_header(CONCEPT="secret-thing", ANSWERS_WHEN="password").replace(
        "Body.", "hunter2 lives here."
    )
    (tmp_path / "secret.md").write_text(secret)
    (bank / "leak.md").symlink_to(tmp_path / "secret.md")
    return bank


def test_the_reader_refuses_a_file_that_leads_outside_and_reads_one_inside(linked: Path) -> None:
    disk = Folder(linked)
    with pytest.raises(Outside):
        disk.read(linked / "leak.md")
    with pytest.raises(Outside):
        read_inside(linked / ".." / ".." / "secret.md", linked)  # ``..`` taken too
    assert disk.read(linked / "own.md").text == bare_header(CONCEPT="own")
    (linked / "alias.md").symlink_to("own.md")  # a link that stays inside is read
    assert disk.read(linked / "alias.md").text == bare_header(CONCEPT="own")


def test_the_cli_never_reads_or_rewrites_a_file_linked_outside(
    linked: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = (linked.parent.parent / "secret.md").read_text()
    for argv in (["check", str(linked)], ["compile", "--all", str(linked)], ["fix", str(linked)]):
        main(argv)
    out, err = capsys.readouterr()
    assert "secret-thing" not in out + err and "password" not in out + err
    assert (linked.parent.parent / "secret.md").read_text() == before
    assert "leak.md" not in (linked / "_index.md").read_text()


def test_mcp_never_reads_a_file_linked_outside(linked: Path) -> None:
    banks = ServedBanks(linked.parent)
    with pytest.raises(Refusal, match="outside the bank"):
        banks.file("memory-bank/leak.md")
    sb, rel = banks.file("memory-bank/own.md")
    (linked / "own.md").unlink()
    (linked / "own.md").symlink_to(linked.parent.parent / "secret.md")  # swapped in since listed
    with pytest.raises(Refusal, match="not read"):
        banks.read(sb, rel)


def server_state(root: Path) -> WorkspaceState:
    """The language server's state with the bank at ``root`` read."""
    state = WorkspaceState()
    state.folders = [root.parent]
    state.reload_all([state.load_bank(root, Config())])
    return state


def test_the_language_server_never_reads_a_file_linked_outside(linked: Path) -> None:
    root = linked.resolve()
    state = server_state(root)
    bank = state.bank_for(root / "own.md")
    assert bank is not None and "leak.md" not in bank.files and "secret-thing" not in bank.by_concept
    state.disk_changed(root / "leak.md")  # a disk event for it reads nothing either
    assert "leak.md" not in bank.files and "leak.md" in bank.unreadable
    (root / "own.md").unlink()
    (root / "own.md").symlink_to(root.parent.parent / "secret.md")  # swapped in since it was read
    state.disk_changed(root / "own.md")
    assert "own.md" not in bank.files and "secret-thing" not in bank.by_concept


def test_the_server_and_mcp_take_a_file_swapped_for_a_link_out_alike_and_say_why(linked: Path) -> None:
    # Both faces apply a change made on disk with faces.banks.take_from_disk: the same outcome.
    root = linked.resolve()
    state = server_state(root)
    server_bank = state.bank_for(root / "own.md")
    served = ServedBanks(root, poll_interval=0)
    mcp_bank = served.bank(None).bank
    assert server_bank is not None and "own.md" in server_bank.files and "own.md" in mcp_bank.files
    (root / "own.md").unlink()
    (root / "own.md").symlink_to(root.parent.parent / "secret.md")
    state.disk_changed(root / "own.md")
    served.current()
    for bank in (server_bank, mcp_bank):
        assert "own.md" not in bank.files and "secret-thing" not in bank.by_concept
        assert "own.md" in bank.unreadable
    (root / "own.md").unlink()
    (root / "own.md").write_text(bare_header(CONCEPT="own-again"))
    state.disk_changed(root / "own.md")
    served.current()
    for bank in (server_bank, mcp_bank):
        assert bank.files["own.md"].concept == "own-again" and "own.md" not in bank.unreadable


def _leaked(text: str) -> bool:
    return any(w in text for w in ("secret-thing", "password", "hunter2", "leak.md"))


def test_ckp_route_never_routes_or_reads_a_file_linked_outside(
    linked: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for mode in ("index", "ranked"):
        main(["route", str(linked), "secret thing password hunter2", "--mode", mode, "--format", "json"])
        out, err = capsys.readouterr()
        answer = json.loads(out)
        assert answer.pop("query") == "secret thing password hunter2"  # (the question, said back)
        assert not _leaked(json.dumps(answer) + err)


def test_the_hook_never_routes_or_reads_a_file_linked_outside(linked: Path) -> None:
    project = linked.parent
    args = argparse.Namespace(host="claude-code", event="UserPromptSubmit", bank=None, max_chars=None)
    stdin = json.dumps({"prompt": "the secret thing, its password: hunter2?", "cwd": str(project)}).encode()
    for _ in range(2):  # built, then answered from the kept snapshot
        assert not _leaked(hook_cmd.answer(args, lambda n: stdin, {"CLAUDE_PROJECT_DIR": str(project)}))
    session = argparse.Namespace(host="claude-code", event="SessionStart", bank=None, max_chars=None)
    assert not _leaked(hook_cmd.answer(session, lambda n: b"{}", {"CLAUDE_PROJECT_DIR": str(project)}))


def test_the_ranked_router_never_reads_a_file_swapped_for_a_link_outside_after_listing(linked: Path) -> None:
    table = read_route_table(linked, Config(), load=read_headers)
    assert table.paths == ["own.md"]
    (linked / "own.md").unlink()
    (linked / "own.md").symlink_to(linked.parent.parent / "secret.md")  # swapped in since listed
    router = RankedRouter(table)
    assert [t.body for t in router.texts] == [""]  # the header the table holds, no more
    assert router.route("hunter2").loaded == []
