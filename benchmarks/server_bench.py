"""The measurements of ``run.py``: ``ckp check`` and ``ckp route`` as processes, the language
server driven as VS Code drives it, and rumdl on the same bank."""

from __future__ import annotations

import asyncio
import gc
import random
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))  # tests.lsp_driver

from genbank import HUB
from measure import (
    drop_cache,
    expected_published,
    header_lines,
    items_of,
    median_run,
    percentile,
    start_server,
    stop_server,
    timed_requests,
    tool,
)

from tests.lsp_driver import Server

#: rumdl's rules about links: what it checks that is closest to CKP's relationship checks
RUMDL_LINK_RULES = "MD011,MD034,MD039,MD042,MD051,MD052,MD053,MD054,MD057,MD059,MD062"


@dataclass
class Bench:
    bank: Path
    n: int
    rng: random.Random
    env: dict[str, str]
    results: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    profile: Path | None = None  # profile the server with cProfile into this file
    spawn_only: bool = False  # measure the server's start only
    requests: int = 200  # requests of each kind

    def files(self) -> list[Path]:
        return sorted(self.bank.rglob("*.md"))

    def cli(self) -> None:
        check = [*tool("ckp"), "check", str(self.bank)]
        wall, rss = median_run(check, self.env, before=lambda: drop_cache(self.bank))
        self.results["check"] = wall
        self.results["check_rss"] = rss
        wall, rss = median_run(check, self.env)  # the first run fills the cache
        self.results["check_warm"] = wall
        self.results["check_warm_rss"] = rss
        queries = self.route_queries()
        walls = [median_run([*tool("ckp"), "route", str(self.bank), q], self.env)[0] for q in queries]
        self.results["route"] = statistics.median(walls)

    def route_queries(self) -> list[str]:
        from ckp_lsp.core.format.header import parse_header

        picks = [p for p in self.files() if p.name != "_index.md"][1 :: max(1, self.n // 3)][:3]
        out = []
        for p in picks:
            h = parse_header(p.read_text(encoding="utf-8"))
            codename = h.first("ANSWERS_WHEN").items[0].text if h and h.first("ANSWERS_WHEN") else "x"
            out.append(f"How do the {codename} retries and limits work?")
        return [*out, "kubernetes deploy webhook", "How do I bake sourdough bread?"]

    async def spawned(self, command: list[str], expected: set[str]) -> tuple[Server, float]:
        """A server started, and the seconds from its spawn to every diagnostic published."""
        session = await start_server(command, self.bank.parent, self.env)
        timeout = 60 + self.n / 500
        await session.wait(
            lambda: session.progress_end is not None and expected <= session.published.keys(), timeout
        )
        last = max([session.progress_end or 0.0, *(session.published[u] for u in expected)])
        return session, last - session.started

    async def server(self) -> None:
        from lsprotocol import types

        expected = expected_published(self.bank)
        command = [*tool("ckp-lsp"), "--stdio"]
        if self.profile is not None:
            # -P with --code: the working directory (this repository) must not come before the other tree
            where = ["-P"] if command[1:2] == ["-P"] else []
            command = [
                sys.executable,
                *where,
                "-m",
                "cProfile",
                "-o",
                str(self.profile),
                "-m",
                "ckp_lsp",
                "--stdio",
            ]
        # Warm: with the cache the previous start left (a start fills it first).
        drop_cache(self.bank)
        for _ in range(2):
            warm, self.results["spawn_warm"] = await self.spawned(command, expected)
            await stop_server(warm)
        drop_cache(self.bank)
        session, self.results["spawn"] = await self.spawned(command, expected)
        self.notes.append(f"{len(expected):,} documents with findings published at start")
        if self.spawn_only:
            self.results["rss"] = session.peak_rss()
            await stop_server(session)
            return

        files = [p for p in self.files() if p.name != "_index.md"]
        ghosts = [p for p in files if "ghost-" in p.read_text(encoding="utf-8").split("\n\n", 1)[0]]
        edited = ghosts[len(ghosts) // 2]
        # What this client holds (thousands of published diagnostics) is out of its collector's
        # sight: its pauses are not the server's latency.
        gc.freeze()
        uri, text = session.open(edited)
        await session.wait(lambda: (uri, 1) in session.versions, 30)
        lines = text.split("\n")
        version = 1

        # didChange -> publish: VALIDATED and ANSWERS_WHEN edited in turn
        heads = header_lines(text)
        v_line = next(i for i, h in enumerate(heads) if h.key == "VALIDATED")
        k_line = next(i for i, h in enumerate(heads) if h.key == "ANSWERS_WHEN")
        change_times = []
        for i in range(self.requests):
            version += 1
            line = v_line if i % 2 == 0 else k_line
            old = lines[line]
            if line == v_line:
                new = f"VALIDATED:    2025-{1 + i % 9:02d}"
            else:
                new = f"{lines[k_line].split(', extra')[0]}, extra{i}"
            lines[line] = new
            change_times.append(await session.change_line(uri, version, line, old, new))
        self.results["change_p50"] = percentile(change_times, 50)
        self.results["change_p99"] = percentile(change_times, 99)

        # completion: a concept prefix typed after a comma in SIMILAR_MID
        names = [p.stem for p in files]
        m_line = next(i for i, h in enumerate(heads) if h.key == "SIMILAR_MID")
        base = lines[m_line]
        completion_times = []
        for _ in range(self.requests):
            prefix = self.rng.choice(names)[: self.rng.randint(0, 5)]
            version += 1
            new = f"{base}, {prefix}"
            await session.change_line(uri, version, m_line, lines[m_line], new)
            lines[m_line] = new
            pos = types.Position(m_line, len(new))
            params = types.CompletionParams(text_document=types.TextDocumentIdentifier(uri=uri), position=pos)
            start = time.perf_counter()
            await session.client.text_document_completion_async(params)
            completion_times.append(time.perf_counter() - start)
        self.results["completion_p50"] = percentile(completion_times, 50)
        self.results["completion_p99"] = percentile(completion_times, 99)

        # hover, definition, references at positions in 20 opened documents
        opened = self.rng.sample(files, min(20, len(files)))
        hover_at: list[tuple[str, int, int]] = []
        entry_at: list[tuple[str, int, int]] = []
        for p in opened:
            u, t = session.open(p)
            for line_no, h in enumerate(header_lines(t)):
                hover_at.append((u, line_no, 2))
                for item, col in items_of(h):
                    where = (u, line_no, col + min(2, len(item) - 1))
                    hover_at.append(where)
                    if h.key in ("SIMILAR_HIGH", "SIMILAR_MID"):
                        entry_at.append(where)
                    if h.key == "CONCEPT":
                        entry_at.append(where)
        await asyncio.sleep(0.3)  # let the opened documents' diagnostics go out first

        def position(u: str, line: int, col: int) -> dict[str, Any]:
            return {
                "text_document": types.TextDocumentIdentifier(uri=u),
                "position": types.Position(line, col),
            }

        hovers = [self.rng.choice(hover_at) for _ in range(self.requests)]
        entries = [self.rng.choice(entry_at) for _ in range(self.requests)]
        c = session.client
        for name, calls in (
            (
                "hover",
                [lambda w=w: c.text_document_hover_async(types.HoverParams(**position(*w))) for w in hovers],
            ),
            (
                "definition",
                [
                    lambda w=w: c.text_document_definition_async(types.DefinitionParams(**position(*w)))
                    for w in entries
                ],
            ),
            (
                "references",
                [
                    lambda w=w: c.text_document_references_async(
                        types.ReferenceParams(
                            **position(*w), context=types.ReferenceContext(include_declaration=True)
                        )
                    )
                    for w in entries
                ],
            ),
        ):
            times = await timed_requests(calls)
            self.results[f"{name}_p50"] = percentile(times, 50)
            self.results[f"{name}_p99"] = percentile(times, 99)

        # rename the concept named by 1,000 files (the edit is not applied)
        hub = next(p for p in files if p.stem == HUB)
        hub_uri, hub_text = session.open(hub)
        col = header_lines(hub_text)[0].value_col + 2
        rename = types.RenameParams(**position(hub_uri, 0, col), new_name=f"{HUB}-renamed")
        rename_times, edited_docs = [], 0
        for _ in range(5):
            start = time.perf_counter()
            edit = await session.client.text_document_rename_async(rename)
            rename_times.append(time.perf_counter() - start)
            if edit is not None:
                edited_docs = len(edit.get("documentChanges") or edit.get("changes") or [])
        self.results["rename"] = statistics.median(rename_times)
        self.notes.append(f"rename of `{HUB}` edits {edited_docs:,} documents")
        self.results["rss"] = session.peak_rss()
        await stop_server(session)

    # --- rumdl --------------------------------------------------------------------------------

    def rumdl_cli(self) -> None:
        cmd = [
            *tool("rumdl"),
            "check",
            "--no-config",
            "--no-cache",
            "--respect-gitignore=false",
            "--enable",
            RUMDL_LINK_RULES,
            str(self.bank),
        ]
        wall, rss = median_run(cmd, self.env)
        self.results["rumdl_check"] = wall
        self.results["rumdl_check_rss"] = rss
        cached = [c for c in cmd if c != "--no-cache"]
        cache_dir = self.bank.parent / ".rumdl_cache"
        self.results["rumdl_check_warm"] = median_run(
            [*cached[:2], "--cache-dir", str(cache_dir), *cached[2:]], self.env
        )[0]

    async def rumdl_server(self) -> None:
        """rumdl's language server: spawn to its first diagnostics of an opened file, and didChange."""
        config = self.bank.parent / ".rumdl.toml"
        config.write_text(f"[global]\nenable = [{', '.join(repr(r) for r in RUMDL_LINK_RULES.split(','))}]\n")
        try:
            session = await start_server([*tool("rumdl"), "server", "--stdio"], self.bank.parent, self.env)
            files = [p for p in self.files() if p.name != "_index.md"]
            ghosts = [p for p in files if "ghost-" in p.read_text(encoding="utf-8").split("\n\n", 1)[0]]
            edited = ghosts[len(ghosts) // 2]
            uri, text = session.open(edited)
            await session.wait(lambda: uri in session.published, 120)
            self.results["rumdl_first"] = session.published[uri] - session.started
            lines = text.split("\n")
            v_line = next(i for i, h in enumerate(header_lines(text)) if h.key == "VALIDATED")
            times = []
            for i in range(self.requests):
                new = f"VALIDATED:    2025-{1 + i % 9:02d}"
                times.append(await session.change_line(uri, i + 2, v_line, lines[v_line], new))
                lines[v_line] = new
            self.results["rumdl_change_p50"] = percentile(times, 50)
            self.results["rumdl_change_p99"] = percentile(times, 99)
            self.results["rumdl_rss"] = session.peak_rss()
            await stop_server(session)
        except (TimeoutError, OSError) as exc:
            self.notes.append(f"rumdl's language server: {exc}")
        finally:
            config.unlink(missing_ok=True)


def ensure_rumdl() -> None:
    if shutil.which("rumdl", path=str(Path(sys.executable).parent)) or shutil.which("rumdl"):
        return
    print("Installing rumdl into this environment (pip install rumdl)…", file=sys.stderr)
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "rumdl"], check=True)
