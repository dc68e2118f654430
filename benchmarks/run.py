"""Speed and scale of ``ckp`` and ``ckp-lsp`` on generated banks, as a Markdown table.

``python benchmarks/run.py [--size 10000 | --sizes 100,1000,10000,100000] [--compare]``

For each size: ``ckp check`` and ``ckp route`` wall time (subprocesses, median of warm runs);
the language server driven over stdio as a VS Code-like push client: spawn to every diagnostic
published, didChange to publish, completion, hover, definition and references latencies (p50 and
p99 of 200 each), renaming a concept named by 1,000 files, and the server's peak RSS.
``--compare`` runs rumdl (a Rust Markdown linter and language server, restricted to its link
rules) on the same bank and prints the ratios. Banks are generated once and cached under
``benchmarks/.banks`` (see ``genbank.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as _dt
import gc
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from genbank import BODIES, HUB, prepare

#: targets at 10,000 files on a 2-core machine (seconds, or MB for memory)
TARGETS_10K = {
    "check": 1.0,
    "check_warm": 0.4,
    "spawn": 1.5,
    "spawn_warm": 1.0,
    "change_p99": 0.005,
    "completion_p99": 0.005,
    "hover_p99": 0.002,
    "definition_p99": 0.002,
    "rss": 120.0,
}
#: rumdl's rules about links: what it checks that is closest to CKP's relationship checks
RUMDL_LINK_RULES = "MD011,MD034,MD039,MD042,MD051,MD052,MD053,MD054,MD057,MD059,MD062"
REQUESTS = 200
RUNS = 3
_HEADER_KEY = re.compile(r"^([A-Z][A-Z0-9_]*):(\s*)(.*)$")


# --- helpers ----------------------------------------------------------------------------------


def environment() -> dict[str, str]:
    """The environment of every process measured: bytecode cached, as for an installed package."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / "ckp-bench-pycache")
    if CODE is not None:
        env["PYTHONPATH"] = str(CODE)
    return env


#: another source tree of ckp_lsp to measure instead of the installed one (``--code``)
CODE: Path | None = None


#: the requests whose answers the benchmark client reads as JSON only (see ``Session.start``)
AS_JSON = frozenset(
    (
        "textDocument/completion",
        "textDocument/hover",
        "textDocument/definition",
        "textDocument/references",
        "textDocument/rename",
    )
)


class _AsJson:
    """The result type of a request answered as JSON (see ``answers_as_json``)."""


def answers_as_json(client: Any, methods: frozenset[str] | None = AS_JSON) -> None:
    """Leave the answers to the timed requests (``methods``; None: every request) as the JSON
    they are read as.

    An editor reads an answer as JSON. This client would also build typed objects of it (a
    millisecond for a list of 25 completion items), which is no part of the server's latency.
    """
    from pygls.protocol.json_rpc import JsonRPCResponseMessage

    protocol = client.protocol
    typed, structure = protocol.get_result_type, protocol.structure_message

    def result_type(method: str) -> Any:
        return _AsJson if methods is None or method in methods else typed(method)

    def structured(data: dict[str, Any]) -> Any:
        if "result" in data and protocol._result_types.get(data.get("id")) is _AsJson:
            del protocol._result_types[data["id"]]
            return JsonRPCResponseMessage(id=data["id"], jsonrpc=data["jsonrpc"], result=data["result"])
        return structure(data)

    protocol.get_result_type, protocol.structure_message = result_type, structured


def tool(name: str) -> list[str]:
    """A console script of this virtual environment (or of PATH)."""
    if CODE is not None and name in ("ckp", "ckp-lsp"):
        # -P: the working directory (this repository) must not come before the other tree
        return [sys.executable, "-P", "-m", "ckp_lsp.cli.main" if name == "ckp" else "ckp_lsp"]
    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    if found:
        return [found]
    if name == "ckp":
        return [sys.executable, "-m", "ckp_lsp.cli.main"]
    raise SystemExit(f"{name} is not installed")


