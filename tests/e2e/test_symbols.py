"""Document symbols and workspace symbols through the real server."""

from __future__ import annotations

from lsprotocol import types
from pytest_lsp import LanguageClient

from ckp_lsp.core.format.fields import CKP_FIELDS

from .conftest import MENTAT, doc_id, open_indexed, wait_indexed


def names(symbols: list[types.DocumentSymbol]) -> list[str]:
    out = []
    for s in symbols:
        out.append(s.name)
        out += names(list(s.children or []))
    return out


async def test_document_symbols_are_header_fields_then_headings(client: LanguageClient):
    _, uri = await open_indexed(client, f"{MENTAT}/mentat/istat.md")
    got = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=doc_id(uri))
    )
    assert got and all(isinstance(s, types.DocumentSymbol) for s in got)
    symbols = [s for s in got if isinstance(s, types.DocumentSymbol)]
    fields = [s.name for s in symbols if s.kind in (types.SymbolKind.Key, types.SymbolKind.Field)]
    assert fields == list(CKP_FIELDS)
    assert symbols[0].detail == "mentat-istat"
    (top,) = [s for s in symbols if s.kind == types.SymbolKind.String]
    assert top.name == "Mentat — ISTAT integration"
    assert [c.name for c in top.children or []] == [
        "Endpoints",
        "Rate limit",
        "Nightly sync",
        "Territory codes",
        "Pitfalls",
    ]
    # '# istat_flows.yaml — …' is a comment inside a fenced code block.
    assert not any("istat_flows" in n for n in names(symbols))


async def test_workspace_symbols_match_concepts_fuzzily(client: LanguageClient):
    ws = client.workspace_path
    await wait_indexed(client)
    got = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="geogrphy"))
    assert got
    first = got[0]
    assert first.name == "geography"
    assert isinstance(first.location, types.Location)
    assert first.location.uri == (ws / MENTAT / "domain/geography.md").as_uri()
    assert first.container_name is not None and first.container_name.startswith(
        "Italian administrative geography"
    )
    everything = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query=""))
    assert {"jwt", "mentat-istat", "rate-limiting", "travelguidehub"} <= {s.name for s in everything or []}
    assert not await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="qqqzzzxx"))
