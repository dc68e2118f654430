"""Soak: the language server under a long mix of requests and edits on a generated bank.

``python benchmarks/soak.py [--seconds 600] [--requests 100000] [--files 1000] [--sample 5]``

Drives the server as VS Code does (pushed diagnostics) for ``--seconds``, spreading
``--requests`` operations evenly over that time: requests (hover, completion, definition,
references, symbols, code actions, lenses, links, folding, workspace symbols, prepare-rename) and
edits (a VALIDATED date that turns other files' entries stale, a keyword, a line typed in the
body and taken out again, documents opened and closed). The server's resident memory (VmRSS from
/proc) is sampled every ``--sample`` seconds.

Prints the memory growth (the last fifth of the run against the first fifth after warm-up) and
the slowest request; exits 1 when the growth reaches 10 % or the slowest request 100 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import random
import shlex
import statistics
import sys
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))  # tests.lsp_driver

from genbank import HUB, prepare
from measure import (
    answers_as_json,
    environment,
    header_lines,
    items_of,
    percentile,
    start_server,
    stop_server,
    tool,
)

from tests.lsp_driver import Server

MAX_GROWTH = 0.10
MAX_REQUEST_MS = 100.0
OPEN_DOCS = 12
MONTHS = ("2025-08", "2025-09", "2025-10", "2025-11")


@dataclass
class Doc:
    """An open document as the editor holds it, and where its header's tokens are."""

    uri: str
    lines: list[str]
    version: int = 1
    spots: list[tuple[int, int]] = field(default_factory=list)  # (line, col) of entries and keywords
    typed: bool = False  # a line typed at the end of the body, taken out by the next body edit

    @classmethod
    def of(cls, uri: str, text: str) -> Doc:
        doc = cls(uri, text.split("\n"))
        for n, h in enumerate(header_lines(text)):
            doc.spots += [(n, col + 1) for _, col in items_of(h)]
        return doc

    def line_of(self, key: str) -> int | None:
        return next((n for n, line in enumerate(self.lines) if line.startswith(key + ":")), None)


