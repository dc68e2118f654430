"""vscode-client/scripts/bundle-libs.py offline: the server bundled from the packages installed for
this interpreter, with their compiled modules, importable with nothing else (`python -S`)."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

CLIENT = Path(__file__).resolve().parents[3] / "vscode-client"


def test_offline_bundle_of_this_platform_uses_the_compiled_modules(tmp_path: Path) -> None:
    out = tmp_path / "bundled" / "libs"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run(
        [sys.executable, str(CLIENT / "scripts" / "bundle-libs.py"), "--offline", "--out", str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    build = json.loads((tmp_path / "bundled" / "build.json").read_text())
    version = f"{sys.version_info[0]}.{sys.version_info[1]}"
    assert build["target"] == {"x86_64": "linux-x64", "aarch64": "linux-arm64"}[platform.machine()]
    assert build["pythons"] == [version]
    assert build["compiled"]["pyyaml"] == [version]
    assert build["compiled"]["rapidfuzz"] == [version]
    assert "(offline)" in build["source"]
    # the script's own check ran the bundle with `python -S` and found the compiled code in use
    assert f"imports OK with Python {version}: yaml compiled, rapidfuzz compiled" in proc.stdout
    # the extension modules carry their ABI tag, so other Pythons' can sit next to them
    tag = f"cpython-{sys.version_info[0]}{sys.version_info[1]}"
    assert list(out.glob(f"yaml/_yaml.{tag}-*.so"))
    assert list(out.glob(f"rapidfuzz/fuzz_cpp*.{tag}-*.so"))
    assert (out / "ckp_lsp" / "server" / "native.py").is_file()
    # byte-compiled for this Python (checked-hash: valid whatever the unpacked files' times): the
    # server's start reads every module it imports from a .pyc, compiling nothing
    assert build["bytecode"] == [version]
    pyc = out / "lsprotocol" / "__pycache__" / f"types.{tag}.pyc"
    assert int.from_bytes(pyc.read_bytes()[4:8], "little") == 0b11, "not a checked-hash .pyc"
    # and the code of the methods attrs writes for the protocol's classes, kept for this Python
    kept = (
        out / "ckp_lsp" / "server" / "__pycache__" / f"attrs-methods.{sys.implementation.cache_tag}.marshal"
    )
    from ckp_lsp.server import methods_cache

    assert len(methods_cache.load(kept)) > 500, kept
    env = {**env, "PYTHONPATH": str(out), "PYTHONDONTWRITEBYTECODE": "1"}
    proc = subprocess.run(
        [sys.executable, "-S", "-v", "-c", "import ckp_lsp.server.pygls_compat, ckp_lsp.server.handlers"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        cwd=tmp_path,  # not the repository's ckp_lsp
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    loaded = [
        line.split("from ", 1)[1].strip("'")
        for line in proc.stderr.splitlines()
        if line.startswith("# code object from")
    ]
    ours = [f for f in loaded if f.startswith(str(out))]
    assert any("/ckp_lsp/server/" in f for f in ours) and any("/pygls/" in f for f in ours), loaded
    compiled = [f for f in ours if not f.endswith(".pyc")]
    assert not compiled, f"compiled from source at start: {compiled[:20]}"
