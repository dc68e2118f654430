"""The one place where core values become LSP types."""

from __future__ import annotations

import functools
from collections.abc import Container
from pathlib import Path
from urllib.parse import quote

from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path

from ckp_lsp.core.bank.findings import CODES, Finding
from ckp_lsp.core.format.text import Span, visible_controls

#: The format reference in the repository (vscode-client/package.json names the repository):
#: diagnostics and hovers link to its sections.
FORMAT_DOC = "https://github.com/ckp-lsp/ckp-lsp/blob/main/docs/format.md"


def doc_url(section: str) -> str:
    """The format reference's section ``section`` (a code such as ``CKP050``, or a field name)."""
    return f"{FORMAT_DOC}#{section.lower()}"


# One per code: a bank of 10,000 files converts many findings at once.
_CODE_DOCS = {code: types.CodeDescription(href=doc_url(code)) for code in CODES}


def to_range(span: Span, bom: bool = False) -> types.Range:
    """The LSP range of a core span; ``bom``: the editor's text starts with U+FEFF.

    The core reads a document without its BOM, while an editor that keeps U+FEFF in the text
    counts it (one UTF-16 unit) on line 0: there every column moves one to the right.
    """
    if bom:
        return _after_bom(span)
    return types.Range(
        start=types.Position(line=span.start_line, character=span.start_col),
        end=types.Position(line=span.end_line, character=span.end_col),
    )


def _after_bom(span: Span) -> types.Range:
    start_col = span.start_col + (1 if span.start_line == 0 else 0)
    end_col = span.end_col + (1 if span.end_line == 0 else 0)
    return types.Range(
        start=types.Position(line=span.start_line, character=start_col),
        end=types.Position(line=span.end_line, character=end_col),
    )


def to_span(r: types.Range, bom: bool = False) -> Span:
    """The core span of an editor's range: ``to_range`` undone."""
    shift = 1 if bom else 0
    return Span(
        r.start.line,
        max(r.start.character - (shift if r.start.line == 0 else 0), 0),
        r.end.line,
        max(r.end.character - (shift if r.end.line == 0 else 0), 0),
    )


def to_position(p: types.Position, bom: bool = False) -> tuple[int, int]:
    """The core (line, UTF-16 column) of an editor's position: a BOM's column on line 0 dropped."""
    col = p.character - 1 if bom and p.line == 0 else p.character
    return p.line, max(col, 0)


def after_bom(r: types.Range, bom: bool = True) -> types.Range:
    """An LSP range computed on the text without the BOM, in the editor's columns (``to_range``'s
    shift, for a range a feature built itself)."""
    if not bom or (r.start.line != 0 and r.end.line != 0):
        return r
    return _after_bom(Span(r.start.line, r.start.character, r.end.line, r.end.character))


def to_diagnostic(f: Finding, bom: bool = False) -> types.Diagnostic:
    return types.Diagnostic(
        range=to_range(f.span, bom),
        message=visible_controls(f.message),
        severity=types.DiagnosticSeverity(int(f.severity)),
        code=f.code,
        code_description=_CODE_DOCS.get(f.code),
        source="ckp",
        data={"code": f.code, **f.data} if f.data else {"code": f.code},
        tags=[types.DiagnosticTag.Unnecessary] if f.code in ("CKP043",) else None,
    )


def title_of(code: str) -> str:
    return CODES.get(code, (None, code))[1]


def uri_of(path: Path) -> str:
    return from_fs_path(str(path)) or path.as_uri()


@functools.lru_cache(maxsize=1024)
def _root_uri(root: Path) -> str:
    """The URI of a bank's root, without its trailing slash (kept for the most recent banks)."""
    return uri_of(root).rstrip("/")


def uri_in(root: Path, rel: str) -> str:
    """``uri_of(root / rel)`` for a bank-relative POSIX path, without parsing the path again.

    Percent-encoding works character by character, so the root's URI (cached) and the encoded
    relative path can be joined: a bank of 10,000 files asks for 10,000 URIs at once.
    """
    return f"{_root_uri(root)}/{quote(rel)}" if rel else uri_of(root)


def path_of(uri: str) -> Path | None:
    fs = to_fs_path(uri)
    return Path(fs) if fs else None


def location(path: Path, span: Span, boms: Container[Path] = ()) -> types.Location:
    """The location of ``span`` in the file ``path``; ``boms``: the open documents starting with a BOM."""
    return types.Location(uri=uri_of(path), range=to_range(span, path in boms))


def uri_arg(args: tuple[object, ...] | list[object]) -> str | None:
    """A document URI from a command's arguments: ``"file://…"``, ``{"uri": …}`` or ``[…]``."""
    for a in args:
        if isinstance(a, str):
            return a
        if isinstance(a, dict) and isinstance(a.get("uri"), str):
            return str(a["uri"])
        if isinstance(a, list) and a:
            return uri_arg(a)
    return None
