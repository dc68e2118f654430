"""Publishing findings: pushed (versioned, debounced) or pulled, for every document that has any."""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from lsprotocol import types

from ckp_lsp.core.bank.findings import Finding, Severity

from .convert import to_diagnostic, uri_in
from .state import Dirty, Doc, WorkspaceState

#: dependents of a change are re-checked at most this long after it (seconds)
DEBOUNCE = 0.1
#: the longest the dependents' publication holds the event loop at once: a change that touches a
#: thousand files (a concept everything relates to) is published in slices, with the requests that
#: arrived meanwhile answered in between (seconds)
SLICE = 0.02


def result_id(diags: list[types.Diagnostic]) -> str:
    h = hashlib.blake2b(digest_size=8)
    for d in diags:
        # surrogatepass: a message may quote an editor's lone surrogate
        h.update(f"{d.code}{d.range}{d.severity}{d.message}".encode("utf-8", "surrogatepass"))
    return h.hexdigest()


class Publisher:
    """Knows what the client was sent, and sends what changed."""

    def __init__(
        self,
        state: WorkspaceState,
        publish: Callable[[types.PublishDiagnosticsParams], None],
        versions: Callable[[str], int | None],
    ) -> None:
        self.state = state
        self._publish = publish
        self._versions = versions
        self.pull = False  # the client pulls open documents' diagnostics
        self.workspace_pull = False  # the client pulls the workspace's too
        self.on_refresh: Callable[[], None] | None = None
        self.on_counts: Callable[[dict[str, int]], None] | None = None
        self.pushed: set[str] = set()
        self.counts: dict[str, tuple[int, int]] = {}
        self._pending = Dirty()
        self._timer: asyncio.TimerHandle | None = None
        self._due = Dirty()  # flushed, not yet sent
        self._draining = False
        self._sent = False  # since the last refresh request
        self._change = asyncio.Event()  # set (and replaced) whenever findings may have changed

    # --- scheduling ---------------------------------------------------------------------------

    def next_change(self) -> asyncio.Event:
        """Set once the findings may have changed after now (a held workspace pull waits for it)."""
        return self._change

    def _changed(self) -> None:
        self._change.set()
        self._change = asyncio.Event()

    def now(self, docs: Iterable[Doc]) -> None:
        """Publish ``docs`` at once (the document being typed in)."""
        for doc in docs:
            self._send(doc)
        self._changed()

    def later(self, dirty: Dirty) -> None:
        """Publish ``dirty`` documents after the debounce delay, coalescing bursts of changes."""
        self._pending.update(dirty)
        if self._timer is None:
            loop = asyncio.get_event_loop()
            self._timer = loop.call_later(DEBOUNCE, self.flush)

    def flush(self) -> None:
        self._timer = None
        self._due.update(self._pending)
        self._pending = Dirty()
        if not self._draining:
            self._drain()

    def _drain(self) -> None:
        """Send what is due for at most SLICE seconds, then let the event loop serve requests."""
        # Expanded now, from the banks as they are (they may have been read again meanwhile).
        docs = self.state.expand(self._due)
        self._due = Dirty()
        end = time.perf_counter() + SLICE
        for n, doc in enumerate(docs):
            if n and time.perf_counter() > end:
                for rest in docs[n:]:
                    if rest.is_index:
                        self._due.indexes.add(rest.bank.root)
                    else:
                        self._due.files.add((rest.bank.root, rest.rel))
                self._draining = True
                asyncio.get_event_loop().call_soon(self._drain)
                return
            self._send(doc)
            self._sent = True
        self._draining = False
        if self.pull and self.on_refresh is not None and self._sent:
            self.on_refresh()
        self._sent = False
        self._report_counts()
        self._changed()

    def publish_all(self, docs: Iterable[Doc], only_nonempty: bool = True) -> None:
        """The first publication after indexing: documents with findings only."""
        for doc in docs:
            self._send(doc, only_nonempty)
        self._report_counts()
        self._changed()

    # --- sending ------------------------------------------------------------------------------

    def diagnostics(self, doc: Doc) -> list[types.Diagnostic]:
        found = self.state.findings(doc)
        self._count(uri_in(doc.bank.root, doc.rel), found)
        bom = doc.bank.root / doc.rel in self.state.boms
        return [to_diagnostic(f, bom) for f in found]

    def _count(self, key: str, found: list[Finding]) -> None:
        if not found:
            self.counts.pop(key, None)
            return
        errors = sum(1 for f in found if f.severity == Severity.ERROR)
        warnings = sum(1 for f in found if f.severity == Severity.WARNING)
        if errors or warnings:
            self.counts[key] = (errors, warnings)
        else:
            self.counts.pop(key, None)

    def _pushes(self, path: Path) -> bool:
        """Whether this document's findings are pushed (pulled ones are not)."""
        if not self.pull:
            return True
        return not self.workspace_pull and path not in self.state.open

    def _send(self, doc: Doc, only_nonempty: bool = False) -> None:
        uri = uri_in(doc.bank.root, doc.rel)
        if self.pull and not self._pushes(doc.bank.root / doc.rel):
            self.diagnostics(doc)
            self.clear(uri)
            return
        found = self.state.findings(doc)
        self._count(uri, found)
        if not found and (only_nonempty or uri not in self.pushed):
            return
        bom = doc.bank.root / doc.rel in self.state.boms
        diags = [to_diagnostic(f, bom) for f in found]
        self._publish(types.PublishDiagnosticsParams(uri=uri, diagnostics=diags, version=self._versions(uri)))
        if diags:
            self.pushed.add(uri)
        else:
            self.pushed.discard(uri)

    def clear(self, uri: str) -> None:
        """Withdraw pushed diagnostics of ``uri`` (it is now pulled, or gone)."""
        if uri in self.pushed:
            self.pushed.discard(uri)
            self._publish(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    def gone(self, uri: str) -> None:
        """``uri`` is no document of a bank any more (deleted, moved): its findings are withdrawn,
        from the counts too, and a client that pulls is told to pull again."""
        self.clear(uri)
        self.counts.pop(uri, None)
        self._sent = True
        self._changed()

    def clear_all(self) -> None:
        for uri in list(self.pushed):
            self.clear(uri)

    def _report_counts(self) -> None:
        if self.on_counts is None:
            return
        concepts = sum(len(b.by_concept) for b in self.state.banks.values())
        errors = sum(e for e, _ in self.counts.values())
        warnings = sum(w for _, w in self.counts.values())
        self.on_counts(
            {"concepts": concepts, "errors": errors, "warnings": warnings, "banks": len(self.state.banks)}
        )
