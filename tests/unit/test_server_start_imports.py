"""What the language server imports before its first findings: what they need, and not the
features' modules (imported by the warm-up after them, or when first asked)."""

from __future__ import annotations

import importlib
import importlib.metadata
import json
import subprocess
import sys

from ckp_lsp.server import pygls_compat, startup

#: what ``ckp-lsp`` imports before it serves (server/main.py)
START = "import ckp_lsp.server.pygls_compat, ckp_lsp.server.handlers"
#: modules the first findings do not need: the router, the features, the fuzzy matcher, the
#: language libraries, importlib.metadata (which imports the email package), and what writing a
#: file takes (tempfile, with shutil and the compressors it imports; ctypes for the swap) or
#: installing git's merge driver (shlex)
NOT_AT_START = [
    *startup.FEATURES,
    "rapidfuzz",
    "ckp_lsp.core.language.libraries",
    "importlib.metadata",
    "email",
    "tempfile",
    "shutil",
    "bz2",
    "lzma",
    "ctypes",
    "shlex",
]


def loaded_after(code: str) -> set[str]:
    script = f"import json, sys\n{code}\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    return set(json.loads(out.stdout.splitlines()[-1]))


def test_the_start_imports_none_of_the_features_modules() -> None:
    loaded = loaded_after(START)
    assert "ckp_lsp.server.handlers.hover" in loaded  # every handler is registered
    assert "ckp_lsp.server.diagnostics" in loaded
    assert [m for m in NOT_AT_START if m in loaded] == []


def test_the_warm_up_imports_modules_that_exist() -> None:
    for name in startup.FEATURES:
        assert importlib.import_module(name).__name__ == name


def test_the_pygls_version_is_read_as_importlib_metadata_reads_it() -> None:
    assert importlib.metadata.version("pygls") == pygls_compat.PYGLS