@dataclass
class Soak:
    bank: Path
    seconds: float
    operations: int
    sample: float
    server: list[str] = field(default_factory=lambda: tool("ckp-lsp"))
    rng: random.Random = field(default_factory=lambda: random.Random(7))
    session: Server | None = None
    files: list[Path] = field(default_factory=list)
    docs: dict[Path, Doc] = field(default_factory=dict)
    latencies: list[tuple[float, str]] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)
    rss: list[tuple[float, float]] = field(default_factory=list)  # (seconds into the run, MB)
    last: str = ""  # the operation before, for SOAK_TRACE

    # --- the editor's side ----------------------------------------------------------------------

    def open(self, path: Path) -> None:
        assert self.session is not None
        uri, text = self.session.open(path)
        self.docs[path] = Doc.of(uri, text)

    def close(self, path: Path) -> None:
        from lsprotocol import types

        assert self.session is not None
        doc = self.docs.pop(path)
        self.session.client.text_document_did_close(
            types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=doc.uri))
        )

    def replace_line(self, doc: Doc, n: int, new: str) -> None:
        from lsprotocol import types

        assert self.session is not None
        old = doc.lines[n]
        doc.lines[n] = new
        doc.version += 1
        self.session.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=doc.uri, version=doc.version),
                content_changes=[
                    types.TextDocumentContentChangePartial(
                        range=types.Range(
                            start=types.Position(line=n, character=0),
                            end=types.Position(line=n, character=len(old)),
                        ),
                        text=new,
                    )
                ],
            )
        )

    # --- one operation ------------------------------------------------------------------------

    def edit(self) -> str:
        doc = self.docs[self.rng.choice(list(self.docs))]
        kind = self.rng.random()
        if kind < 0.5 and (n := doc.line_of("VALIDATED")) is not None:
            self.replace_line(doc, n, f"VALIDATED:    {self.rng.choice(MONTHS)}")
            return "edit VALIDATED"
        if kind < 0.8 and (n := doc.line_of("ANSWERS_WHEN")) is not None:
            words = [w.strip() for w in doc.lines[n].split(":", 1)[1].split(",") if w.strip()]
            if len(words) > 1 and self.rng.random() < 0.5:
                words.pop()
            else:
                words.append(self.rng.choice(("cache", "retries", "billing", "audit")))
            self.replace_line(doc, n, "ANSWERS_WHEN: " + ", ".join(words))
            return "edit keyword"
        last = len(doc.lines) - 1
        self.replace_line(doc, last, "" if doc.typed else "Typed while soaking.")
        doc.typed = not doc.typed
        return "edit body"

    def reopen(self) -> str:
        if len(self.docs) >= OPEN_DOCS:
            self.close(self.rng.choice(list(self.docs)))
        path = self.rng.choice(self.files)
        if path not in self.docs:
            self.open(path)
        return "open/close"

    def request(self) -> tuple[str, Callable[[], Awaitable[Any]]]:
        from lsprotocol import types

        assert self.session is not None
        client = self.session.client
        doc = self.docs[self.rng.choice(list(self.docs))]
        ident = types.TextDocumentIdentifier(uri=doc.uri)
        line, col = self.rng.choice(doc.spots) if doc.spots else (0, 0)
        at = types.Position(line=line, character=col)
        whole = types.Range(
            start=types.Position(line=0, character=0), end=types.Position(line=8, character=0)
        )
        choices: list[tuple[float, str, Callable[[], Awaitable[Any]]]] = [
            (
                20,
                "hover",
                lambda: client.text_document_hover_async(types.HoverParams(text_document=ident, position=at)),
            ),
            (
                12,
                "completion",
                lambda: client.text_document_completion_async(
                    types.CompletionParams(text_document=ident, position=at)
                ),
            ),
            (
                12,
                "definition",
                lambda: client.text_document_definition_async(
                    types.DefinitionParams(text_document=ident, position=at)
                ),
            ),
            (
                6,
                "references",
                lambda: client.text_document_references_async(
                    types.ReferenceParams(
                        text_document=ident,
                        position=at,
                        context=types.ReferenceContext(include_declaration=True),
                    )
                ),
            ),
            (
                6,
                "documentSymbol",
                lambda: client.text_document_document_symbol_async(
                    types.DocumentSymbolParams(text_document=ident)
                ),
            ),
            (
                8,
                "codeAction",
                lambda: client.text_document_code_action_async(
                    types.CodeActionParams(
                        text_document=ident, range=whole, context=types.CodeActionContext(diagnostics=[])
                    )
                ),
            ),
            (
                6,
                "codeLens",
                lambda: client.text_document_code_lens_async(types.CodeLensParams(text_document=ident)),
            ),
            (
                6,
                "documentLink",
                lambda: client.text_document_document_link_async(
                    types.DocumentLinkParams(text_document=ident)
                ),
            ),
            (
                6,
                "foldingRange",
                lambda: client.text_document_folding_range_async(
                    types.FoldingRangeParams(text_document=ident)
                ),
            ),
            (
                4,
                "workspaceSymbol",
                lambda: client.workspace_symbol_async(
                    types.WorkspaceSymbolParams(query=self.rng.choice(("core", "ledger", "plat", "x")))
                ),
            ),
            (
                4,
                "prepareRename",
                lambda: client.text_document_prepare_rename_async(
                    types.PrepareRenameParams(text_document=ident, position=at)
                ),
            ),
        ]
        _, name, call = self.rng.choices(choices, weights=[c[0] for c in choices])[0]
        return name, call

    async def one(self) -> None:
        roll = self.rng.random()
        if roll < 0.17:
            self.last = self.edit()
            self.counts[self.last] += 1
            return
        if roll < 0.20:
            self.last = self.reopen()
            self.counts[self.last] += 1
            return
        name, call = self.request()
        start = time.perf_counter()
        await asyncio.wait_for(call(), 30)
        took = time.perf_counter() - start
        self.latencies.append((took, name))
        self.counts[name] += 1
        if os.environ.get("SOAK_TRACE") and took > 0.04:
            print(f"    slow: {name} {1000 * took:.0f} ms after {self.last}", flush=True)
        self.last = name

    # --- the run --------------------------------------------------------------------------------

    def rss_mb(self) -> float:
        assert self.session is not None
        for line in Path(f"/proc/{self.session.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    async def sampler(self, start: float) -> None:
        while True:
            self.rss.append((time.perf_counter() - start, self.rss_mb()))
            await asyncio.sleep(self.sample)

    async def run(self) -> int:
        self.files = sorted(p for p in self.bank.rglob("*.md") if p.name != "_index.md")
        self.session = await start_server(self.server, self.bank.parent, environment())
        # Time the server, not this Python client: answers stay JSON (an editor parses them natively,
        # building a thousand Location objects here would take longer than the server does) and
        # this process's own garbage collector stays out of the measured round trips.
        answers_as_json(self.session.client, None)
        gc.disable()
        await self.session.wait(
            lambda: self.session is not None and self.session.progress_end is not None, 120
        )
        hub = next(p for p in self.files if p.stem == HUB)
        self.open(hub)
        while len(self.docs) < OPEN_DOCS:
            self.reopen()
        warmup = min(500, self.operations // 10)
        for _ in range(warmup):
            await self.one()
        self.latencies.clear()
        self.counts.clear()
        start = time.perf_counter()
        sampler = asyncio.ensure_future(self.sampler(start))
        interval = self.seconds / self.operations
        for i in range(self.operations):
            due = start + i * interval
            wait = due - time.perf_counter()
            if wait > 0:
                await asyncio.sleep(wait)
            await self.one()
            if i and i % max(1, self.operations // 10) == 0:
                print(
                    f"  {i:>7,} operations, {time.perf_counter() - start:6.1f} s, RSS {self.rss_mb():6.1f} MB",
                    flush=True,
                )
        elapsed = time.perf_counter() - start
        self.rss.append((elapsed, self.rss_mb()))
        sampler.cancel()
        gc.enable()
        await stop_server(self.session)
        return self.report(elapsed)

    def report(self, elapsed: float) -> int:
        fifth = max(1, len(self.rss) // 5)
        first = statistics.mean(mb for _, mb in self.rss[:fifth])
        last = statistics.mean(mb for _, mb in self.rss[-fifth:])
        growth = (last - first) / first
        times = [t for t, _ in self.latencies]
        slowest, slowest_name = max(self.latencies)
        requests = len(self.latencies)
        edits = sum(n for k, n in self.counts.items() if k.startswith(("edit", "open")))
        print()
        print(
            f"Soak of {len(self.files):,} files: {requests + edits:,} operations in {elapsed:.0f} s "
            f"({requests:,} requests, {edits:,} edits and open/close)"
        )
        print("  " + ", ".join(f"{k} {n:,}" for k, n in sorted(self.counts.items(), key=lambda kv: -kv[1])))
        print(
            f"Requests: p50 {1000 * percentile(times, 50):.1f} ms, p99 {1000 * percentile(times, 99):.1f} ms, "
            f"slowest {1000 * slowest:.1f} ms ({slowest_name})"
        )
        print(
            f"Memory (VmRSS, {len(self.rss)} samples every {self.sample:g} s): first fifth {first:.1f} MB, "
            f"last fifth {last:.1f} MB, peak {max(mb for _, mb in self.rss):.1f} MB: growth {100 * growth:+.1f} %"
        )
        ok_memory = growth < MAX_GROWTH
        ok_latency = 1000 * slowest < MAX_REQUEST_MS
        print(f"{'PASS' if ok_memory else 'FAIL'}: memory growth under {100 * MAX_GROWTH:.0f} %")
        print(f"{'PASS' if ok_latency else 'FAIL'}: slowest request under {MAX_REQUEST_MS:.0f} ms")
        return 0 if ok_memory and ok_latency else 1


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=600, help="how long the soak lasts (default 600)")
    p.add_argument(
        "--requests", type=int, default=100_000, help="operations, requests and edits (default 100,000)"
    )
    p.add_argument("--files", type=int, default=1000, help="files of the generated bank (default 1,000)")
    p.add_argument("--sample", type=float, default=5, help="seconds between memory samples (default 5)")
    p.add_argument("--bank", type=Path, help="an existing memory-bank instead of a generated one")
    p.add_argument("--server", help="the command that starts the server (default: ckp-lsp)")
    args = p.parse_args(argv)
    if not Path("/proc/self/status").exists():
        print("soak: needs /proc (Linux) to read the server's memory", file=sys.stderr)
        return 2
    bank = args.bank.resolve() if args.bank else prepare(args.files)
    print(
        f"Soaking ckp-lsp (pid of this driver {os.getpid()}) on {bank} for {args.seconds:g} s, "
        f"{args.requests:,} operations",
        flush=True,
    )
    soak = Soak(bank, args.seconds, args.requests, args.sample)
    if args.server:
        soak.server = shlex.split(args.server)
    return asyncio.run(soak.run())


if __name__ == "__main__":
    sys.exit(main())