def percentile(values: Sequence[float], p: float) -> float:
    """The ``p``-th percentile (nearest rank) of ``values``."""
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(p / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


def timed_run(cmd: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    """Wall seconds, peak RSS (MB) and exit code of one run of ``cmd``."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_maxrss / 1024, proc.returncode


def median_run(
    cmd: list[str], env: dict[str, str], runs: int = RUNS, before: Callable[[], None] | None = None
) -> tuple[float, float]:
    """Median wall seconds of ``runs`` warm runs (after one warm-up), and the peak RSS in MB;
    ``before`` is called before each run (untimed)."""
    if before is not None:
        before()
    timed_run(cmd, env)
    results = []
    for _ in range(runs):
        if before is not None:
            before()
        results.append(timed_run(cmd, env))
    return statistics.median(r[0] for r in results), max(r[1] for r in results)


def drop_cache(bank: Path) -> None:
    """Delete the bank's ``.ckp-cache``: the next ``ckp check`` or server start is a cold one."""
    shutil.rmtree(bank / ".ckp-cache", ignore_errors=True)


def machine() -> dict[str, str]:
    model = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "cpu": model,
        "cores": str(os.cpu_count()),
        "python": platform.python_version(),
        "date": _dt.datetime.now().strftime("%Y-%m-%d %H:%M"),
        "load": " ".join(f"{x:.2f}" for x in os.getloadavg()),
    }


def expected_published(bank: Path) -> set[str]:
    """URIs of every document with findings, as ``ckp check`` finds them (in this process)."""
    from ckp_lsp.core.bank import Bank
    from ckp_lsp.core.checks import check_file
    from ckp_lsp.core.config import config_for_bank
    from ckp_lsp.core.index_checks import check_index
    from ckp_lsp.faces.clock import today

    loaded = Bank.load(bank, config_for_bank(bank), today=today())
    out = {(bank / rel).as_uri() for rel in loaded.files if check_file(loaded, rel)}
    if check_index(loaded):
        out.add(loaded.index_path.as_uri())
    return out


@dataclass
class HeaderLine:
    key: str
    value: str
    value_col: int


def header_lines(text: str) -> list[HeaderLine]:
    out = []
    for line in text.split("\n"):
        m = _HEADER_KEY.match(line)
        if not m:
            break
        out.append(HeaderLine(m.group(1), m.group(3), len(m.group(1)) + 1 + len(m.group(2))))
    return out


def items_of(h: HeaderLine) -> list[tuple[str, int]]:
    """Comma-separated items of a header value with their start columns."""
    out, col = [], h.value_col
    for part in h.value.split(","):
        text = part.strip()
        if text:
            out.append((text, col + len(part) - len(part.lstrip())))
        col += len(part) + 1
    return out


# --- the language-server client ---------------------------------------------------------------


@dataclass
class Session:
    """A language server under test, driven as VS Code drives one (pushed diagnostics)."""

    command: list[str]
    root: Path
    env: dict[str, str]
    settings: dict[str, Any] = field(default_factory=dict)
    published: dict[str, float] = field(default_factory=dict)  # uri -> first non-empty publish
    versions: dict[tuple[str, int | None], float] = field(default_factory=dict)
    progress_end: float | None = None
    client: Any = None
    started: float = 0.0
    drain: asyncio.Future[None] | None = None
    stderr: Any = None  # where the server's stderr goes (discarded by default)

    async def start(self) -> None:
        from lsprotocol import types
        from pygls.lsp.client import LanguageClient
        from pytest_lsp import client_capabilities

        client = LanguageClient("ckp-bench", "1")
        self.client = client
        answers_as_json(client)

        @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def publish(params: types.PublishDiagnosticsParams) -> None:
            now = time.perf_counter()
            self.versions[(params.uri, params.version)] = now
            if params.diagnostics and params.uri not in self.published:
                self.published[params.uri] = now

        @client.feature(types.WINDOW_WORK_DONE_PROGRESS_CREATE)
        def create_progress(params: types.WorkDoneProgressCreateParams) -> None:
            return None

        @client.feature(types.PROGRESS)
        def progress(params: types.ProgressParams) -> None:
            value = params.value
            kind = value.get("kind") if isinstance(value, dict) else getattr(value, "kind", None)
            if kind == "end" and self.progress_end is None:
                self.progress_end = time.perf_counter()

        @client.feature(types.CLIENT_REGISTER_CAPABILITY)
        def register(params: types.RegistrationParams) -> None:
            return None

        @client.feature(types.WORKSPACE_CONFIGURATION)
        def configuration(params: types.ConfigurationParams) -> list[Any]:
            return [self.settings for _ in params.items]

        for method in (types.WINDOW_LOG_MESSAGE, types.WINDOW_SHOW_MESSAGE, "ckp/status"):
            client.feature(method)(lambda *args: None)

        caps = client_capabilities("visual-studio-code")
        caps.text_document.diagnostic = None  # a push client
        params = types.InitializeParams(
            capabilities=caps,
            process_id=os.getpid(),
            root_uri=self.root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=self.root.as_uri(), name=self.root.name)],
        )
        # As an editor does, ``initialize`` is sent as soon as the server is started: made and
        # encoded once beforehand (the first encoding of the capabilities takes this client a
        # tenth of a second).
        client.protocol._converter.unstructure(params)
        self.started = time.perf_counter()
        await client.start_io(*self.command, env=self.env)
        self.drain = asyncio.ensure_future(_drain(client._server.stderr, self.stderr))
        await client.initialize_async(params)
        client.initialized(types.InitializedParams())

    @property
    def pid(self) -> int:
        return int(self.client._server.pid)

    def peak_rss(self) -> float:
        """VmHWM of the server process, in MB."""
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    async def wait(self, pred: Callable[[], bool], timeout: float) -> None:
        end = time.perf_counter() + timeout
        while not pred():
            if time.perf_counter() > end:
                raise TimeoutError("the server did not answer in time")
            await asyncio.sleep(0.001)

    def open(self, path: Path, version: int = 1) -> tuple[str, str]:
        from lsprotocol import types

        text = path.read_text(encoding="utf-8")
        uri = path.as_uri()
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id="markdown", version=version, text=text
                )
            )
        )
        return uri, text

    async def change_line(self, uri: str, version: int, line: int, old: str, new: str) -> float:
        """Replace one line; the seconds until the server published diagnostics of the new version."""
        from lsprotocol import types

        rng = types.Range(types.Position(line, 0), types.Position(line, len(old)))
        start = time.perf_counter()
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangePartial(range=rng, text=new)],
            )
        )
        await self.wait(lambda: (uri, version) in self.versions, 30)
        return self.versions[(uri, version)] - start

    async def stop(self) -> None:
        try:
            await asyncio.wait_for(self.client.shutdown_async(None), 10)
            self.client.exit(None)
            await asyncio.wait_for(self.client._server.wait(), 10)
        except (Exception, asyncio.TimeoutError):
            self.client._server.kill()
        await self.client.stop()


