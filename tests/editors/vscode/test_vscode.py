"""The VS Code extension in a real VS Code: code-server 4.100.3 driven by headless Chromium.

Builds the .vsix (or uses $CKP_VSIX), installs code-server into a cache folder if needed
(install-code-server.sh), installs the extension, opens a workspace holding memory banks and
lets drive.mjs act like a user: Ctrl+P, squiggles, Problems panel, hover over a SIMILAR entry,
Ctrl+. → "Recompile header: …" (applied at once, undone by Ctrl+Z), the same from the palette,
a file deleted on disk leaving Problems. Screenshots go to
test-artifacts/vscode/.

Missing tools skip the test, or fail it when CI=true. See README in this folder.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import os
import platform
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from timeline import format_timeline, start_timeline

from tests.copies import copy_tree

pytestmark = pytest.mark.editor

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
CLIENT = REPO / "vscode-client"
ARTIFACTS = REPO / "test-artifacts" / "vscode"
CODE_SERVER_VERSION = "4.100.3"
QUICK_FIX = "Recompile header"  # "Recompile header: TLDR, +2 −1 keywords, …"
SAMPLE_BANKS = ["samples/broken/memory-bank", "samples/mentat/memory-bank"]
#: a file of the broken sample with errors (CKP005, CKP011), the first in Problems, deleted on disk during the test
DELETED = "broken/memory-bank/cache.md"
#: another file with findings, opened last, when the server runs: the squiggle's time without the start
SECOND = "broken/memory-bank/http-headers.md"

HEADER_LINE = re.compile(r"^\ufeff?([A-Z][A-Z0-9_]*):\s*(.*?)\s*$")
ENTRY = re.compile(r"([a-z0-9][a-z0-9._-]*):(\d{4}-\d{2}(?:-\d{2})?)")


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("true", "1")


def missing(message: str) -> None:
    """A tool is missing: fail in CI, skip elsewhere."""
    if in_ci():
        pytest.fail(f"VS Code editor test cannot run (CI=true): {message}", pytrace=False)
    pytest.skip(message)


# --- tools --------------------------------------------------------------------------------------


def chromium_path() -> str | None:
    for candidate in (os.environ.get("CKP_CHROMIUM"), "chromium", "chromium-browser"):
        if candidate and (found := shutil.which(candidate)):
            return found
    return None


def ensure_code_server() -> str:
    for tool in ("node", "npm", "tar"):
        if not shutil.which(tool):
            missing(f"`{tool}` is not on the PATH (Node 20 + npm are needed)")
    script = HERE / "install-code-server.sh"
    t0 = time.monotonic()
    proc = subprocess.run(["bash", str(script)], capture_output=True, text=True, timeout=900, cwd=HERE)
    if proc.returncode != 0:
        missing(
            f"{script.name} failed (exit {proc.returncode}); it installs code-server "
            f"{CODE_SERVER_VERSION}, chromium and playwright-core:\n{proc.stderr[-3000:]}"
        )
    binary = proc.stdout.strip().splitlines()[-1]
    if not Path(binary).exists():
        missing(f"{script.name} did not produce code-server ({binary!r})")
    if not chromium_path():
        missing("chromium is not installed (apt-get install -y chromium)")
    print(f"code-server ready in {time.monotonic() - t0:.1f}s: {binary}")
    return binary


# --- the .vsix ----------------------------------------------------------------------------------


def newest_mtime(paths: list[Path]) -> float:
    newest = 0.0
    for root in paths:
        if root.is_file():
            newest = max(newest, root.stat().st_mtime)
        elif root.is_dir():
            for p in root.rglob("*"):
                if p.is_file() and "__pycache__" not in p.parts:
                    newest = max(newest, p.stat().st_mtime)
    return newest


def host_target() -> str:
    """This machine's vsce target (the test runs on glibc Linux)."""
    arch = {"x86_64": "x64", "aarch64": "arm64", "arm64": "arm64"}[platform.machine().lower()]
    return f"linux-{arch}"


