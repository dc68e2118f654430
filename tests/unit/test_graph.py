"""The relationship graph: nodes, tiers, stale edges, missing targets, Mermaid and DOT, the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest

from ckp_lsp.cli.main import main
from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.navigation.graph import Edge, Graph, Node, build_graph, to_dot, to_mermaid
from ckp_lsp.core.project.config import Config
from ckp_lsp.faces.banks import load_bank
from ckp_lsp.faces.updated import DISK

BANK = Path(__file__).resolve().parent.parent / "data" / "graph" / "memory-bank"


@pytest.fixture(scope="module")
def bank() -> Bank:
    return load_bank(BANK)


def test_nodes_are_concepts_and_unknown_targets_are_missing(bank: Bank) -> None:
    assert build_graph(bank).nodes == [
        Node("api", "api.md"),
        Node("auth", "auth.md"),
        Node("billing", None),
        Node("cache", "cache.md"),
    ]
    assert Node("billing", None).missing


def test_edges_keep_tier_date_and_staleness(bank: Bank) -> None:
    assert build_graph(bank).edges == [
        Edge("api", "auth", "HIGH", "2025-05", stale=True),  # auth was validated 2025-07
        Edge("api", "cache", "MID", "2025-05", stale=False),  # cache was validated 2025-04
        Edge("api", "billing", "MID", "2025-05", stale=False),
        Edge("auth", "api", "HIGH", "2025-05", stale=False),
    ]


def test_staleness_follows_the_configured_source() -> None:
    # With modification times as the updated date, every target changed today: all stale.
    bank = load_bank(BANK, Config(staleness="mtime"), dates=DISK)
    assert all(e.stale for e in build_graph(bank).edges if e.target != "billing")


def test_mermaid_high_solid_mid_dashed_stale_red_missing_marked(bank: Bank) -> None:
    text = to_mermaid(build_graph(bank))
    lines = text.splitlines()
    assert lines[0] == "flowchart LR"
    assert '    n_billing["billing (missing)"]:::missing' in lines
    assert "    n_api -->|stale| n_auth" in lines
    assert "    n_api -.-> n_cache" in lines
    assert "    n_auth --> n_api" in lines
    assert "    linkStyle 0 stroke:#c00,color:#c00" in lines
    assert any(line.strip().startswith("classDef missing") for line in lines)


def test_dot_high_solid_mid_dashed_stale_red_missing_marked(bank: Bank) -> None:
    lines = to_dot(build_graph(bank)).splitlines()
    assert lines[0] == "digraph ckp {" and lines[-1] == "}"
    assert '    "api" -> "auth" [color=red, fontcolor=red, label="stale"];' in lines
    assert '    "api" -> "cache" [style=dashed];' in lines
    assert '    "auth" -> "api";' in lines
    assert '    "billing" [label="billing (missing)", style=dashed, color=red, fontcolor=red];' in lines


def test_mermaid_ids_never_clash_with_keywords() -> None:
    graph = Graph(
        [Node("end", "end.md"), Node("a.b", "x.md"), Node("a_b", "y.md")], [Edge("end", "a.b", "HIGH", None)]
    )
    text = to_mermaid(graph)
    assert '    n_end["end"]' in text
    assert '    n_a_b["a.b"]' in text and '    n_a_b_2["a_b"]' in text
    assert "    n_end --> n_a_b" in text


def test_cli_prints_mermaid_by_default_and_dot_on_request(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["graph", str(BANK)]) == 0
    assert capsys.readouterr().out.startswith("flowchart LR\n")
    assert main(["graph", str(BANK), "--format", "dot"]) == 0
    assert capsys.readouterr().out.startswith("digraph ckp {\n")


def test_cli_not_a_bank(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["graph", str(tmp_path)]) == 2
    assert "not a memory bank" in capsys.readouterr().err
