#!/usr/bin/env python3
"""Build the extension's .vsix files: bundle-libs.py for a target, then `vsce package --target`.

    python3 scripts/package.py            # this machine's platform (npm run package)
    python3 scripts/package.py --all      # every platform and the universal one (npm run package:all)
    python3 scripts/package.py --target universal [--target win32-x64 ...]
    python3 scripts/package.py --target universal --from-bundle DIR   # from a platform build's bundle

A universal build that follows a platform build in the same run is made from that build's bundle
(bundle-libs.py --from-bundle): its files less the compiled modules.

The .vsix files are written to vscode-client/ as ckp-lsp-<target>-<version>.vsix (the universal
one: ckp-lsp-<version>.vsix). out/extension.js must be built first (npm run package does).
Every build other than this machine's needs pip's index (PyPI); this machine's falls back to the
installed packages when offline (see bundle-libs.py).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CLIENT = HERE.parent
BUNDLE = HERE / "bundle-libs.py"


def load_bundle_libs():  # the file name has a dash: load it by path
    import importlib.util

    spec = importlib.util.spec_from_file_location("bundle_libs", BUNDLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def vsix_name(target: str, version: str) -> str:
    return f"ckp-lsp-{version}.vsix" if target == "universal" else f"ckp-lsp-{target}-{version}.vsix"


def main() -> None:
    bundle_libs = load_bundle_libs()
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--target", action="append", choices=["host", "universal", *bundle_libs.TARGETS])
    parser.add_argument("--all", action="store_true", help="every platform target and the universal build")
    parser.add_argument("--offline", action="store_true", help="passed to bundle-libs.py")
    parser.add_argument("--python", default=sys.executable, help="passed to bundle-libs.py")
    args, extra = parser.parse_known_args()
    targets = [*bundle_libs.TARGETS, "universal"] if args.all else (args.target or ["host"])
    targets = [bundle_libs.host_target() if t == "host" else t for t in targets]
    version = json.loads((CLIENT / "package.json").read_text())["version"]
    vsce = CLIENT / "node_modules" / ".bin" / ("vsce.cmd" if os.name == "nt" else "vsce")
    if not (CLIENT / "out" / "extension.js").exists():
        sys.exit("package: out/extension.js is missing: run `npm run package` (or `node esbuild.js --production`)")
    built = []
    # the universal build last: made from a platform build's bundle when one was made before it
    targets = [t for t in targets if t != "universal"] + [t for t in targets if t == "universal"]
    for n, target in enumerate(targets):
        t0 = time.monotonic()
        cmd = [sys.executable, str(BUNDLE), "--target", target, "--python", args.python, *extra]
        if target == "universal" and n > 0 and "--from-bundle" not in extra:
            cmd += ["--from-bundle", str(CLIENT / "bundled" / "libs")]
        if args.offline:
            cmd.append("--offline")
        subprocess.run(cmd, check=True, cwd=CLIENT)
        out = CLIENT / vsix_name(target, version)
        cmd = [str(vsce), "package", "--no-dependencies", "--out", str(out)]
        if target != "universal":
            cmd += ["--target", target]
        print("+", " ".join(cmd), flush=True)
        subprocess.run(cmd, check=True, cwd=CLIENT)
        built.append(f"{out.name} ({out.stat().st_size / 1e6:.1f} MB, {time.monotonic() - t0:.0f} s)")
    print("package: built", "; ".join(built))


if __name__ == "__main__":
    main()