def ensure_vsix(universal: bool = False) -> Path:
    """This machine's platform build (or the universal one), rebuilt when older than its sources."""
    if not universal and (given := os.environ.get("CKP_VSIX")):
        path = Path(given).resolve()
        if not path.is_file():
            pytest.fail(f"CKP_VSIX={given} does not exist", pytrace=False)
        return path
    version = json.loads((CLIENT / "package.json").read_text())["version"]
    # `npm run package` builds this machine's platform .vsix (compiled modules included)
    path = CLIENT / (f"ckp-lsp-{version}.vsix" if universal else f"ckp-lsp-{host_target()}-{version}.vsix")
    sources = [
        CLIENT / "src",
        CLIENT / "scripts",
        CLIENT / "package.json",
        CLIENT / "esbuild.js",
        CLIENT / "README.md",
        REPO / "ckp_lsp",
        REPO / "pyproject.toml",
    ]
    # The universal build is made from the platform build's bundle, as `package.py --all` makes
    # it (bundle-libs.py --from-bundle: the same files less the compiled modules).
    platform_vsix = ensure_vsix() if universal else None
    if platform_vsix is not None:
        sources.append(platform_vsix)
    if path.exists() and path.stat().st_mtime >= newest_mtime(sources):
        return path
    if not shutil.which("npm"):
        missing("npm is needed to build the .vsix")
    t0 = time.monotonic()
    steps = [] if (CLIENT / "node_modules" / ".bin" / "vsce").exists() else [["npm", "ci"]]
    if platform_vsix is not None:
        bundle = Path(tempfile.mkdtemp(prefix="ckp-vsix-bundle-"))
        with zipfile.ZipFile(platform_vsix) as z:
            z.extractall(bundle, [n for n in z.namelist() if n.startswith("extension/bundled/")])
        if not (CLIENT / "out" / "extension.js").exists():
            steps.append(["node", "esbuild.js", "--production"])
        libs = bundle / "extension" / "bundled" / "libs"
        steps.append(
            [sys.executable, "scripts/package.py", "--target", "universal", "--from-bundle", str(libs)]
        )
    else:
        steps.append(["npm", "run", "package"])
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    try:
        for cmd in steps:
            proc = subprocess.run(cmd, cwd=CLIENT, capture_output=True, text=True, timeout=600, env=env)
            if proc.returncode != 0:
                pytest.fail(
                    f"building the .vsix failed: {' '.join(cmd)} (exit {proc.returncode})\n"
                    f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}",
                    pytrace=False,
                )
    finally:
        if platform_vsix is not None:
            shutil.rmtree(bundle, ignore_errors=True)
    print(f"built {path.name} in {time.monotonic() - t0:.1f}s")
    return path


# --- the workspace ------------------------------------------------------------------------------


TINY_BANK = {
    "jwt.md": (
        "CONCEPT:      jwt\n"
        "TLDR:         JSON Web Tokens: how the API signs, verifies and refreshes access tokens.\n"
        "ANSWERS_WHEN: jwt, access token, refresh token, token signature\n"
        "SIMILAR_HIGH: oauth2:2024-01\n"
        "SIMILAR_MID:  http-headers:2025-05\n"
        "CONFIDENCE:   high\n"
        "VALIDATED:    2025-05\n"
        "\n"
        "# JWT\n\nAccess tokens are RS256-signed JWTs valid for 15 minutes; refresh tokens rotate.\n"
    ),
    "oauth2.md": (
        "CONCEPT:      oauth2\n"
        "TLDR:         OAuth2 authorization-code flow with PKCE that issues the API's access tokens.\n"
        "ANSWERS_WHEN: oauth2, login, authorization code, PKCE\n"
        "SIMILAR_HIGH: jwt:2025-06\n"
        "CONFIDENCE:   high\n"
        "VALIDATED:    2025-06\n"
        "\n"
        "# OAuth2\n\nThe web client uses the authorization-code flow with PKCE.\n"
    ),
    "http-headers.md": (
        "CONCEPT:      http-headers\n"
        "TLDR:         Which HTTP headers the API reads and sets, including Authorization and CORS.\n"
        "ANSWERS_WHEN: http headers, authorization header, cors\n"
        "CONFIDENCE:   medium\n"
        "VALIDATED:    2025-05\n"
        "\n"
        "# HTTP headers\n\n`Authorization: Bearer <jwt>` on every API call.\n"
    ),
}


