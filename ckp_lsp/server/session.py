"""The session: everything the server knows, owned in one place, and the snapshot each request gets."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .client import ClientCapabilities, Settings
from .convert import path_of
from .documents import Documents
from .snapshot import Snapshot
from .state import Doc, WorkspaceState


class Session:
    """The banks (``state``), the editor's documents, the client's settings and capabilities.

    Handlers read it through a ``Snapshot``; the document sync handlers, the start-up and the
    indexer change it.
    """

    def __init__(self, use_cache: bool = True) -> None:
        self.documents = Documents()
        self.state = WorkspaceState(self.documents)
        self.state.use_cache = use_cache  # ``ckp-lsp --no-cache``: every file read, no cache written
        self.caps = ClientCapabilities()  # resolved at ``initialize``
        # Routers of the routing preview, rebuilt only after a change: bank root -> (state
        # version, router); one per bank, dropped with it
        self.routers: dict[Path, tuple[int, Any]] = {}
        self.told: set[str] = set()  # notes already shown in a window (once a server)

    @property
    def settings(self) -> Settings:
        return self.state.settings

    @settings.setter
    def settings(self, settings: Settings) -> None:
        self.state.settings = settings

    def doc_at(self, uri: str) -> Doc | None:
        """The bank document at ``uri``, if it is one."""
        path = path_of(uri)
        return self.state.doc(path) if path is not None else None

    def snapshot(self, uri: str) -> Snapshot | None:
        """What a request about ``uri`` sees; None when it is no document of a bank."""
        doc = self.doc_at(uri)
        if doc is None:
            return None
        opened = self.documents.get(uri)
        if opened is None:
            opened = self.documents.at(doc.bank.root / doc.rel)
        return Snapshot(uri, doc, opened, self.caps, self.state.today, self.state)

    def router(self, root: Path, make: Any) -> Any:
        """The bank's router, made by ``make`` again only after a change."""
        kept = self.routers.get(root)
        if kept is None or kept[0] != self.state.version:
            self.routers = {r: v for r, v in self.routers.items() if r in self.state.banks}
            kept = self.routers[root] = (self.state.version, make())
        return kept[1]
