"""Differential fuzzing: the real server against a from-scratch check of the texts the editor sees.

A hypothesis state machine opens, edits (whole texts and incremental changes), saves, closes,
renames and deletes files of a small generated bank, and writes files behind the editor's back.
After every step the diagnostics the editor shows (pushed, or pulled for open documents of a
pulling client) must equal those of ``load_bank`` + ``check_file``/``check_index`` over a folder
holding exactly the texts the editor sees, and every request must be answered without a failure.

One server per client flavour serves every example; each example gets a fresh bank, swapped in
as the workspace folder.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import re
import shutil
import threading
import time
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test
from lsprotocol import types

from ckp_lsp.core.bank.checks import check_file
from ckp_lsp.core.bank.index_checks import check_index
from ckp_lsp.core.format.index import update_index_text
from ckp_lsp.core.format.text import decode, utf16_len
from ckp_lsp.core.project.config import Config
from ckp_lsp.core.project.discovery import INDEX_NAME
from ckp_lsp.faces.banks import load_bank
from ckp_lsp.faces.clock import today

from .harness import HANG, Session, document_requests

T = TypeVar("T")
EXAMPLES = int(os.environ.get("CKP_FUZZ_EXAMPLES", "8"))
STEPS = int(os.environ.get("CKP_FUZZ_STEPS", "10"))
PHASES = tuple(Phase) if os.environ.get("CKP_FUZZ_SHRINK") else (Phase.explicit, Phase.reuse, Phase.generate)
#: how long the editor's view may take to match after a step (the neovim-like client waits for
#: the server's disk polling, once a second)
CONVERGE = 10.0

# --- generated banks ----------------------------------------------------------------------------

CONCEPTS = ("alpha", "beta", "gamma", "delta")
PATHS = ("alpha.md", "beta.md", "gamma.md", "notes/delta.md", "dup.md")
DATES = ("2025-01", "2025-05", "2025-06-15", "2026-02", "2025-13", "25-05", "2999-01")
KEYWORDS = ("shared", "alpha", "beta", "cache", "Cache", "token", "token rotation")
BODIES = (
    "Body.\n",
    "# Title\n\nText with é, 😀 and a line separator\u2028inside.\n",
    "",
    "Nul \x00 and form feed \x0c here.\n",
    "\n## Notes\n\n- one\n- two\n",
)

entry = st.builds(
    lambda c, d: c if d is None else f"{c}:{d}",
    st.sampled_from((*CONCEPTS, "nosuch", "Bad Entry")),
    st.one_of(st.none(), st.sampled_from(DATES)),
)
field = st.one_of(
    st.tuples(st.just("CONCEPT"), st.sampled_from((*CONCEPTS, "Bad Name"))),
    st.tuples(
        st.just("TLDR"),
        st.sampled_from(
            ("One sentence.", "Two. Sentences here.", "x" * 210, "", "Odd\u2028line.", "Feed\x0cline.")
        ),
    ),
    st.tuples(st.just("ANSWERS_WHEN"), st.lists(st.sampled_from(KEYWORDS), max_size=4).map(", ".join)),
    st.tuples(st.sampled_from(("SIMILAR_HIGH", "SIMILAR_MID")), st.lists(entry, max_size=4).map(", ".join)),
    st.tuples(st.just("CONFIDENCE"), st.sampled_from(("high", "Medium", "low", "sure"))),
    st.tuples(st.just("VALIDATED"), st.sampled_from(DATES)),
    st.tuples(st.just("TLRD"), st.just("typo")),
)


@st.composite
def knowledge_text(draw: st.DrawFn) -> str:
    """A knowledge file: a bare or front-matter header (or none), a body, LF or CRLF."""
    concept = draw(st.sampled_from(CONCEPTS))
    tldr = draw(st.sampled_from((f"About {concept}.", "Odd\u2028line.", "Feed\x0cline, next\x85one.")))
    base = [("CONCEPT", concept), ("TLDR", tldr), ("ANSWERS_WHEN", concept)]
    fields = base + draw(st.lists(field, max_size=4))
    if draw(st.booleans()):
        fields = draw(st.permutations(fields))
    form = draw(st.sampled_from(("bare", "bare", "frontmatter", "none")))
    if form == "bare":
        head = "".join(f"{k}: {v}\n" for k, v in fields) + "\n"
    elif form == "frontmatter":
        head = "---\n" + "".join(f"{k}: {v}\n" for k, v in fields) + "title: kept\n---\n"
    else:
        head = ""
    text = head + draw(st.sampled_from(BODIES))
    return text.replace("\n", "\r\n") if draw(st.integers(0, 4)) == 0 else text


def disk_bytes(text: str, mangle: int) -> bytes:
    """How a text is stored: UTF-8, with a BOM, or (rarely) with a byte that is not UTF-8."""
    data = text.encode()
    if mangle == 1:
        return b"\xef\xbb\xbf" + data
    if mangle == 2:
        return data + b"caf\xe9\n"
    return data


SNIPPETS = (
    ",",
    " alpha",
    ":2025-01",
    "\n",
    "\r\n",
    "CONCEPT: beta\n",
    "😀",
    "\u2028",
    "",
    ", beta:2026-02",
    "X",
)

# --- positions as LSP counts them ---------------------------------------------------------------

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")


def position_of(text: str, offset: int) -> types.Position:
    """The LSP position (UTF-16 column) of code point ``offset`` in ``text``."""
    start = 0
    line = 0
    for m in _LINE.finditer(text):
        body_end = m.start() + len(m.group().rstrip("\r\n"))
        if offset <= body_end:
            return types.Position(line=line, character=utf16_len(text[m.start() : offset]))
        start = m.end()
        line += 1
    return types.Position(line=line, character=utf16_len(text[start:offset]))


def boundaries(text: str) -> list[int]:
    """Offsets an editor position can name: never inside a CRLF."""
    return [
        i for i in range(len(text) + 1) if not (0 < i < len(text) and text[i - 1] == "\r" and text[i] == "\n")
    ]


def minimal_change(old: str, new: str) -> tuple[int, int, str]:
    """(start, end, replacement) turning ``old`` into ``new`` with the smallest range, as editors send."""
    a = 0
    while a < min(len(old), len(new)) and old[a] == new[a]:
        a += 1
    b = 0
    while b < min(len(old), len(new)) - a and old[-1 - b] == new[-1 - b]:
        b += 1
    start, end = a, len(old) - b
    if start > 0 and old[start - 1] == "\r" and start < len(old) and old[start] == "\n":
        start -= 1  # never split a CRLF
    if 0 < end < len(old) and old[end - 1] == "\r" and old[end] == "\n":
        end += 1
    replacement = new[start : len(new) - (len(old) - end)]
    return start, end, replacement


# --- the server, driven from hypothesis's thread ------------------------------------------------


class Driver:
    """One server (a flavour) on an event loop of its own thread, and a folder per example."""

    def __init__(self, flavour: str, root: Path) -> None:
        self.flavour = flavour
        self.root = root
        self.examples = itertools.count()
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name=f"fuzz-{flavour}", daemon=True)
        self.thread.start()
        self.folder = root / "start"
        self.folder.mkdir(parents=True)
        self.session: Session = self.run(Session.start(self.folder, flavour, apply_edits=False))
        self.run(self.session.wait_indexed())

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(HANG)

    def call(self, fn: Any, *args: Any) -> Any:
        async def go() -> Any:
            return fn(*args)

        return self.run(go())

    def new_folder(self) -> Path:
        """A fresh workspace folder, swapped in for the previous example's."""
        self.folder = self.root / f"example-{next(self.examples)}"
        (self.folder / "memory-bank").mkdir(parents=True)
        return self.folder

    def swap_folder(self, old: Path) -> None:
        event = types.WorkspaceFoldersChangeEvent(
            added=[types.WorkspaceFolder(uri=self.folder.as_uri(), name=self.folder.name)],
            removed=[types.WorkspaceFolder(uri=old.as_uri(), name=old.name)],
        )
        self.call(
            self.session.client.workspace_did_change_workspace_folders,
            types.DidChangeWorkspaceFoldersParams(event=event),
        )

    def close(self) -> int:
        code = self.run(self.session.stop())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(HANG)
        return code