def read_header(path: Path) -> tuple[dict[str, list[str]], list[str]]:
    """CKP fields of a knowledge file (bare form or simple front matter: every value of a
    repeated field) and the file's lines."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return {}, []
    if lines and lines[0].lstrip("\ufeff").strip() == "---":
        end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
        header = lines[1:end] if end else []
    else:
        header = []
        for line in lines:
            if not HEADER_LINE.match(line):
                break
            header.append(line)
    fields: dict[str, list[str]] = {}
    for line in header:
        if m := HEADER_LINE.match(line):
            fields.setdefault(m.group(1), []).append(m.group(2).strip().strip("'\""))
    return fields, lines


@dataclass
class Target:
    file: Path  # absolute
    own_concept: str  # the file's CONCEPT
    token: str  # e.g. "oauth2:2024-01", as written in the file
    concept: str
    tldrs: list[str]  # the related concept's TLDR (every value if the field is repeated)


def month(date: str) -> str:
    return date[:7]


def valid_date(text: str) -> bool:
    """YYYY-MM or YYYY-MM-DD, a real date, not in the future."""
    try:
        parsed = datetime.date.fromisoformat(text if len(text) == 10 else f"{text}-01")
    except ValueError:
        return False
    return re.fullmatch(r"\d{4}-\d{2}(-\d{2})?", text) is not None and parsed <= datetime.date.today()


def find_target(bank: Path) -> Target | None:
    """A file with a stale SIMILAR entry (a CKP050 warning) to a concept declared once."""
    headers: dict[str, list[tuple[Path, dict[str, list[str]], list[str]]]] = {}
    for md in sorted(bank.rglob("*.md")):
        if md.name == "_index.md":
            continue
        fields, lines = read_header(md)
        if fields.get("CONCEPT"):
            headers.setdefault(fields["CONCEPT"][0], []).append((md, fields, lines))
    for declared in headers.values():
        if len(declared) != 1:
            continue  # duplicate concept (CKP011)
        md, own, lines = declared[0]
        for line in lines[:40]:  # the header: bare lines or front matter (also YAML lists)
            stripped = line.strip()
            if not (stripped.startswith("SIMILAR_") or stripped.startswith("- ")):
                continue
            for m in ENTRY.finditer(line):
                concept, date = m.group(1), m.group(2)
                if len(headers.get(concept, [])) != 1:
                    continue
                other, fields, _ = headers[concept][0]
                validated = fields.get("VALIDATED", [])
                tldrs = [t for t in fields.get("TLDR", []) if len(t) >= 20]
                if other == md or not tldrs or len(validated) != 1 or line.count(m.group(0)) != 1:
                    continue
                if valid_date(validated[0]) and month(validated[0]) > month(date):
                    return Target(md, own["CONCEPT"][0], m.group(0), concept, tldrs)
    return None


def write_tiny_bank(bank: Path) -> Path:
    """The tiny bank written to the folder ``bank``; returns ``bank``."""
    bank.mkdir(parents=True)
    for name, text in TINY_BANK.items():
        (bank / name).write_text(text, encoding="utf-8")
    return bank


def make_workspace(root: Path) -> tuple[Path, Target, list[str]]:
    ws = root / "workspace"
    ws.mkdir()
    used = []
    for rel in SAMPLE_BANKS:
        src = REPO / rel
        if src.is_dir():
            copy_tree(src, ws / Path(rel).relative_to("samples"))
            used.append(rel)
    tiny = write_tiny_bank(ws / "tiny" / "memory-bank")
    target = None
    for rel in used:
        target = find_target(ws / Path(rel).relative_to("samples"))
        if target:
            break
    target = target or find_target(tiny)
    assert target, "the tiny bank must provide a target"
    return ws, target, used


# --- code-server --------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def python_shim(root: Path, too_old: bool = False) -> Path | None:
    """A PATH entry where `python3` is the system interpreter (no venv, no project install), or
    with `too_old`, where `python3` and `python` are a Python 3.8 (what the extension's version
    probe sees of them)."""
    system = Path("/usr/bin/python3")
    if not system.exists():
        return None
    shim = root / "shim-bin"
    shim.mkdir()
    if too_old:
        for name in ("python3", "python"):
            (shim / name).write_text("#!/bin/sh\necho '(3, 8)'\n")
            (shim / name).chmod(0o755)
    else:
        (shim / "python3").symlink_to(system)
    return shim


def server_processes(pgid: int) -> list[dict]:
    """Language-server processes started inside code-server's process group."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if os.getpgid(int(proc.name)) != pgid:
                continue
            cmdline = (proc / "cmdline").read_bytes().split(b"\0")
            args = [a.decode(errors="replace") for a in cmdline if a]
            is_server = any(
                a == "ckp_lsp" and i > 0 and args[i - 1] == "-m" for i, a in enumerate(args)
            ) or any(Path(a).name == "ckp-lsp" for a in args[:2])
            if not is_server:
                continue
            env = dict(
                item.decode(errors="replace").split("=", 1)
                for item in (proc / "environ").read_bytes().split(b"\0")
                if b"=" in item
            )
            found.append(
                {
                    "pid": int(proc.name),
                    "args": args,
                    "exe": os.readlink(proc / "exe"),
                    "PYTHONPATH": env.get("PYTHONPATH", ""),
                }
            )
        except (OSError, ProcessLookupError):
            continue
    return found


