#!/usr/bin/env python3
"""Fill vscode-client/bundled/libs with the CKP language server and its dependencies.

The .vsix then runs the server as `python3 -m ckp_lsp` with PYTHONPATH=bundled/libs, on any
platform and any Python >= 3.10, with nothing installed. To keep it portable, everything in
bundled/libs is pure Python:

1. build a wheel of the repository (the `ckp-lsp` project);
2. resolve its dependencies with pip (`--dry-run --report`), then add every requirement whose
   environment marker holds for *some* supported Python (3.10 ... 3.14), e.g. `tomli` and
   `exceptiongroup`, which the running interpreter may not need;
3. `pip install --target bundled/libs --no-deps` the resolved wheels;
4. delete compiled extension modules (*.so, *.pyd). The packages used here that ship them
   (PyYAML, RapidFuzz) fall back to their pure-Python implementations;
5. check: with `python -S` (no site-packages) and PYTHONPATH=bundled/libs, every top-level
   module imports and the server module loads.

Usage: python3 scripts/bundle-libs.py [--python PYTHON] [--repo REPO_ROOT] [--out DIR]
Needs pip and access to PyPI (or a configured index / wheel cache).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
CLIENT = HERE.parent
SUPPORTED_PYTHONS = ["3.10", "3.11", "3.12", "3.13", "3.14"]
COMPILED_SUFFIXES = (".so", ".pyd", ".dylib", ".dll")


def run(cmd: list[str], **kwargs) -> subprocess.CompletedProcess:
    print("+", " ".join(cmd), flush=True)
    return subprocess.run(cmd, check=True, **kwargs)


def pip(python: str, *args: str, **kwargs) -> subprocess.CompletedProcess:
    env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_WARN_SCRIPT_LOCATION="1")
    return run([python, "-m", "pip", *args], env=env, **kwargs)


def build_wheel(python: str, repo: Path, dest: Path) -> Path:
    pip(python, "wheel", "--quiet", "--no-deps", "--wheel-dir", str(dest), str(repo))
    wheels = sorted(dest.glob("ckp_lsp-*.whl"))
    if not wheels:
        sys.exit(f"bundle-libs: building {repo} produced no ckp_lsp wheel")
    return wheels[-1]


def resolve(python: str, requirements: list[str], work: Path) -> list[dict]:
    report = work / "report.json"
    pip(
        python,
        "install",
        "--quiet",
        "--dry-run",
        "--ignore-installed",
        "--only-binary=:all:",
        # choose versions that still support the oldest Python (Requires-Python)
        "--python-version",
        SUPPORTED_PYTHONS[0],
        "--target",
        str(work / "dry-run-target"),
        "--report",
        str(report),
        *requirements,
    )
    return json.loads(report.read_text())["install"]


def marker_requirements(installs: list[dict]) -> set[str]:
    """Requirements (as `name specifier`) that hold for at least one supported Python."""
    from pip._vendor.packaging.markers import default_environment
    from pip._vendor.packaging.requirements import Requirement

    needed: set[str] = set()
    for item in installs:
        for text in item["metadata"].get("requires_dist", []) or []:
            req = Requirement(text)
            if req.marker is not None:
                holds = False
                for version in SUPPORTED_PYTHONS:
                    env: dict[str, str] = {
                        **{k: str(v) for k, v in default_environment().items()},
                        "python_version": version,
                        "python_full_version": f"{version}.0",
                        "extra": "",
                    }
                    if req.marker.evaluate(env):
                        holds = True
                        break
                if not holds:
                    continue
            needed.add(f"{req.name}{req.specifier}")
    return needed


def canonical(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--python", default=sys.executable, help="interpreter whose pip is used")
    parser.add_argument("--repo", type=Path, default=CLIENT.parent, help="ckp-lsp project root")
    parser.add_argument("--out", type=Path, default=CLIENT / "bundled" / "libs")
    parser.add_argument(
        "--check-python",
        action="append",
        default=[],
        metavar="PYTHON",
        help="also check the imports with this interpreter (repeatable)",
    )
    args = parser.parse_args()
    out: Path = args.out.resolve()

    with tempfile.TemporaryDirectory(prefix="ckp-bundle-") as tmp:
        work = Path(tmp)
        wheel = build_wheel(args.python, args.repo.resolve(), work / "wheels")
        requirements = [str(wheel)]
        for _ in range(5):  # fixpoint: add marker-gated requirements of other Pythons
            installs = resolve(args.python, requirements, work)
            resolved = {canonical(i["metadata"]["name"]) for i in installs}
            from pip._vendor.packaging.requirements import Requirement

            missing = sorted(
                r
                for r in marker_requirements(installs)
                if canonical(Requirement(r).name) not in resolved and r not in requirements
            )
            if not missing:
                break
            print("bundle-libs: also bundling (needed on other Pythons):", ", ".join(missing))
            requirements += missing
        pins = [
            str(wheel),
            *sorted(
                f"{i['metadata']['name']}=={i['metadata']['version']}"
                for i in installs
                if canonical(i["metadata"]["name"]) != "ckp-lsp"
            ),
        ]

        if out.exists():
            shutil.rmtree(out)
        out.mkdir(parents=True)
        pip(
            args.python,
            "install",
            "--quiet",
            "--no-deps",
            "--no-compile",
            "--only-binary=:all:",
            "--target",
            str(out),
            *pins,
        )

    removed: list[str] = []
    for path in sorted(out.rglob("*")):
        if path.is_file() and path.name.endswith(COMPILED_SUFFIXES):
            removed.append(str(path.relative_to(out)))
            path.unlink()
    for junk in [out / "bin", *out.rglob("__pycache__")]:
        if junk.exists():
            shutil.rmtree(junk)
    if removed:
        print(f"bundle-libs: removed {len(removed)} compiled modules (pure-Python code is used):")
        for name in removed:
            print("   ", name)

    for python in [args.python, *args.check_python]:
        check(python, out)
    print(f"bundle-libs: {out} ready: ckp-lsp,", ", ".join(pins[1:]))


def check(python: str, out: Path) -> None:
    """Import every bundled top-level module with `python -S` (no site-packages)."""
    modules = sorted(
        p.stem if p.is_file() else p.name
        for p in out.iterdir()
        if (p.is_dir() and (p / "__init__.py").exists()) or (p.is_file() and p.suffix == ".py")
    )
    modules = [m for m in modules if m != "_yaml"]  # PyYAML's shim for its removed C extension
    if (out / "ckp_lsp" / "server" / "main.py").exists():
        modules.append("ckp_lsp.server.main")
    script = "\n".join(
        [
            "import importlib, importlib.util, sys",
            f"for name in {modules!r}:",
            "    importlib.import_module(name)",
            "if 'yaml' in sys.modules:",
            "    assert not sys.modules['yaml'].__with_libyaml__",
            "if importlib.util.find_spec('rapidfuzz'):",
            "    import rapidfuzz.fuzz",
            "    impl = rapidfuzz.fuzz.ratio.__module__",
            "    assert impl.endswith('_py'), impl",
            "print('bundle-libs: imports OK with Python', sys.version.split()[0])",
        ]
    )
    env = dict(os.environ, PYTHONPATH=str(out), PYTHONDONTWRITEBYTECODE="1")
    print(f"bundle-libs: checking imports with {python}", flush=True)
    subprocess.run([python, "-S", "-c", script], env=env, check=True)


if __name__ == "__main__":
    main()
