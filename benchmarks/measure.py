"""What the benchmarks share: the processes measured and their environment, timed runs,
percentiles, the machine, and the language server started as VS Code starts it (the driver of
the end-to-end tests, ``tests/lsp_driver.py``)."""

from __future__ import annotations

import datetime as _dt
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ckp_lsp.core.format.fields import KEY_NAME
from ckp_lsp.faces.banks import load_bank
from tests.lsp_driver import Server

RUNS = 3
_HEADER_KEY = re.compile(rf"^({KEY_NAME}):(\s*)(.*)$")


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
    from ckp_lsp.core.bank.checks import check_file
    from ckp_lsp.core.bank.index_checks import check_index
    from ckp_lsp.core.project.config import config_for_bank
    from ckp_lsp.faces.clock import today

    loaded = load_bank(bank, config_for_bank(bank), today=today())
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


async def start_server(
    command: list[str],
    root: Path,
    env: dict[str, str],
    settings: dict[str, Any] | None = None,
    stderr: IO[bytes] | None = None,
) -> Server:
    """The server ``command`` started on the folder ``root`` as VS Code starts one: its
    capabilities with diagnostics pushed, the timed requests' answers read as JSON."""
    from lsprotocol import types
    from pytest_lsp import client_capabilities

    caps = client_capabilities("visual-studio-code")
    caps.text_document.diagnostic = None  # a push client
    params = types.InitializeParams(
        capabilities=caps,
        process_id=os.getpid(),
        root_uri=root.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)],
    )
    server = await Server.start(
        command, params, env=env, settings=settings, stderr_copy=stderr, checked=False
    )
    answers_as_json(server.client)
    return server


async def stop_server(server: Server) -> None:
    """shutdown and exit, or kill a server that does not exit in time."""
    try:
        await server.stop()
    except Exception:
        await server.kill()


async def timed_requests(calls: list[Callable[[], Any]]) -> list[float]:
    """The seconds each call's answer took, one call after the other."""
    out = []
    for call in calls:
        start = time.perf_counter()
        await call()
        out.append(time.perf_counter() - start)
    return out
