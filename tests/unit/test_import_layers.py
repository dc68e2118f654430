"""Imports go one way: no face (the CLI, the MCP server, the language server) imports another, and
no module of ``ckp_lsp`` imports one that imports it back, however far round."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "ckp_lsp"
#: the faces over the core; what they share lives in ``ckp_lsp/faces``
FACES = ("cli", "mcp", "server")
#: where a face starts another, and uses nothing of it but that: ``ckp mcp`` runs the MCP server
LAUNCHES = {("ckp_lsp.cli.mcp_cmd", "ckp_lsp.mcp.server")}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache
def _read() -> tuple[tuple[str, Path, str], ...]:
    return tuple((module_name(p), p, p.read_text(encoding="utf-8")) for p in sorted(PACKAGE.rglob("*.py")))


def sources() -> dict[str, tuple[Path, str]]:
    return {name: (path, text) for name, path, text in _read()}


def imported(name: str, path: Path, text: str, known: set[str]) -> set[str]:
    """The modules of ``known`` that ``text`` imports, at its top or inside a function; an import
    only a type checker runs (``if TYPE_CHECKING:``) is no import at run time."""
    tree = ast.parse(text)
    typing_only = {
        id(n)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for n in ast.walk(node)
    }
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    out: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            out.add(module)
            out.update(f"{module}.{a.name}" for a in node.names)
    return {m for m in out if m in known and m != name}


def import_graph(texts: dict[str, tuple[Path, str]]) -> dict[str, set[str]]:
    known = set(texts)
    return {name: imported(name, path, text, known) for name, (path, text) in texts.items()}


def face_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in FACES else None


def across_faces(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    """Each (importer, imported) pair where one face imports another."""
    return {
        (a, b)
        for a, targets in graph.items()
        for b in targets
        if face_of(a) is not None and face_of(b) is not None and face_of(a) != face_of(b)
    } - LAUNCHES


def cycles(graph: dict[str, set[str]]) -> set[frozenset[str]]:
    """The strongly connected sets of modules with more than one member (Tarjan's algorithm)."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: set[frozenset[str]] = set()

    def visit(v: str) -> None:
        order[v] = low[v] = len(order)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in order:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], order[w])
        if low[v] == order[v]:
            members = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                members.add(w)
                if w == v:
                    break
            if len(members) > 1:
                found.add(frozenset(members))

    for v in sorted(graph):
        if v not in order:
            visit(v)
    return found


def test_no_face_imports_another_face() -> None:
    graph = import_graph(sources())
    assert "ckp_lsp.faces.findings_json" in graph["ckp_lsp.mcp.tools"]  # the JSON both faces give
    assert across_faces(graph) == set()


def test_there_is_no_import_cycle() -> None:
    graph = import_graph(sources())
    # (the routers: ``route()`` hands a query to either, and the ranked one builds on the index pattern's)
    assert {"ckp_lsp.core.routing.ranked", "ckp_lsp.core.routing.index_pattern"} <= graph[
        "ckp_lsp.core.routing"
    ]
    assert "ckp_lsp.core.routing.index_pattern" in graph["ckp_lsp.core.routing.ranked"]
    assert cycles(graph) == set()


@pytest.mark.parametrize(
    ("module", "put_back"),
    [
        ("ckp_lsp.mcp.tools", "from ..cli.check import run\n"),
        ("ckp_lsp.server.features.hover", "def f():\n    from ...mcp import tools\n"),
        ("ckp_lsp.cli.check", "import ckp_lsp.server.convert\n"),
    ],
)
def test_a_face_importing_another_is_caught(module: str, put_back: str) -> None:
    texts = sources()
    path, text = texts[module]
    texts[module] = (path, put_back + text)
    assert {a for a, _ in across_faces(import_graph(texts))} == {module}


@pytest.mark.parametrize(
    ("module", "put_back", "cycle"),
    [
        (
            "ckp_lsp.cli.compile_llm",
            "def f():\n    from .compile_cmd import run\n",
            {"ckp_lsp.cli.compile_cmd", "ckp_lsp.cli.compile_llm"},
        ),
        ("ckp_lsp.core.format.text", "from ckp_lsp.core.bank.bank import Bank\n", None),
    ],
)
def test_an_import_cycle_put_back_is_caught(module: str, put_back: str, cycle: set[str] | None) -> None:
    texts = sources()
    path, text = texts[module]
    texts[module] = (path, put_back + text)
    new = cycles(import_graph(texts))
    assert new and all(module in c for c in new)
    if cycle is not None:
        assert frozenset(cycle) in new


def test_an_import_a_type_checker_alone_runs_makes_no_cycle() -> None:
    texts = sources()
    path, text = texts["ckp_lsp.core.format.text"]
    texts["ckp_lsp.core.format.text"] = (
        path,
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ckp_lsp.core.bank.bank import Bank\n"
        + text,
    )
    assert cycles(import_graph(texts)) == set()