def shown(diags: Any) -> list[tuple[str, tuple[int, int, int, int], str, int]]:
    return sorted(
        (
            str(d.code),
            (d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character),
            d.message,
            int(d.severity or 0),
        )
        for d in diags or []
    )


class EditorAndServer(RuleBasedStateMachine):
    """The editor's model of the bank (disk + open documents) against what the server shows."""

    driver: Driver  # set by the test

    def __init__(self) -> None:
        super().__init__()
        d = self.driver
        old = d.folder
        self.ws = d.new_folder()
        self.bank = self.ws / "memory-bank"
        self.open: dict[str, tuple[int, str]] = {}  # rel -> (version, text)
        self.swapped = False
        self._old = old
        self.reference_root = d.root / f"reference-{self.ws.name}"

    # --- helpers -------------------------------------------------------------------------------

    @property
    def client(self) -> Any:
        return self.driver.session.client

    def uri(self, rel: str) -> str:
        return (self.bank / rel).as_uri()

    def on_disk(self) -> list[str]:
        return sorted(p.relative_to(self.bank).as_posix() for p in self.bank.rglob("*.md") if p.is_file())

    def notify_disk(self, *changes: tuple[str, types.FileChangeType]) -> None:
        """What a client with file watchers tells the server; the other relies on the server's polling."""
        if self.driver.flavour != "vscode":
            return
        events = [types.FileEvent(uri=self.uri(rel), type=kind) for rel, kind in changes]
        self.driver.call(
            self.client.workspace_did_change_watched_files, types.DidChangeWatchedFilesParams(changes=events)
        )

    def send_open(self, rel: str, text: str) -> None:
        self.open[rel] = (1, text)
        self.driver.call(
            self.client.text_document_did_open,
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=self.uri(rel), language_id="markdown", version=1, text=text
                )
            ),
        )

    def send_close(self, rel: str) -> None:
        del self.open[rel]
        self.driver.call(
            self.client.text_document_did_close,
            types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=self.uri(rel))),
        )

    def send_changes(self, rel: str, changes: list[Any], text: str) -> None:
        version = self.open[rel][0] + 1
        self.open[rel] = (version, text)
        self.driver.call(
            self.client.text_document_did_change,
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=self.uri(rel), version=version),
                content_changes=changes,
            ),
        )

    # --- the from-scratch check -----------------------------------------------------------------

    def expected(self) -> dict[str, list[tuple[str, tuple[int, int, int, int], str, int]]]:
        """Findings of a bank loaded from a folder holding the texts the editor sees."""
        ref = self.reference_root / "memory-bank"
        shutil.rmtree(self.reference_root, ignore_errors=True)
        ref.mkdir(parents=True)
        for rel in self.on_disk():
            target = ref / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes((self.bank / rel).read_bytes())
        for rel, (_, text) in self.open.items():
            target = ref / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(text.encode("utf-8", "surrogatepass"))
        if (self.bank / INDEX_NAME).exists():
            shutil.copyfile(self.bank / INDEX_NAME, ref / INDEX_NAME)
        bank = load_bank(ref, Config().merged({"staleness": "validated"}), today=today())
        out = {}
        for rel in bank.files:
            out[self.uri(rel)] = shown(_as_diagnostics(check_file(bank, rel)))
        out[self.uri(INDEX_NAME)] = shown(_as_diagnostics(check_index(bank)))
        return {uri: diags for uri, diags in out.items() if diags}

    async def actual(
        self, uris: set[str]
    ) -> dict[str, list[tuple[str, tuple[int, int, int, int], str, int]]]:
        """What the editor shows: pulled for open documents of a pulling client, else the last pushed."""
        session = self.driver.session
        out = {}
        prefix = self.bank.as_uri() + "/"
        uris = uris | {u for u in session.client.diagnostics if u.startswith(prefix)}
        open_uris = {self.uri(rel) for rel in self.open}
        for uri in uris:
            if session.pulls and uri in open_uris:
                report = await session.request(
                    session.client.text_document_diagnostic_async(
                        types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
                    )
                )
                diags = shown(getattr(report, "items", []))
            else:
                diags = shown(session.client.diagnostics.get(uri, []))
            if diags:
                out[uri] = diags
        return out

    @invariant()
    def the_editor_shows_what_a_fresh_check_finds(self) -> None:
        if not self.swapped:
            return
        d = self.driver
        # Past the debounce of dependents, then a round trip: what was due has been sent.
        time.sleep(0.12)
        d.run(
            d.session.request(
                d.session.client.workspace_symbol_async(types.WorkspaceSymbolParams(query="zz"))
            )
        )
        deadline = time.monotonic() + CONVERGE
        while True:
            expected = self.expected()
            actual = d.run(self.actual(set(expected)))
            if actual == expected:
                break
            if time.monotonic() > deadline:
                missing = {u: [x for x in v if x not in actual.get(u, [])] for u, v in expected.items()}
                extra = {u: [x for x in v if x not in expected.get(u, [])] for u, v in actual.items()}
                raise AssertionError(
                    f"the editor shows something else than a fresh check finds:\n"
                    f"missing: { {u: v for u, v in missing.items() if v} }\nextra: { {u: v for u, v in extra.items() if v} }"
                )
            time.sleep(0.05)
        assert not d.session.failures(), d.session.failures()

    # --- the steps -----------------------------------------------------------------------------

    @initialize(
        files=st.dictionaries(
            st.sampled_from(PATHS), st.tuples(knowledge_text(), st.sampled_from((0, 0, 0, 1, 2))), min_size=1
        ),
        with_index=st.booleans(),
    )
    def a_fresh_bank(self, files: dict[str, tuple[str, int]], with_index: bool) -> None:
        for rel, (text, mangle) in files.items():
            path = self.bank / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(disk_bytes(text, mangle))
        if with_index:
            bank = load_bank(self.bank)
            (self.bank / INDEX_NAME).write_text(update_index_text(None, bank))
        self.driver.swap_folder(self._old)
        self.swapped = True

    @rule(rel=st.sampled_from(PATHS), text=knowledge_text())
    def open_a_file(self, rel: str, text: str) -> None:
        if rel in self.open:
            return
        path = self.bank / rel
        # A file on disk opens with its text (as the editor decodes it); a new one with a draft.
        self.send_open(rel, decode(path.read_bytes())[0] if path.is_file() else text)

    @rule(data=st.data(), text=knowledge_text())
    def replace_the_whole_text(self, data: st.DataObject, text: str) -> None:
        if not self.open:
            return
        rel = data.draw(st.sampled_from(sorted(self.open)))
        self.send_changes(rel, [types.TextDocumentContentChangeWholeDocument(text=text)], text)

    @rule(data=st.data(), text=knowledge_text())
    def type_the_difference(self, data: st.DataObject, text: str) -> None:
        """An incremental change: the smallest range that turns the text into another."""
        if not self.open:
            return
        rel = data.draw(st.sampled_from(sorted(self.open)))
        old = self.open[rel][1]
        start, end, replacement = minimal_change(old, text)
        change = types.TextDocumentContentChangePartial(
            range=types.Range(start=position_of(old, start), end=position_of(old, end)), text=replacement
        )
        self.send_changes(rel, [change], text)

    @rule(data=st.data())
    def small_edits(self, data: st.DataObject) -> None:
        """One to three incremental changes in one notification, each on the text the previous left."""
        if not self.open:
            return
        rel = data.draw(st.sampled_from(sorted(self.open)))
        text = self.open[rel][1]
        changes = []
        for _ in range(data.draw(st.integers(1, 3))):
            places = boundaries(text)
            start = data.draw(st.sampled_from(places))
            end = data.draw(st.sampled_from([p for p in places if start <= p <= start + 12]))
            snippet = data.draw(st.sampled_from(SNIPPETS))
            changes.append(
                types.TextDocumentContentChangePartial(
                    range=types.Range(start=position_of(text, start), end=position_of(text, end)),
                    text=snippet,
                )
            )
            text = text[:start] + snippet + text[end:]
        self.send_changes(rel, changes, text)

    @rule(data=st.data())
    def save(self, data: st.DataObject) -> None:
        if not self.open:
            return
        rel = data.draw(st.sampled_from(sorted(self.open)))
        path = self.bank / rel
        existed = path.exists()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(self.open[rel][1].encode("utf-8", "surrogatepass"))
        self.driver.call(
            self.client.text_document_did_save,
            types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=self.uri(rel))),
        )
        self.notify_disk((rel, types.FileChangeType.Changed if existed else types.FileChangeType.Created))

    @rule(data=st.data())
    def close(self, data: st.DataObject) -> None:
        if self.open:
            self.send_close(data.draw(st.sampled_from(sorted(self.open))))

    @rule(rel=st.sampled_from(PATHS), text=knowledge_text(), mangle=st.sampled_from((0, 1, 2)))
    def an_agent_writes_a_file(self, rel: str, text: str, mangle: int) -> None:
        path = self.bank / rel
        existed = path.exists()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(disk_bytes(text, mangle))
        self.notify_disk((rel, types.FileChangeType.Changed if existed else types.FileChangeType.Created))

    @rule(data=st.data())
    def delete_a_file(self, data: st.DataObject) -> None:
        files = self.on_disk()
        if not files:
            return
        rel = data.draw(st.sampled_from(files))
        (self.bank / rel).unlink()
        self.notify_disk((rel, types.FileChangeType.Deleted))

    @rule(data=st.data())
    def delete_an_open_file(self, data: st.DataObject) -> None:
        """The file of an open document is deleted on disk: the editor keeps its text."""
        files = [rel for rel in sorted(self.open) if (self.bank / rel).exists()]
        if not files:
            return
        rel = data.draw(st.sampled_from(files))
        (self.bank / rel).unlink()
        self.notify_disk((rel, types.FileChangeType.Deleted))

    @rule(data=st.data(), new=st.sampled_from(PATHS))
    def rename_a_file(self, data: st.DataObject, new: str) -> None:
        files = [f for f in self.on_disk() if f != INDEX_NAME]
        if not files or (self.bank / new).exists() or new in self.open:
            return
        old = data.draw(st.sampled_from(files))
        (self.bank / new).parent.mkdir(parents=True, exist_ok=True)
        (self.bank / old).rename(self.bank / new)
        self.notify_disk((old, types.FileChangeType.Deleted), (new, types.FileChangeType.Created))
        if old in self.open:  # the editor follows the file: closes it and opens it under its new name
            text = self.open[old][1]
            self.send_close(old)
            self.send_open(new, text)

    @rule(rel=st.sampled_from((*PATHS, INDEX_NAME)), line=st.integers(0, 8), col=st.integers(0, 30))
    def ask_everything(self, rel: str, line: int, col: int) -> None:
        """Every request an editor makes, at some position of some file; each must be answered."""
        session = self.driver.session
        client = session.client
        at = types.Position(line=line, character=col)
        requests = document_requests(client, self.uri(rel), at)
        requests.append(
            client.text_document_prepare_rename_async(
                types.PrepareRenameParams(
                    text_document=types.TextDocumentIdentifier(uri=self.uri(rel)), position=at
                )
            )
        )

        async def all_answered() -> None:
            for request in requests:
                await session.request(request)

        self.driver.run(all_answered())

    def teardown(self) -> None:
        shutil.rmtree(self.reference_root, ignore_errors=True)


def _as_diagnostics(findings: list[Any]) -> list[types.Diagnostic]:
    from ckp_lsp.server.convert import to_diagnostic

    return [to_diagnostic(f) for f in findings]


@pytest.mark.parametrize(
    "flavour, examples",
    [("vscode", EXAMPLES), ("neovim", max(EXAMPLES // 2, 1))],
)
def test_the_server_agrees_with_a_fresh_check_after_every_step(
    tmp_path: Path, flavour: str, examples: int
) -> None:
    driver = Driver(flavour, tmp_path)
    try:
        machine = type(f"EditorAndServer_{flavour}", (EditorAndServer,), {"driver": driver})
        run_state_machine_as_test(
            machine,
            settings=settings(
                max_examples=examples,
                stateful_step_count=STEPS,
                deadline=None,
                database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
                # Shrinking a failure takes minutes of server round trips; the failing steps are
                # printed either way (CKP_FUZZ_SHRINK=1 shrinks them).
                phases=PHASES,
            ),
        )
    finally:
        code = driver.close()
    assert code == 0
    assert "Traceback" not in driver.session.stderr, driver.session.stderr
