"""Definition, references, document links, code lens and folding through the real server."""

from __future__ import annotations

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.mentat import MENTAT_REFERRERS

from .conftest import MENTAT, doc_id, open_doc, open_indexed, pos, wait_indexed


def spots(locations) -> list[tuple[str, int, int, int]]:
    """(file name, line, start, end) of each location, for short comparisons."""
    return [
        (x.uri.rsplit("/", 1)[-1], x.range.start.line, x.range.start.character, x.range.end.character)
        for x in locations or []
    ]


async def test_definition_from_an_entry_jumps_to_the_related_concept_line(client: LanguageClient):
    ws = client.workspace_path
    auth, uri = await open_indexed(client, f"{MENTAT}/patterns/auth.md")
    got = await client.text_document_definition_async(
        types.DefinitionParams(text_document=doc_id(uri), position=pos(auth, "jwt:2026-10", 1))
    )
    assert isinstance(got, list)
    (target,) = got
    assert target.uri == (ws / MENTAT / "patterns/jwt.md").as_uri()
    concept = pos(ws / MENTAT / "patterns/jwt.md", "jwt")
    assert (target.range.start, target.range.end.character) == (concept, concept.character + 3)


async def test_definition_from_an_index_row_goes_to_its_file(client: LanguageClient):
    ws = client.workspace_path
    index, uri = await open_indexed(client, f"{MENTAT}/_index.md")
    jwt_uri = (ws / MENTAT / "patterns/jwt.md").as_uri()
    for needle in ("| jwt |", "| patterns/jwt.md |"):
        got = await client.text_document_definition_async(
            types.DefinitionParams(text_document=doc_id(uri), position=pos(index, needle, 3))
        )
        assert spots(got) == [("jwt.md", 0, 14, 17)], needle
        assert isinstance(got, list) and got[0].uri == jwt_uri


async def test_an_index_row_pointing_outside_the_bank_gives_no_location(client: LanguageClient):
    ws = client.workspace_path
    await wait_indexed(client)
    index = ws / MENTAT / "_index.md"
    text = index.read_text().replace("| patterns/jwt.md |", "| ../../etc/passwd |")
    text = text.replace("| patterns/oauth2.md |", "| /etc/passwd |")
    uri = open_doc(client, index, text)
    for needle in ("| ../../etc/passwd |", "| jwt |", "| /etc/passwd |", "| oauth2 |"):
        line = next(i for i, x in enumerate(text.splitlines()) if needle in x)
        col = text.splitlines()[line].index(needle) + 3
        got = await client.text_document_definition_async(
            types.DefinitionParams(
                text_document=doc_id(uri), position=types.Position(line=line, character=col)
            )
        )
        assert not got, needle
    links = await client.text_document_document_link_async(
        types.DocumentLinkParams(text_document=doc_id(uri))
    )
    targets = [x.target or "" for x in links or []]
    assert targets and all(t.startswith((ws / MENTAT).as_uri() + "/") for t in targets)
    assert not any("passwd" in t for t in targets)


async def test_references_from_concept_list_every_entry_and_the_index_row(client: LanguageClient):
    ws = client.workspace_path
    jwt, uri = await open_indexed(client, f"{MENTAT}/patterns/jwt.md")

    async def refs(declaration: bool) -> list[tuple[str, int, int, int]]:
        got = await client.text_document_references_async(
            types.ReferenceParams(
                text_document=doc_id(uri),
                position=pos(jwt, "jwt", 1),
                context=types.ReferenceContext(include_declaration=declaration),
            )
        )
        return spots(got)

    index_line = pos(ws / MENTAT / "_index.md", "| jwt |")
    entries = [
        ("auth.md", *_entry(ws / MENTAT / "patterns/auth.md", "jwt:")),
        ("oauth2.md", *_entry(ws / MENTAT / "patterns/oauth2.md", "jwt:")),
        ("_index.md", index_line.line, index_line.character + 2, index_line.character + 5),
    ]
    assert await refs(False) == entries
    assert await refs(True) == [("jwt.md", 0, 14, 17), *entries]


def _entry(path, needle: str) -> tuple[int, int, int]:
    p = pos(path, needle)
    return p.line, p.character, p.character + 3


async def test_document_links_of_similar_entries(client: LanguageClient):
    ws = client.workspace_path
    auth, uri = await open_indexed(client, f"{MENTAT}/patterns/auth.md")
    links = await client.text_document_document_link_async(
        types.DocumentLinkParams(text_document=doc_id(uri))
    )
    assert [(x.range.start.line, x.target) for x in links or []] == [
        (pos(auth, "jwt:").line, (ws / MENTAT / "patterns/jwt.md").as_uri()),
        (pos(auth, "oauth2:").line, (ws / MENTAT / "patterns/oauth2.md").as_uri()),
        (pos(auth, "frontend:").line, (ws / MENTAT / "stack/frontend.md").as_uri()),
    ]
    first = (links or [])[0]
    assert (
        first.range.start == pos(auth, "jwt:")
        and first.range.end.character == first.range.start.character + 3
    )


async def test_code_lens_counts_backlinks_and_tokens(client: LanguageClient):
    mentat, uri = await open_indexed(client, f"{MENTAT}/projects/mentat.md")
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(text_document=doc_id(uri)))
    (lens,) = lenses or []
    tokens = -(-len(mentat.read_text()) // 4)
    # HIGH from mentat-istat; MID from civis, prescient and travelguidehub.
    assert lens.command is not None
    assert lens.command.title == f"1 HIGH · 3 MID backlinks · ~{tokens:,} tokens"
    assert lens.range.start == pos(mentat, "mentat")
    # Its command is one the server executes: an editor that only runs listed commands (Neovim)
    # may run it, and gets the references the lens counts.
    provider = client.init_result.capabilities.execute_command_provider  # type: ignore[attr-defined]
    assert provider is not None and lens.command.command in provider.commands
    found = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=lens.command.command, arguments=lens.command.arguments)
    )
    files = sorted({loc["uri"].rsplit("/memory-bank/", 1)[-1] for loc in found})
    assert files == MENTAT_REFERRERS


async def test_folding_ranges_of_both_header_forms(client: LanguageClient):
    ws = client.workspace_path
    await wait_indexed(client)
    jwt = ws / MENTAT / "patterns/jwt.md"
    front = ws / MENTAT / "stack/frontend.md"
    for path, last in ((jwt, 6), (front, front.read_text().splitlines().index("---", 1))):
        uri = open_doc(client, path)
        ranges = await client.text_document_folding_range_async(
            types.FoldingRangeParams(text_document=doc_id(uri))
        )
        assert ranges, path
        assert (ranges[0].start_line, ranges[0].end_line) == (0, last)
        lines = path.read_text().splitlines()
        heading = next(i for i, x in enumerate(lines) if x.startswith("# "))
        assert any(r.start_line == heading for r in ranges)  # the body's sections fold too
