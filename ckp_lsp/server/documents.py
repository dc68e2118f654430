"""The editor's open documents: the one store every reader of an editor's text goes through.

pygls applies the editor's incremental changes to its own buffers; the document sync handlers take
each new text from there once and put it here, with its BOM and version. Nothing else reads
pygls's workspace.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

from .convert import uri_of


@dataclass(frozen=True)
class OpenDocument:
    """An open document as the editor last sent it."""

    uri: str
    path: Path  # resolved: the key the banks know it by
    text: str  # without the BOM
    bom: bool  # the editor's text starts with U+FEFF: on line 0 it counts one column more
    version: int | None


class Documents:
    """Open documents by path (what the banks look up) and by URI (what requests name)."""

    def __init__(self) -> None:
        self._by_path: dict[Path, OpenDocument] = {}
        self._by_uri: dict[str, OpenDocument] = {}
        #: the open documents whose editor text starts with a BOM (their line 0 counts it)
        self.boms: set[Path] = set()

    def put(
        self, path: Path, text: str, bom: bool = False, uri: str | None = None, version: int | None = None
    ) -> OpenDocument:
        """The editor opened or changed the document at ``path``; ``text`` without its BOM."""
        old = self._by_path.get(path)
        if old is not None:
            self._by_uri.pop(_key(old.uri), None)
        doc = OpenDocument(uri or uri_of(path), path, text, bom, version)
        self._by_path[path] = self._by_uri[_key(doc.uri)] = doc
        if bom:
            self.boms.add(path)
        else:
            self.boms.discard(path)
        return doc

    def drop(self, path: Path) -> None:
        """The editor closed the document at ``path``."""
        old = self._by_path.pop(path, None)
        if old is not None:
            self._by_uri.pop(_key(old.uri), None)
        self.boms.discard(path)

    def at(self, path: Path) -> OpenDocument | None:
        return self._by_path.get(path)

    def get(self, uri: str) -> OpenDocument | None:
        return self._by_uri.get(_key(uri))

    def version_of(self, uri: str) -> int | None:
        """The editor's version of ``uri`` when it is open."""
        doc = self._by_uri.get(_key(uri))
        return doc.version if doc is not None else None

    def __contains__(self, path: object) -> bool:
        return path in self._by_path

    def __iter__(self) -> Iterator[OpenDocument]:
        return iter(list(self._by_path.values()))

    def __len__(self) -> int:
        return len(self._by_path)


def _key(uri: str) -> str:
    """A URI as pygls keys its documents: percent-escapes decoded (``%3A`` and ``:`` are one)."""
    return unquote(uri) if "%" in uri else uri