async def _drain(stream: Any, copy: Any = None) -> None:
    while stream is not None and (data := await stream.read(65536)):
        if copy is not None:
            copy.write(data)


async def timed_requests(calls: list[Callable[[], Any]]) -> list[float]:
    out = []
    for call in calls:
        start = time.perf_counter()
        await call()
        out.append(time.perf_counter() - start)
    return out


# --- the measurements -------------------------------------------------------------------------


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
        from ckp_lsp.core.header import parse_header

        picks = [p for p in self.files() if p.name != "_index.md"][1 :: max(1, self.n // 3)][:3]
        out = []
        for p in picks:
            h = parse_header(p.read_text(encoding="utf-8"))
            codename = h.first("ANSWERS_WHEN").items[0].text if h and h.first("ANSWERS_WHEN") else "x"
            out.append(f"How do the {codename} retries and limits work?")
        return [*out, "kubernetes deploy webhook", "How do I bake sourdough bread?"]

    async def spawned(self, command: list[str], expected: set[str]) -> tuple[Session, float]:
        """A server started, and the seconds from its spawn to every diagnostic published."""
        session = Session(command, self.bank.parent, self.env)
        await session.start()
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
            command = [sys.executable, "-m", "cProfile", "-o", str(self.profile), "-m", "ckp_lsp", "--stdio"]
        # Warm: with the cache the previous start left (a start fills it first).
        drop_cache(self.bank)
        for _ in range(2):
            warm, self.results["spawn_warm"] = await self.spawned(command, expected)
            await warm.stop()
        drop_cache(self.bank)
        session, self.results["spawn"] = await self.spawned(command, expected)
        self.notes.append(f"{len(expected):,} documents with findings published at start")
        if self.spawn_only:
            self.results["rss"] = session.peak_rss()
            await session.stop()
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
        for i in range(REQUESTS):
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
        for _ in range(REQUESTS):
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

        hovers = [self.rng.choice(hover_at) for _ in range(REQUESTS)]
        entries = [self.rng.choice(entry_at) for _ in range(REQUESTS)]
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
        await session.stop()

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
        session = Session([*tool("rumdl"), "server", "--stdio"], self.bank.parent, self.env)
        try:
            await session.start()
            files = [p for p in self.files() if p.name != "_index.md"]
            ghosts = [p for p in files if "ghost-" in p.read_text(encoding="utf-8").split("\n\n", 1)[0]]
            edited = ghosts[len(ghosts) // 2]
            uri, text = session.open(edited)
            await session.wait(lambda: uri in session.published, 120)
            self.results["rumdl_first"] = session.published[uri] - session.started
            lines = text.split("\n")
            v_line = next(i for i, h in enumerate(header_lines(text)) if h.key == "VALIDATED")
            times = []
            for i in range(REQUESTS):
                new = f"VALIDATED:    2025-{1 + i % 9:02d}"
                times.append(await session.change_line(uri, i + 2, v_line, lines[v_line], new))
                lines[v_line] = new
            self.results["rumdl_change_p50"] = percentile(times, 50)
            self.results["rumdl_change_p99"] = percentile(times, 99)
            self.results["rumdl_rss"] = session.peak_rss()
            await session.stop()
        except (TimeoutError, OSError) as exc:
            self.notes.append(f"rumdl's language server: {exc}")
        finally:
            config.unlink(missing_ok=True)


def ensure_rumdl() -> None:
    if shutil.which("rumdl", path=str(Path(sys.executable).parent)) or shutil.which("rumdl"):
        return
    print("Installing rumdl into this environment (pip install rumdl)…", file=sys.stderr)
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "rumdl"], check=True)


# --- the report -------------------------------------------------------------------------------

ROWS = (
    ("check", "`ckp check`, cold: no cache (wall, median of 3)", "s"),
    ("check_rss", "`ckp check` peak RSS, cold", "MB"),
    ("check_warm", "`ckp check`, warm: nothing changed since the last (wall, median of 3)", "s"),
    ("check_warm_rss", "`ckp check` peak RSS, warm", "MB"),
    ("spawn", "server spawn → all diagnostics published, cold: no cache", "s"),
    ("spawn_warm", "server spawn → all diagnostics published, warm", "s"),
    ("change_p50", "didChange → publish p50", "ms"),
    ("change_p99", "didChange → publish p99", "ms"),
    ("completion_p50", "completion p50", "ms"),
    ("completion_p99", "completion p99", "ms"),
    ("hover_p50", "hover p50", "ms"),
    ("hover_p99", "hover p99", "ms"),
    ("definition_p50", "definition p50", "ms"),
    ("definition_p99", "definition p99", "ms"),
    ("references_p50", "references p50", "ms"),
    ("references_p99", "references p99", "ms"),
    ("rename", "rename a concept named by 1,000 files", "ms"),
    ("rss", "server peak RSS", "MB"),
    ("route", "`ckp route` (wall, median)", "s"),
)
#: rumdl's figures: (key, the ckp figure it compares with or "" when none does, label, unit)
RUMDL_ROWS = (
    ("rumdl_check", "check", "rumdl check (link rules, no cache, wall, median of 3)", "s"),
    ("rumdl_check_rss", "check_rss", "rumdl check peak RSS", "MB"),
    ("rumdl_check_warm", "check_warm", "rumdl check, its cache warm (wall, median of 3)", "s"),
    ("rumdl_first", "", "rumdl server: spawn → an opened file's diagnostics (it indexes nothing)", "s"),
    ("rumdl_change_p50", "change_p50", "rumdl server: didChange → publish p50", "ms"),
    ("rumdl_change_p99", "change_p99", "rumdl server: didChange → publish p99", "ms"),
    ("rumdl_rss", "rss", "rumdl server peak RSS", "MB"),
)


def fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "–"
    if unit == "ms":
        return f"{value * 1000:.2f} ms" if value < 0.1 else f"{value * 1000:.0f} ms"
    if unit == "MB":
        return f"{value:.0f} MB"
    return f"{value:.2f} s"


def target_of(key: str, n: int) -> str:
    if key not in TARGETS_10K or n not in (10_000, 100_000):
        return ""
    unit = "MB" if key == "rss" else ("ms" if key.endswith("p99") else "s")
    if n == 100_000:
        return "≤ 1 GB" if key == "rss" else "≤ 12× the 10,000 figure"
    return f"≤ {fmt(TARGETS_10K[key], unit)}"


def median_of(runs: list[Bench]) -> Bench:
    """The first run, each of its figures replaced by the median of all the runs'."""
    first = runs[0]
    for key in first.results:
        first.results[key] = statistics.median(r.results[key] for r in runs if key in r.results)
    return first


def report(benches: list[Bench], compare: bool, info: dict[str, str]) -> str:
    runs = int(info.get("runs", "1"))
    out = [
        f"Machine: {info['cpu']}, {info['cores']} cores; Python {info['python']}; {info['date']}; "
        f"load average at start {info['load']}, at end "
        + " ".join(f"{x:.2f}" for x in os.getloadavg())
        + f"; bodies: {info.get('bodies', 'uniform')}",
        *([f"Each figure is the median of {runs} runs."] if runs > 1 else []),
        "",
    ]
    if len(benches) == 1:
        b = benches[0]
        head = ["measure", f"{b.n:,} files", "target"]
        if compare:
            head += ["rumdl", "rumdl ÷ ckp"]
        out += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for key, label, unit in ROWS:
            row = [label, fmt(b.results.get(key), unit), target_of(key, b.n)]
            if compare:
                twin = next((r for r in RUMDL_ROWS if r[1] == key), None)
                if twin is not None and twin[0] in b.results and b.results.get(key):
                    row += [fmt(b.results[twin[0]], unit), f"{b.results[twin[0]] / b.results[key]:.1f}×"]
                else:
                    row += ["", ""]
            out.append("| " + " | ".join(row) + " |")
        if compare and "rumdl_first" in b.results:
            label = next(r[2] for r in RUMDL_ROWS if r[0] == "rumdl_first")
            row = [label, "", "", fmt(b.results["rumdl_first"], "s"), ""]
            out.append("| " + " | ".join(row) + " |")
    else:
        head = ["measure", *(f"{b.n:,} files" for b in benches)]
        out += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        rows = list(ROWS)
        if compare:
            rows += [(k, label, unit) for k, _, label, unit in RUMDL_ROWS]
        for key, label, unit in rows:
            out.append("| " + " | ".join([label, *(fmt(b.results.get(key), unit) for b in benches)]) + " |")
        base = next((b for b in benches if b.n == 10_000), None)
        big = next((b for b in benches if b.n == 100_000), None)
        if base is not None and big is not None:
            growth = [
                f"{label}: {big.results[k] / base.results[k]:.1f}×"
                for k, label, _ in ROWS
                if base.results.get(k) and big.results.get(k)
            ]
            out += ["", "Growth from 10,000 to 100,000 files: " + "; ".join(growth) + "."]
    for b in benches:
        for note in b.notes:
            out.append(f"\n- {b.n:,} files: {note}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    global CODE, REQUESTS
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--size", type=int, default=10_000, help="files in the bank (default 10,000)")
    p.add_argument(
        "--sizes", default=None, help="comma-separated sizes for a scaling run, e.g. 100,1000,10000"
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--bodies",
        choices=BODIES,
        default="uniform",
        help="body sizes: uniform 1-3 KB (default) or real (median 5 KB, a tail to 100 KB, a few of 1 MB)",
    )
    p.add_argument("--compare", action="store_true", help="run rumdl on the same bank and print the ratios")
    p.add_argument("--no-server", action="store_true", help="only the command-line measurements")
    p.add_argument("--out", type=Path, default=None, help="also write the table to this file")
    p.add_argument("--no-cli", action="store_true", help="only the language-server measurements")
    p.add_argument("--spawn-only", action="store_true", help="of the server, measure only its start")
    p.add_argument("--requests", type=int, default=200, help="requests of each kind (default 200)")
    p.add_argument(
        "--repeat", type=int, default=1, help="run everything N times; each figure is the median of the N"
    )
    p.add_argument("--code", type=Path, default=None, help="measure the ckp_lsp of this source tree instead")
    p.add_argument(
        "--profile-server", type=Path, default=None, metavar="FILE", help="cProfile the server into FILE"
    )
    args = p.parse_args(argv)
    sizes = [int(s.replace("_", "")) for s in args.sizes.split(",")] if args.sizes else [args.size]
    CODE, REQUESTS = args.code, args.requests
    if args.compare:
        ensure_rumdl()
    info = machine()
    info["bodies"] = args.bodies
    benches = []
    for n in sizes:
        print(f"== {n:,} files: preparing the bank…", file=sys.stderr)
        # Resolved: the server names files by their real paths (``.banks`` may be a link).
        bank = prepare(n, args.seed, args.bodies).resolve()
        runs = []
        for run in range(max(1, args.repeat)):
            b = Bench(
                bank,
                n,
                random.Random(args.seed),
                environment(),
                profile=args.profile_server,
                spawn_only=args.spawn_only,
            )
            what = f"== {n:,} files" + (f", run {run + 1} of {args.repeat}" if args.repeat > 1 else "")
            if not args.no_cli:
                print(f"{what}: ckp check, ckp route", file=sys.stderr)
                b.cli()
            if not args.no_server:
                print(f"{what}: ckp-lsp", file=sys.stderr)
                asyncio.run(b.server())
            if args.compare:
                print(f"{what}: rumdl", file=sys.stderr)
                b.rumdl_cli()
                if not args.no_server:
                    asyncio.run(b.rumdl_server())
            runs.append(b)
        benches.append(median_of(runs))
    info["runs"] = str(max(1, args.repeat))
    table = report(benches, args.compare, info)
    print(table)
    if args.out is not None:
        args.out.write_text(table + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
