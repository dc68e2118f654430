"""The relationship graph of a bank: concepts as nodes, SIMILAR_HIGH and SIMILAR_MID as edges.

Rendered as Mermaid or Graphviz DOT: HIGH edges solid, MID dashed, stale edges (SPEC §3) red and
labelled "stale", and concepts that are named but declared by no file shown as missing nodes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ckp_lsp.core.bank.bank import Bank


@dataclass(frozen=True)
class Node:
    """A concept, and the file that declares it (None: named by a relationship, declared nowhere)."""

    concept: str
    file: str | None

    @property
    def missing(self) -> bool:
        return self.file is None


@dataclass(frozen=True)
class Edge:
    """A relationship of ``source`` to ``target``."""

    source: str
    target: str
    tier: str  # "HIGH" or "MID"
    date: str | None
    stale: bool = False


@dataclass
class Graph:
    nodes: list[Node] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)


def build_graph(bank: Bank) -> Graph:
    """The graph of ``bank``: nodes sorted by concept, edges in file then header order."""
    graph = Graph()
    declared = {c: bank.by_concept[c][0] for c in bank.concepts()}
    named: set[str] = set()
    seen: set[tuple[str, str, str]] = set()
    for kf in bank.sorted_files():
        if not kf.concept:
            continue
        for rel in kf.relationships:
            key = (kf.concept, rel.concept, rel.tier)
            if rel.concept == kf.concept or key in seen:
                continue
            seen.add(key)
            named.add(rel.concept)
            target = bank.file_of(rel.concept)
            updated = bank.updated_date(target) if target is not None else None
            stale = updated is not None and rel.date is not None and updated.is_after(rel.date)
            graph.edges.append(Edge(kf.concept, rel.concept, rel.tier, rel.date_text, stale))
    graph.nodes = [Node(c, declared.get(c)) for c in sorted(set(declared) | named)]
    return graph


def _ids(graph: Graph) -> dict[str, str]:
    """A Mermaid node id for each concept: prefixed, so that no concept reads as a keyword (``end``)."""
    ids: dict[str, str] = {}
    used: set[str] = set()
    for node in graph.nodes:
        base = "n_" + re.sub(r"[^A-Za-z0-9_]", "_", node.concept)
        ident, n = base, 2
        while ident in used:
            ident, n = f"{base}_{n}", n + 1
        used.add(ident)
        ids[node.concept] = ident
    return ids


def _label(text: str) -> str:
    return text.replace('"', "#quot;")


def to_mermaid(graph: Graph) -> str:
    """The graph as a Mermaid flowchart."""
    ids = _ids(graph)
    out = ["flowchart LR"]
    for node in graph.nodes:
        if node.missing:
            out.append(f'    {ids[node.concept]}["{_label(node.concept)} (missing)"]:::missing')
        else:
            out.append(f'    {ids[node.concept]}["{_label(node.concept)}"]')
    stale: list[int] = []
    for n, e in enumerate(graph.edges):
        arrow = "-->" if e.tier == "HIGH" else "-.->"
        label = "|stale|" if e.stale else ""
        out.append(f"    {ids[e.source]} {arrow}{label} {ids[e.target]}")
        if e.stale:
            stale.append(n)
    if any(node.missing for node in graph.nodes):
        out.append("    classDef missing stroke:#c00,stroke-dasharray:4 3,color:#c00")
    if stale:
        out.append(f"    linkStyle {','.join(map(str, stale))} stroke:#c00,color:#c00")
    return "\n".join(out) + "\n"


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def to_dot(graph: Graph) -> str:
    """The graph as a Graphviz digraph."""
    out = ["digraph ckp {", "    rankdir=LR;", "    node [shape=box];"]
    for node in graph.nodes:
        if node.missing:
            out.append(
                f"    {_quote(node.concept)} [label={_quote(node.concept + ' (missing)')}, "
                "style=dashed, color=red, fontcolor=red];"
            )
        else:
            out.append(f"    {_quote(node.concept)};")
    for e in graph.edges:
        attrs = [] if e.tier == "HIGH" else ["style=dashed"]
        if e.stale:
            attrs += ["color=red", "fontcolor=red", 'label="stale"']
        suffix = f" [{', '.join(attrs)}]" if attrs else ""
        out.append(f"    {_quote(e.source)} -> {_quote(e.target)}{suffix};")
    out.append("}")
    return "\n".join(out) + "\n"