BASE_SETTINGS = {
    "workbench.startupEditor": "none",
    "workbench.tips.enabled": False,
    "workbench.enableExperiments": False,
    "security.workspace.trust.enabled": False,
    "telemetry.telemetryLevel": "off",
    "update.mode": "none",
    "extensions.autoUpdate": False,
    "extensions.autoCheckUpdates": False,
    "extensions.ignoreRecommendations": True,
    "git.enabled": False,
    "editor.hover.delay": 150,
    "markdown.validate.enabled": False,
}


@dataclass
class Session:
    """What one run of code-server + drive.mjs left: drive.mjs's JSON, the language-server
    processes seen, the CKP output channel, the user settings used."""

    result: dict
    summary: dict
    output: str
    settings: dict


def run_vscode(
    tmp_path: Path,
    ws: Path,
    drive: dict,
    artifacts: Path,
    *,
    settings: dict | None = None,
    trust: bool = False,
    old_python: bool = False,
    universal: bool = False,
    timings: dict[str, float] | None = None,
) -> Session:
    """Install the .vsix into a fresh code-server, open `ws`, run drive.mjs with `drive`."""
    timings = {} if timings is None else timings
    t_start = time.monotonic()
    code_server = ensure_code_server()
    timings["tools"] = time.monotonic() - t_start
    t0 = time.monotonic()
    vsix = ensure_vsix(universal)
    timings["vsix"] = time.monotonic() - t0
    if artifacts.exists():
        shutil.rmtree(artifacts)
    artifacts.mkdir(parents=True)

    data = tmp_path / "vscode"
    (data / "user" / "User").mkdir(parents=True)
    user_settings = {**BASE_SETTINGS, **(settings or {})}
    if trust:
        # Workspace Trust on: a folder nobody trusted opens in Restricted Mode, without asking
        user_settings.update(
            {
                "security.workspace.trust.enabled": True,
                "security.workspace.trust.startupPrompt": "never",
                "security.workspace.trust.untrustedFiles": "open",
            }
        )
    user_settings.update(json.loads(os.environ.get("CKP_VSCODE_SETTINGS", "{}")))
    (data / "user" / "User" / "settings.json").write_text(json.dumps(user_settings, indent=2))

    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "NODE_OPTIONS")
    }
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        env[var] = str(tmp_path / "xdg" / var.lower())
    # The server must run with nothing but the system python3 and the bundled libraries.
    path_parts = [
        p for p in env.get("PATH", "").split(os.pathsep) if p and not (Path(p) / "activate").exists()
    ]  # drop virtualenv bin folders
    if shim := python_shim(tmp_path, too_old=old_python):
        path_parts.insert(0, str(shim))
    env["PATH"] = os.pathsep.join(path_parts)
    # Keep that environment: without VSCODE_CLI=1 the VS Code server replaces it with the one of
    # an interactive login shell (~/.bashrc), which may put another python3 first.
    env["VSCODE_CLI"] = "1"
    common = ["--user-data-dir", str(data / "user"), "--extensions-dir", str(data / "ext")]

    t0 = time.monotonic()
    proc = subprocess.run(
        [code_server, *common, "--install-extension", str(vsix)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert proc.returncode == 0, f"--install-extension failed:\n{proc.stdout}\n{proc.stderr}"
    timings["install extension"] = time.monotonic() - t0

    port = free_port()
    log = (tmp_path / "code-server.log").open("w")
    t0 = time.monotonic()
    server = subprocess.Popen(
        [
            code_server,
            "--bind-addr",
            f"127.0.0.1:{port}",
            "--auth",
            "none",
            "--disable-telemetry",
            "--disable-update-check",
            *([] if trust else ["--disable-workspace-trust"]),
            "--disable-getting-started-override",
            *common,
            str(ws),
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
        start_new_session=True,
    )
    pgid = server.pid  # start_new_session: the child leads its own process group
    summary: dict = {
        "vsix": str(vsix),
        **{k: v for k, v in drive.items() if k in ("samples", "file", "token")},
    }
    result: dict = {"ok": False, "error": "drive.mjs did not run"}
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                pytest.fail(
                    f"code-server did not come up:\n{(tmp_path / 'code-server.log').read_text()[-3000:]}"
                )
            time.sleep(0.2)
        timings["code-server up"] = time.monotonic() - t0

        config = {
            "url": f"http://127.0.0.1:{port}/?folder={ws}",
            "artifacts": str(artifacts),
            "profileDir": str(tmp_path / "chromium-profile"),
            "chromium": chromium_path(),
            "timeoutMs": 30000,
            **drive,
        }
        config_file = tmp_path / "drive.json"
        config_file.write_text(json.dumps(config))
        t0 = time.monotonic()
        drive_proc = subprocess.Popen(
            ["node", str(HERE / "drive.mjs"), str(config_file)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=HERE,
            env=env,
        )
        # The language servers are looked for while the editor runs: once the browser closes, a
        # graceful disconnect ends the extension host, and its server with it, at once.
        seen: dict[int, dict] = {}
        while True:
            for found in server_processes(pgid):
                seen.setdefault(found["pid"], found)
            try:
                stdout, stderr = drive_proc.communicate(timeout=0.5)
                break
            except subprocess.TimeoutExpired:
                if time.monotonic() - t0 > 150:
                    drive_proc.kill()
                    raise
        timings["drive"] = time.monotonic() - t0
        sys.stderr.write(stderr)
        lines = stdout.strip().splitlines()
        result = json.loads(lines[-1]) if lines else {"ok": False, "error": "drive.mjs printed nothing"}
        summary["drive"] = result
        for found in server_processes(pgid):
            seen.setdefault(found["pid"], found)
        summary["servers"] = list(seen.values())
    finally:
        try:
            os.killpg(pgid, signal.SIGTERM)
            server.wait(timeout=10)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, signal.SIGKILL)
        log.close()
        shutil.copy(tmp_path / "code-server.log", artifacts / "code-server.log")
        output = ckp_output(data / "user")
        (artifacts / "ckp-output.log").write_text(output)
        for exthost_log in (data / "user").glob("logs/**/remoteexthost.log"):
            shutil.copy(exthost_log, artifacts / "remoteexthost.log")
        timeline = start_timeline(data / "user", output, result.get("epochs", {}))
        summary["start_timeline_ms"] = [[name, round(at)] for name, at in timeline]
        timings["total"] = time.monotonic() - t_start
        summary["timings_s"] = {k: round(v, 1) for k, v in timings.items()}
        summary["output"] = output.splitlines()[:40]
        (artifacts / "summary.json").write_text(json.dumps(summary, indent=2))
        print(json.dumps(summary, indent=2))
        if timeline:
            print(format_timeline(timeline, output))
    return Session(result, summary, output, user_settings)


def test_vscode_extension(tmp_path: Path) -> None:
    # Inside the test (not fixtures) so that a missing tool under CI=true is a test failure.
    ws, target, samples = make_workspace(tmp_path)
    drive = {
        "samples": samples,
        "file": str(target.file.relative_to(ws)),
        "token": target.token,
        "concept": target.concept,
        "expectHover": target.tldrs,
        "quickFix": QUICK_FIX,
        "expectPreview": False,
        "paletteRecompile": True,
        "routeQuery": f"how does {target.own_concept} work",
        "routeExpect": target.own_concept,
    }
    # what `ckp check` leaves in a bank (the server writes the same folder): hidden from the Explorer
    cache = target.file.parent / ".ckp-cache"
    cache.mkdir(exist_ok=True)
    (cache / ".gitignore").write_text("*\n")
    gone = ws / DELETED
    assert gone.is_file() and gone != target.file, gone  # a file with errors, never opened
    drive["deleteFile"] = str(gone)
    if (ws / SECOND).is_file():
        drive["secondFile"] = SECOND
    run = run_vscode(tmp_path, ws, drive, ARTIFACTS)
    result, settings, output_log = run.result, run.settings, run.output
    timings = result.get("timings", {})
    print(f"first squiggle: {timings.get('firstSquiggleMs')} ms after opening {drive['file']}")
    if "secondSquiggleMs" in timings:
        print(f"second file, server running: {timings['secondSquiggleMs']} ms after opening {SECOND}")
    assert result.get("ok"), (
        f"VS Code check failed at step {result.get('failedStep')!r}: {result.get('error')}\n"
        f"notifications: {result.get('notifications')}\nscreenshots: {ARTIFACTS}"
    )
    checks = result.get("checks", {})
    # A file deleted on disk: its findings left Problems and the status bar's count.
    assert checks["errorsAfterDelete"] < checks["errorsBeforeDelete"], checks
    # Recompile applies at once (its title said what changes; one Ctrl+Z undoes it), as edits of
    # the changed header lines only: no Refactor Preview whose default choice would apply nothing.
    assert checks.get("previewShown") is False, checks
    assert checks.get("undoRestores"), checks
    assert checks["recompiledLines"] and HEADER_LINE.match(checks["recompiledLines"][0]), checks
    # The cache folder is on disk, next to the files, and hidden from the Explorer.
    assert cache.is_dir()
    assert checks["explorerRows"] and not any(".ckp-cache" in row for row in checks["explorerRows"]), checks
    # The hover shows CKP050's message (VS Code's part), then ours without repeating it, and the
    # related TLDR once: the link carries no tooltip that would say it again.
    hover = checks["hover"]
    assert "validated" in hover and "Stale" not in hover, hover
    tldr = next(t for t in (re.sub(r"[*_`]", "", x) for x in target.tldrs) if t[:60] in hover)
    assert hover.count(tldr[:60]) == 1, hover
    # the palette's Recompile shows no notification of its own, applied or up to date
    assert checks.get("paletteApplied") and checks.get("paletteToasts") == [], checks
    assert re.match(r"Recompile header: \S", next(t for t in checks["quickFixMenu"] if "Recompile" in t)), (
        checks
    )
    # The extension started the server itself: `-m ckp_lsp` (or ckp-lsp) plus --stdio.
    servers = run.summary["servers"]
    assert servers, "no ckp_lsp server process was running under code-server"
    assert all("--stdio" in s["args"] for s in servers), servers
    if "ckp.server.path" not in settings and "ckp.server.python" not in settings:
        # Out of the box: the bundled libraries with the python3 found on the PATH.
        assert any(s["PYTHONPATH"].split(os.pathsep)[0].endswith("bundled/libs") for s in servers), servers

    # What the extension and the server say at start: the build, and the compiled modules in use.
    if not os.environ.get("CKP_VSIX") and "ckp.server.path" not in settings:
        assert f"build: {host_target()} build (compiled modules: " in output_log, output_log
        # the server's own report, through window/logMessage
        assert re.search(
            r"ckp-lsp [\d.]+: CPython 3\.\d+\.\d+ .*compiled modules in use: yaml, rapidfuzz", output_log
        ), output_log
        assert "pure-Python fallback" not in output_log, output_log
        assert not any("without compiled modules" in n for n in result.get("notifications", [])), result


#: what a cloned repository's .vscode/settings.json could set to run its own program and send
#: the user's key elsewhere (and one ordinary setting, which must still apply)
HOSTILE_WORKSPACE_SETTINGS = {
    "ckp.server.python": "/nonexistent/evil/python3",
    "ckp.llm.provider": "command",
    "ckp.llm.command": "sh -c 'touch /tmp/ckp-pwned'",
    "ckp.llm.baseUrl": "https://collector.invalid/v1",
    "ckp.staleness": "mtime",
}


def test_vscode_restricted_mode_ignores_workspace_programs_and_endpoints(tmp_path: Path) -> None:
    """Workspace Trust on and the folder not trusted: the extension runs (limited support), with
    the bundled server and the user's Python, and sends the server the workspace's ordinary
    settings but not its program, provider or endpoint."""
    ws = tmp_path / "workspace"
    bank = write_tiny_bank(ws / "memory-bank")
    (ws / ".vscode").mkdir()
    (ws / ".vscode" / "settings.json").write_text(json.dumps(HOSTILE_WORKSPACE_SETTINGS, indent=2))
    target = find_target(bank)
    assert target
    drive = {"file": str(target.file.relative_to(ws)), "token": target.token, "stopAfter": "squiggles"}
    # verbose trace: the output shows the initializationOptions the client sent
    run = run_vscode(
        tmp_path,
        ws,
        drive,
        ARTIFACTS.parent / "vscode-restricted",
        settings={"ckp.trace.server": "verbose"},
        trust=True,
    )
    output = run.output
    assert run.result.get("ok"), (run.result.get("error"), output[-3000:])
    assert "Restricted Mode (untrusted workspace)" in output, output[:3000]
    ignored = re.search(r"Restricted Mode: the workspace's values of (.*) are ignored", output)
    assert ignored, output[:3000]
    assert set(ignored.group(1).split(", ")) == {
        "ckp.server.python",
        "ckp.llm.provider",
        "ckp.llm.command",
        "ckp.llm.baseUrl",
    }
    # the server runs with the user's python3, not the workspace's interpreter
    assert "/nonexistent/evil/python3" not in output.split("Restricted Mode:")[0]
    assert run.summary["servers"], "no language server was started"
    # what was sent: the ordinary workspace setting, none of the restricted ones
    init = re.search(r'"initializationOptions": (\{.*?\n    \}|\{\})', output, re.S)
    assert init, output[:4000]
    sent = json.loads(init.group(1))
    assert sent == {
        "ckp": {"staleness": "mtime"},
        "editor": {"hoverShowsDiagnostics": True, "hoverShowsLinkTooltips": True},
    }, sent
    # nor in the answers to workspace/configuration, traced after it
    for value in ("touch /tmp/ckp-pwned", "collector.invalid"):
        assert value not in output.split("Restricted Mode:")[1], value


def ckp_output(user_data: Path) -> str:
    """The CKP output channel, as VS Code keeps it in its logs folder."""
    logs = sorted(user_data.glob("logs/**/*CKP*.log"))
    return "\n".join(p.read_text(errors="replace") for p in logs)


def run_to_notification(tmp_path: Path, notification: str, artifacts: str, **options: Any) -> Session:
    """VS Code on a workspace holding the tiny bank, run until a notification containing
    ``notification`` shows (drive.mjs fails the run otherwise)."""
    ws = tmp_path / "workspace"
    write_tiny_bank(ws / "memory-bank")
    drive = {"expectNotification": notification}
    run = run_vscode(tmp_path, ws, drive, ARTIFACTS.parent / artifacts, **options)
    assert run.result.get("ok"), (run.result.get("error"), run.output[-3000:])
    return run


def test_vscode_without_a_usable_python_says_what_to_do(tmp_path: Path) -> None:
    """Only a Python 3.8 on the PATH (and no Python extension): no server, and a notification
    that names what was tried and what to do, with a button to the settings."""
    run = run_to_notification(tmp_path, "no Python 3.10 or newer found", "vscode-no-python", old_python=True)
    checks = run.result["checks"]
    text = checks["notification"]
    assert "tried python3, python" in text, text
    assert "Install Python 3.10 or newer" in text and "ckp.server.python" in text, text
    assert "ckp.server.path" in text, text
    assert "Open Settings" in checks["notificationButtons"], checks
    assert "no server" in checks["statusBar"], checks
    assert "python3: Python 3.8 is too old" in run.output, run.output
    assert not run.summary["servers"], run.summary["servers"]


def test_vscode_universal_build_says_it_runs_pure_python(tmp_path: Path) -> None:
    """The universal .vsix: the server runs on pure-Python fallbacks, its log says so, and a
    notification says it, what it costs and which build to install instead."""
    run = run_to_notification(tmp_path, "runs without compiled modules", "vscode-universal", universal=True)
    text = run.result["checks"]["notification"]
    assert "universal (pure-Python) build" in text, text
    assert f"install the build for {host_target()}" in text, text
    assert "YAML front matter about 8×" in text, text
    assert "build: universal build (pure Python" in run.output, run.output
    assert re.search(
        r"ckp-lsp [\d.]+: CPython .*pure-Python fallback \(no compiled module for this Python and platform\): "
        r"yaml, rapidfuzz",
        run.output,
    ), run.output
    assert "compiled modules in use" not in run.output, run.output
    assert run.output.count("runs without compiled modules") == 1, run.output  # logged once too
