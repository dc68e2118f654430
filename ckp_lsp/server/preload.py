"""Reading the banks while the server starts.

Importing the protocol libraries is a large part of the server's start. Meanwhile a child forked
at once reads the first message (``initialize``, which names the workspace folders), hands what
it read of stdin back, and reads the folders' banks and their findings on the other core. The
server adopts them when its own settings lead to the same banks, and reads the disk otherwise.
"""

from __future__ import annotations

import os
import threading
from typing import TYPE_CHECKING, Any

from ..core import other_core

# What the child and the adoption need is imported there: the fork comes first.
if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from ..core.bank import Bank
    from ..core.config import Config
    from ..core.findings import Finding
    from .watch import Snapshot

    #: a bank's documents with findings: bank-relative path -> findings
    Found = dict[str, list[Finding]]

_HEADER_END = b"\r\n\r\n"
#: files a part of a bank sent by the child
PART = 1000


class Preload:
    """A child that reads the first message of stdin, then the banks it names."""

    def __init__(self, child: other_core.Child) -> None:
        self._child: other_core.Child | None = child
        self._banks: dict[Path, tuple[Bank, Found]] = {}  # root -> what the child read
        self._thread: threading.Thread | None = None
        self.snapshot: Snapshot = {}  # the disk as the child found it, before reading

    @classmethod
    def start(cls, fd: int = 0) -> Preload | None:
        """The child started on input ``fd``; None when this process cannot fork (the server
        reads all of its input then)."""
        child = other_core.start(lambda: _read_first_then_banks(fd))
        return cls(child) if child is not None else None

    def consumed(self) -> bytes:
        """What the child read of stdin, for the server's reader to start with (waits for it).

        SystemExit when the child died before handing it back: that input is lost.
        """
        assert self._child is not None
        try:
            return bytes(self._child.next())
        except other_core.ChildFailed as exc:
            self._child = None
            raise SystemExit(
                f"ckp-lsp: the first message from the editor was lost ({exc}); start the server again"
            ) from exc

    def adopt(self) -> None:
        """Make the banks of the child's result, on a thread, while the server starts."""
        if self._child is not None and self._thread is None:
            self._thread = threading.Thread(target=self._adopt, name="ckp-preload", daemon=True)
            self._thread.start()

    def _adopt(self) -> None:
        # Each bank is built of its parts as they come, while the child reads the next ones; it
        # is taken once its findings came too.
        from ..core.bank import Bank
        from ..core.discovery import INDEX_NAME

        assert self._child is not None
        building: dict[Path, Bank] = {}
        try:
            self.snapshot = self._child.next()
            while (message := self._child.next())[0] != "end":
                kind, root, *rest = message
                if kind == "bank":
                    building[root] = Bank(root, rest[0])
                elif kind == "part":
                    building[root].add_part(rest[0])
                elif kind == "index":
                    bank = building[root]
                    bank.index_text, why = rest
                    if why is not None:
                        bank.unreadable[INDEX_NAME] = why
                elif kind == "found":
                    bank = building.pop(root)
                    self._banks[root] = (bank, rest[0])
        except other_core.ChildFailed:
            pass
        finally:
            self._child.close()

    def bank(self, root: Path, config: Config) -> tuple[Bank, Found] | None:
        """The bank at ``root`` and its findings as the child read them, if it read them with
        ``config``. Waits for the child: call it off the event loop."""
        self.adopt()
        if self._thread is not None:
            self._thread.join()
        read = self._banks.pop(root, None)
        return read if read is not None and read[0].config == config else None

    def cancel(self) -> None:
        """Forget what is left (the child, if its results were never asked for, is stopped)."""
        if self._thread is None and self._child is not None:
            self._child.close()
        self._child = None
        self._banks = {}
        self.snapshot = {}


def _read_first_then_banks(fd: int) -> Iterator[Any]:
    """In the child: what it read of ``fd``, then what ``read_banks`` sends."""
    consumed, body = read_first_message(fd)
    os.close(fd)  # the rest of the input is the server's
    yield consumed
    if body is not None:
        yield from read_banks(body)


def read_first_message(fd: int) -> tuple[bytes, bytes | None]:
    """What was read of ``fd`` up to the end of its first message, and that message's body
    (None when the input ended first or its header has no length)."""
    data = b""
    length: int | None = None
    start = 0
    while length is None or len(data) < start + length:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return data, None
        data += chunk
        if length is None and _HEADER_END in data:
            head, _, _ = data.partition(_HEADER_END)
            start = len(head) + len(_HEADER_END)
            for line in head.split(b"\r\n"):
                name, _, value = line.partition(b":")
                # The first one counts, as for the server's reader (``pygls_compat``).
                if length is None and name.strip().lower() == b"content-length" and value.strip().isdigit():
                    length = int(value)
            if length is None:
                return data, None
    return data, data[start : start + length]


def read_banks(body: bytes) -> Iterator[Any]:
    """In the child: the banks of the folders that ``initialize`` names, and their findings.

    Sends the disk as found before reading, then for each bank ("bank", root, config), its files
    in parts ("part", root, items), ("index", root, text, why unread) and ("found", root,
    findings); then ("end",).
    """
    import json

    from ..core.bank import Bank
    from ..core.discovery import INDEX_NAME
    from .state import WorkspaceState, settings_of
    from .watch import scan

    message = json.loads(body)
    if not isinstance(message, dict) or message.get("method") != "initialize":
        return
    params = message.get("params") or {}
    state = WorkspaceState()
    state.folders = [p.resolve() for p in folders_of(params)]
    state.settings = settings_of(params.get("initializationOptions"))
    roots = state.discover()
    yield scan(roots)
    for root in roots:
        config = state.config_for(root)
        bank = state.banks[root] = Bank(root, config)
        yield "bank", root, config
        for part in bank.read_parts(PART):
            yield "part", root, part
        yield "index", root, bank.index_text, bank.unreadable.get(INDEX_NAME)
        found = {doc.rel: f for doc in state.all_docs() if doc.bank is bank and (f := state.findings(doc))}
        yield "found", root, found
    yield ("end",)


def folders_of(params: dict[str, Any]) -> list[Path]:
    """The workspace folders of ``initialize``'s params (as JSON)."""
    from pathlib import Path

    uris = [f.get("uri") for f in params.get("workspaceFolders") or [] if isinstance(f, dict)]
    if not uris and params.get("rootUri"):
        uris = [params["rootUri"]]
    paths = [_path(u) for u in uris if isinstance(u, str)]
    if not paths and isinstance(params.get("rootPath"), str):
        paths = [Path(params["rootPath"])]
    return [p for p in paths if p is not None]


def _path(uri: str) -> Path | None:
    from pathlib import Path
    from urllib.parse import unquote, urlparse

    parsed = urlparse(uri)
    return Path(unquote(parsed.path)) if parsed.scheme == "file" else None
