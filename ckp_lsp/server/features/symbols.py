"""Document symbols (header fields, then the Markdown headings) and workspace symbols (concepts)."""

from __future__ import annotations

from collections.abc import Container, Iterable
from pathlib import Path

from lsprotocol import types
from rapidfuzz import fuzz, process, utils

from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.format.fields import Field
from ckp_lsp.core.format.index_cells import index_cells
from ckp_lsp.core.format.text import Span, split_lines, utf16_len
from ckp_lsp.core.navigation.outline import Heading, outline

from ..convert import location, to_range
from ..state import Doc

#: the lowest rapidfuzz score (0-100) at which a concept matches a workspace-symbol query
MATCH_CUTOFF = 60
MAX_RESULTS = 200


def _field_symbol(f: Field, concept_of: dict[int, str]) -> types.DocumentSymbol:
    k, v = f.key_span, f.value_span
    end = max((k.end_line, k.end_col), (v.end_line, v.end_col))
    whole = Span(k.start_line, k.start_col, *end)
    children = [
        types.DocumentSymbol(
            name=concept_of[id(item)],
            detail=item.text,
            kind=types.SymbolKind.Constant,
            range=to_range(item.span),
            selection_range=to_range(item.span),
        )
        for item in f.items
        if id(item) in concept_of
    ]
    return types.DocumentSymbol(
        name=f.key,
        detail=" ".join(f.value.split()),
        kind=types.SymbolKind.Key if f.key == "CONCEPT" else types.SymbolKind.Field,
        range=to_range(whole),
        selection_range=to_range(f.key_span),
        children=children or None,
    )


def _heading_symbol(h: Heading, lines: list[str]) -> types.DocumentSymbol:
    end = h.end_line
    return types.DocumentSymbol(
        name=h.text,
        kind=types.SymbolKind.String,
        range=types.Range(
            start=types.Position(line=h.line, character=0),
            end=types.Position(line=end, character=utf16_len(lines[end])),
        ),
        selection_range=to_range(h.span),
        children=[_heading_symbol(c, lines) for c in h.children] or None,
    )


def document_symbols(doc: Doc, text: str) -> list[types.DocumentSymbol]:
    """The header's fields (relationship entries nested), then the headings as a hierarchy."""
    lines = split_lines(text)
    out: list[types.DocumentSymbol] = []
    kf = doc.file
    header = kf.header if kf is not None else None
    if kf is not None and header is not None:
        spans = {r.span: r.concept for r in kf.relationships}
        for f in header.fields:
            concept_of = {id(i): spans[i.span] for i in f.items if i.span in spans}
            out.append(_field_symbol(f, concept_of))
    headings = [_heading_symbol(h, lines) for h in outline(lines, header.end_line if header else 0).headings]
    if doc.is_index:
        _add_rows(headings, _row_symbols(text))
    return out + headings


def _row_symbols(text: str) -> list[types.DocumentSymbol]:
    out = []
    for cell in index_cells(text):
        if cell.column == "CONCEPT":
            out.append(
                types.DocumentSymbol(
                    name=cell.text,
                    detail=cell.file or None,
                    kind=types.SymbolKind.Key,
                    range=to_range(cell.span),
                    selection_range=to_range(cell.span),
                )
            )
    return out


def _add_rows(headings: list[types.DocumentSymbol], rows: list[types.DocumentSymbol]) -> None:
    """Put each index row under the innermost heading whose section holds it (top level otherwise)."""
    for row in rows:
        level, parent = headings, None
        while True:
            inner = next(
                (s for s in level if s.range.start.line <= row.range.start.line <= s.range.end.line), None
            )
            if inner is None:
                break
            parent, level = inner, list(inner.children or [])
        if parent is None:
            headings.append(row)
        else:
            parent.children = [*(parent.children or []), row]


def flatten(
    symbols: list[types.DocumentSymbol], uri: str, container: str | None = None
) -> list[types.SymbolInformation]:
    """Hierarchical symbols as the flat list a client without hierarchy support takes."""
    out = []
    for s in symbols:
        out.append(
            types.SymbolInformation(
                name=s.name,
                kind=s.kind,
                location=types.Location(uri=uri, range=s.range),
                container_name=container,
            )
        )
        out += flatten(list(s.children or []), uri, s.name)
    return out


def workspace_symbols(
    banks: Iterable[Bank], query: str, boms: Container[Path] = ()
) -> list[types.WorkspaceSymbol]:
    """Concepts of every bank that fuzzy-match ``query`` (all of them for an empty query), best first."""
    files = [(bank, kf) for bank in banks for kf in bank.sorted_files() if kf.concept and kf.concept_span]
    query = query.strip()
    if query:
        names = [kf.concept or "" for _, kf in files]
        matches = process.extract(
            query,
            names,
            scorer=fuzz.WRatio,
            processor=utils.default_process,
            score_cutoff=MATCH_CUTOFF,
            limit=None,
        )
        matches.sort(key=lambda m: (-m[1], names[m[2]]))
        chosen = [files[i] for _, _, i in matches[:MAX_RESULTS]]
    else:
        chosen = sorted(files, key=lambda bk: bk[1].concept or "")[:MAX_RESULTS]
    return [
        types.WorkspaceSymbol(
            name=kf.concept or "",
            kind=types.SymbolKind.Key,
            location=location(bank.root / kf.path, kf.concept_span or Span(0, 0, 0, 0), boms),
            container_name=kf.tldr or None,
        )
        for bank, kf in chosen
    ]
