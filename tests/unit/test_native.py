"""The server's start-up report of which dependencies run compiled code (server/native.py)."""

from __future__ import annotations

import os
import subprocess
import sys

from ckp_lsp.server import native


def test_compiled_modules_of_this_environment_are_reported_in_use() -> None:
    # the test environment installs PyYAML and RapidFuzz from their compiled wheels
    assert native.compiled() == {"yaml": True, "rapidfuzz": True}
    line = native.describe()
    assert "compiled modules in use: yaml, rapidfuzz" in line
    assert "pure-Python" not in line


def test_the_pure_python_fallback_is_reported_with_its_cost() -> None:
    # As in a bundle without compiled modules: PyYAML's C module cannot be imported and
    # RapidFuzz is told to use its Python implementation.
    script = (
        "import sys\n"
        "sys.modules['yaml._yaml'] = None\n"
        "from ckp_lsp.server import native\n"
        "print(native.compiled())\n"
        "print(native.describe())\n"
    )
    env = dict(os.environ, RAPIDFUZZ_IMPLEMENTATION="python")
    out = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert out[0] == "{'yaml': False, 'rapidfuzz': False}"
    assert "pure-Python fallback (no compiled module for this Python and platform): yaml, rapidfuzz" in out[1]
    assert "reading a bank at start is slower (YAML front matter about 8×" in out[1]
    assert "compiled modules in use" not in out[1]
