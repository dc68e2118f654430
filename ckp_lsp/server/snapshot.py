"""What one request about a document sees, and the one converter of its positions."""

from __future__ import annotations

from collections.abc import Container
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from lsprotocol import types

from ..core.bank.bank import Bank
from ..core.bank.findings import Finding
from ..core.format.dates import CkpDate
from ..core.format.knowledge import KnowledgeFile
from ..core.format.text import BOM, Span
from .client import ClientCapabilities
from .convert import after_bom, to_position, to_range
from .documents import OpenDocument
from .state import Doc, WorkspaceState


@dataclass(frozen=True)
class Snapshot:
    """A document of a bank as a request finds it: its text, BOM and version, the client's
    capabilities and the day.

    The core reads a document without its BOM; an editor that keeps U+FEFF counts it on line 0.
    Every position a request brings and every range it answers passes through ``position``,
    ``range`` or ``editor_range``: the shift is made here, nowhere else.
    """

    uri: str
    doc: Doc
    opened: OpenDocument | None  # the editor's document, when it is open
    caps: ClientCapabilities
    day: CkpDate
    state: WorkspaceState  # the banks, for what a request reads besides its document

    @property
    def bank(self) -> Bank:
        return self.doc.bank

    @property
    def rel(self) -> str:
        return self.doc.rel

    @property
    def file(self) -> KnowledgeFile | None:
        return self.doc.file

    @property
    def bom(self) -> bool:
        return self.opened is not None and self.opened.bom

    @property
    def version(self) -> int | None:
        return self.opened.version if self.opened is not None else None

    @property
    def boms(self) -> Container[Path]:
        """The open documents whose editor text starts with a BOM (for locations in them)."""
        return self.state.boms

    @cached_property
    def text(self) -> str | None:
        """The text without its BOM: the editor's when it is open, else the disk's if the bank
        reads it; None for a file the bank skipped (a symlink leading outside, a pipe): never read."""
        if self.opened is not None:
            return self.opened.text
        doc = self.doc
        if doc.is_index:
            return doc.bank.index_text
        if doc.file is None:
            return None
        try:  # as the bank read it: a file that is not UTF-8 is still text
            return doc.bank.disk.read(doc.bank.root / doc.rel).text
        except OSError:
            return None

    @property
    def editor_text(self) -> str:
        """The editor's text as it holds it, BOM included ("" when it is not open)."""
        if self.opened is None:
            return ""
        return BOM + self.opened.text if self.opened.bom else self.opened.text

    def findings(self) -> list[Finding]:
        return self.state.findings(self.doc)

    # --- positions ------------------------------------------------------------------------------

    def position(self, at: types.Position) -> tuple[int, int]:
        """The core (line, column) of the editor's position ``at``."""
        return to_position(at, self.bom)

    def range(self, span: Span) -> types.Range:
        """The editor's range of a core span."""
        return to_range(span, self.bom)

    def editor_range(self, r: types.Range) -> types.Range:
        """A range a feature built on the text without its BOM, in the editor's columns."""
        return after_bom(r, self.bom)
