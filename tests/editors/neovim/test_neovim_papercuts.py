"""What a user of docs/neovim.md meets in a real headless Neovim 0.11 and 0.7: ``gd``, ``<C-]>``
and ``K`` work on a relationship in both; a header's ``_`` is not painted as a Markdown error once
the docs' syntax file is installed; the completion menu shows a TLDR as plain text; the hover on a
stale entry reads as sentences; typing ``, civis:pr`` into a SIMILAR field with
``vim.lsp.completion``'s autotrigger leaves what was typed with the docs' ``completeopt`` (and
does not with Neovim's default, 0.11); a rename leaves no buffer unsaved and the bank on disk
whole (``ckp check`` finds nothing new) with the docs' save_edits.lua.

Missing editors skip the tests, or fail them when CI=true (see test_neovim.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from test_neovim import (
    DOCS,
    EDITORS,
    HERE,
    REPO,
    SAMPLES,
    TIMEOUT,
    Unavailable,
    find_nvim,
    in_ci,
    server_command,
)

from tests.copies import copy_tree

RUNTIME = REPO / "editors" / "vim" / "after"
UNTOLD = "CONCEPT: untold\nANSWERS_WHEN: untold\nVALIDATED: 2026-01\n\nA note without a TLDR.\n"


@pytest.fixture(scope="module", params=list(EDITORS), ids=[f"nvim-{v}" for v in EDITORS])
def run(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    label = request.param
    try:
        binary = find_nvim(label)
    except Unavailable as exc:
        if in_ci():
            pytest.fail(f"Neovim editor test cannot run (CI=true): {exc}", pytrace=False)
        pytest.skip(str(exc))
    tmp = tmp_path_factory.mktemp(f"nvim-papercuts-{label}")
    samples = copy_tree(SAMPLES, tmp / "samples")
    (samples / "mentat/memory-bank/notes").mkdir()
    (samples / "mentat/memory-bank/notes/untold.md").write_text(UNTOLD)
    result_file = tmp / "result.json"
    findings_before = findings(samples / "mentat/memory-bank")
    env = {
        **os.environ,
        **{f"XDG_{k}_HOME": str(tmp / "xdg" / k.lower()) for k in ("CONFIG", "DATA", "STATE", "CACHE")},
        "CKP_SETUP": str(HERE / EDITORS[label][2]),
        "CKP_SAVE_EDITS": str(HERE / "save_edits.lua"),
        "CKP_EXTRAS": str(HERE / "extras.lua"),
        "CKP_RUNTIME": str(RUNTIME),
        "CKP_CMD": json.dumps(server_command()),
        "CKP_SAMPLES": str(samples),
        "CKP_RESULT": str(result_file),
    }
    cmd = [binary, "--headless", "-u", "NONE", "-i", "NONE", "-c", f"luafile {HERE / 'papercuts_driver.lua'}"]
    proc = subprocess.run(
        cmd, cwd=tmp, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=TIMEOUT
    )
    assert result_file.exists(), (
        f"Neovim {label} wrote no result (exit {proc.returncode}):\n{proc.stderr[-3000:]}"
    )
    result: dict[str, Any] = json.loads(result_file.read_text(encoding="utf-8"))
    assert result.get("ok"), f"Neovim {label}: {result.get('error')}\n{proc.stderr[-3000:]}"
    result.update(label=label, samples=samples, findings_before=findings_before)
    return result


def findings(bank: Path) -> set[tuple[str, str, str]]:
    """What ``ckp check`` finds in the bank on disk: (file, code, message), file names left out
    (a rename changes them)."""
    ckp = Path(sys.executable).parent / "ckp"
    proc = subprocess.run(
        [str(ckp), "check", "--no-cache", "--format", "json", str(bank)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert proc.returncode in (0, 1), proc.stderr
    return {
        (d["file"].replace("jwt.md", "json-web-token.md"), d["code"], d["message"])
        for d in json.loads(proc.stdout)["diagnostics"]
    }


def step(run: dict[str, Any], name: str) -> dict[str, Any]:
    data: dict[str, Any] = run["steps"].get(name) or {}
    assert data.get("ok"), f"Neovim {run['label']}: the {name} step failed: {data.get('error')}"
    return data


@pytest.mark.editor
@pytest.mark.parametrize("key", ["gd", "<C-]>"])
def test_gd_and_ctrl_bracket_go_to_the_related_file(run: dict[str, Any], key: str) -> None:
    data = step(run, f"definition {key}")
    assert data["file"].endswith("patterns/oauth2.md"), (run["label"], key, data)
    assert data["text"].startswith("CONCEPT:"), data


@pytest.mark.editor
def test_k_shows_the_hover_not_man(run: dict[str, Any]) -> None:
    data = step(run, "hover K")
    assert data["pressed"], data["press_error"]
    assert data["float"] and "oauth2" in "\n".join(data["float"]), data


@pytest.mark.editor
def test_a_headers_underscores_are_no_markdown_error(run: dict[str, Any]) -> None:
    groups = step(run, "syntax")["groups"]
    for field in ("ANSWERS_WHEN", "SIMILAR_HIGH", "SIMILAR_MID"):
        assert groups[field] == "ckpHeaderField", groups
        assert groups[f"{field} (translated)"] == "Identifier", groups


@pytest.mark.editor
def test_the_completion_menu_shows_plain_text(run: dict[str, Any]) -> None:
    data = step(run, "completion documentation")
    assert data["info"] == "(no TLDR)", data
    assert data["documentation"]["kind"] == "plaintext", data


@pytest.mark.editor
def test_the_stale_hover_keeps_its_sentence_and_its_link_apart(run: dict[str, Any]) -> None:
    lines = step(run, "hover stale")["lines"]
    text = "\n".join(lines)
    assert "Stale" in text, lines
    # the code's link stands on its own line, not inside the sentence where it wraps at its URL
    assert not any("(CKP050" in line or "[CKP050](" in line for line in lines), lines
    assert any("CKP050" in line and "https://" in line for line in lines), lines


@pytest.mark.editor
def test_the_recommended_settings_make_autotrigger_select_nothing(run: dict[str, Any]) -> None:
    if run["label"] != "0.11":
        # vim.lsp.completion is 0.11's: 0.7 has no autotrigger, and the settings leave completeopt be
        assert "autotrigger" not in run["steps"], run["steps"].get("autotrigger")
        return
    data = step(run, "autotrigger")
    assert data["completeopt"] == "menuone,noselect,popup", data
    # the menus opened as ", civis:pr" was typed (after ":" the dates of civis), and the line
    # holds what was typed, nothing inserted from them
    assert data["menus"] >= 2 and any(w.startswith("2026-") for w in data["items"]), data
    assert data["after"] == data["before"] + ", civis:pr", data


@pytest.mark.editor
def test_neovims_default_completeopt_inserts_the_first_item_as_you_type(run: dict[str, Any]) -> None:
    """Why the docs set completeopt: the same typing with Neovim's default changes the text."""
    if run["label"] != "0.11":
        return
    data = step(run, "autotrigger default")
    assert "noselect" not in data["completeopt"], data
    assert data["menus"] >= 1, data
    assert data["after"] != data["before"] + ", civis:pr", data


@pytest.mark.editor
def test_a_rename_leaves_no_buffer_unsaved(run: dict[str, Any]) -> None:
    data = step(run, "rename")
    assert data["moved"] and data["modified"] == [], data
    root = run["samples"] / "mentat" / "memory-bank"
    assert not (root / "patterns/jwt.md").exists()
    assert (root / "patterns/json-web-token.md").read_text().startswith("CONCEPT:      json-web-token")
    assert "json-web-token:" in (root / "patterns/auth.md").read_text()
    index = (root / "_index.md").read_text()
    assert "| json-web-token | patterns/json-web-token.md |" in index and "| jwt |" not in index
    # the bank on disk is whole: `ckp check` finds nothing it did not find before the rename (half
    # renamed, the moved file would declare the old concept and the index drift from the files)
    assert findings(root) <= run["findings_before"], run["findings_before"]


def test_docs_reproduce_the_snippets_and_install_the_syntax_file() -> None:
    docs = DOCS.read_text(encoding="utf-8")
    assert (HERE / "save_edits.lua").read_text(encoding="utf-8").strip() in docs
    assert "editors/vim" in docs and "after/syntax/markdown.vim" in docs
    assert "vim.opt.completeopt = { 'menuone', 'noselect', 'popup' }" in docs
