#!/usr/bin/env python3
"""Fill vscode-client/bundled/libs with the CKP language server and its dependencies.

The .vsix runs the server as `python -m ckp_lsp` with PYTHONPATH=bundled/libs and nothing
installed. Two kinds of build:

* `--target universal`: pure Python, for any platform and any Python >= 3.10. Compiled extension
  modules are deleted; PyYAML and RapidFuzz fall back to their (slower) pure-Python code.
* `--target linux-x64` (any `vsce --target` name below): the same files plus the compiled
  modules of every dependency that has them, for that platform and each supported Python minor
  version side by side. They cannot clash: an extension module's name carries its ABI tag
  (`_yaml.cpython-312-x86_64-linux-gnu.so`, `fuzz_cpp.cp313-win_amd64.pyd`), so each
  interpreter loads its own and a Python the build does not cover falls back to pure Python.

Steps:
1. copy the repository's `ckp_lsp` package and read its dependencies from pyproject.toml;
2. resolve them with pip (`--dry-run --report`, versions that still support Python 3.10), adding
   every requirement whose marker holds for *some* supported Python (`tomli`, ...);
3. layer 0, the universal build: those wheels unpacked, compiled modules deleted;
4. for a platform target, per supported Python: `pip download --only-binary=:all: --platform ...
   --python-version ... --implementation cp` of the same versions, unpacked over layer 0 (a file
   other than an extension module or wheel metadata that differs is an error: it could not be
   shared). A package without a wheel for one of them keeps its pure-Python code there;
5. write bundled/build.json (target, Pythons, which packages are compiled for which Python);
6. check with every interpreter given that can run this platform's code (`python -S`, nothing but
   bundled/libs): the server imports, and uses the compiled modules exactly where the build has
   them;
7. byte-compile the bundle with every supported Python found here (`--python`, `--check-python`,
   `python3.10` … `python3.13` on the PATH, and with `--pyenv` pyenv's builds), as checked-hash `.pyc` files (valid whatever the
   files' times after the .vsix is unpacked, and re-checked against the source): the first start
   does not compile 15 MB of Python (lsprotocol alone takes seconds), and a folder the server
   cannot write to, or `PYTHONDONTWRITEBYTECODE`, does not make every start compile it again;
   with each, the code of the methods attrs writes for the protocol's classes is kept
   (`ckp_lsp/server/methods_cache.py`: a quarter of the server's start otherwise).

Offline (`--offline`, or when pip cannot reach an index): steps 2-4 take the installed
distributions of `--python` instead, compiled modules for that interpreter's version only.

`--target universal --from-bundle DIR` makes the universal build from a platform build's
bundled/libs instead of from pip: the same files less the compiled modules (what step 3 gives, as
a platform build is layer 0 plus compiled modules only), its byte code kept, then step 6. It is
how `package.py --all` and the tests make the universal build after a platform one, without
resolving, downloading and compiling everything again.

Usage: python3 scripts/bundle-libs.py [--target TARGET] [--python PYTHON] [--offline] [--out DIR]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
CLIENT = HERE.parent
#: the Python minor versions a platform build carries compiled modules for
PYTHONS = ["3.10", "3.11", "3.12", "3.13"]
#: the versions whose marker-gated requirements are bundled (a newer Python runs pure code)
MARKER_PYTHONS = [*PYTHONS, "3.14"]


def manylinux(arch: str, newest: int = 28) -> list[str]:
    """Every manylinux tag up to glibc 2.`newest` (pip does not add the older ones itself)."""
    legacy = {17: "manylinux2014", 12: "manylinux2010", 5: "manylinux1"}
    tags = []
    for minor in range(newest, 4, -1):
        tags.append(f"manylinux_2_{minor}_{arch}")
        if minor in legacy:
            tags.append(f"{legacy[minor]}_{arch}")
    return tags


#: vsce target -> pip platform tags (for macOS pip adds the older versions itself).
#: The ceilings are VS Code's own: glibc 2.28, macOS 11 (x64: 10.15).
TARGETS = {
    "linux-x64": manylinux("x86_64"),
    "linux-arm64": manylinux("aarch64"),
    "darwin-x64": ["macosx_10_15_x86_64"],
    "darwin-arm64": ["macosx_11_0_arm64"],
    "win32-x64": ["win_amd64"],
    "win32-arm64": ["win_arm64"],
}
EXTENSION = re.compile(r"\.(so|pyd|dylib|dll)$")


def run(cmd: list[str], **kwargs) -> subprocess.CompletedProcess:
    print("+", " ".join(cmd), flush=True)
    return subprocess.run(cmd, check=True, **kwargs)


def pip(python: str, *args: str, **kwargs) -> subprocess.CompletedProcess:
    env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_WARN_SCRIPT_LOCATION="1")
    return run([python, "-m", "pip", *args], env=env, **kwargs)


def host_target() -> str:
    """This machine's vsce target, or "universal" when no platform build exists for it."""
    system = {"Linux": "linux", "Darwin": "darwin", "Windows": "win32"}.get(platform.system(), "")
    arch = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(
        platform.machine().lower(), ""
    )
    if system == "linux" and platform.libc_ver()[0] != "glibc":
        return "universal"  # musl (alpine-*): no manylinux wheels
    target = f"{system}-{arch}"
    return target if target in TARGETS else "universal"


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


# --- 1. the project --------------------------------------------------------------------------


def project(repo: Path, out: Path) -> tuple[str, list[str]]:
    """Copy `ckp_lsp` into `out`; its version and its dependencies."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        from pip._vendor import tomli as tomllib
    meta = tomllib.loads((repo / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    shutil.copytree(
        repo / "ckp_lsp", out / "ckp_lsp", ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
    )
    info = out / f"ckp_lsp-{meta['version']}.dist-info"
    info.mkdir()
    lines = [f"Metadata-Version: 2.1\nName: {meta['name']}\nVersion: {meta['version']}\n"]
    lines += [f"Requires-Dist: {req}\n" for req in meta.get("dependencies", [])]
    (info / "METADATA").write_text("".join(lines), encoding="utf-8")
    (info / "INSTALLER").write_text("ckp-lsp bundle-libs\n", encoding="utf-8")
    return meta["version"], list(meta.get("dependencies", []))


# --- 2. resolving ----------------------------------------------------------------------------


def holds_somewhere(requirement: str) -> bool:
    """Whether a requirement's marker holds for at least one supported Python (on any platform we
    ship, the marker is evaluated with this machine's other values)."""
    from pip._vendor.packaging.markers import default_environment
    from pip._vendor.packaging.requirements import Requirement

    req = Requirement(requirement)
    if req.marker is None:
        return True
    for version in MARKER_PYTHONS:
        env = {**default_environment(), "python_version": version, "python_full_version": f"{version}.0"}
        if req.marker.evaluate({**env, "extra": ""}):
            return True
    return False


def wheel_sdists(python: str, requirements: list[str], work: Path) -> Path:
    """Wheels of the requirements PyPI has no wheel for (e.g. tinysegmenter), built here into a
    folder that every later pip call also searches. They must be pure Python: a package that
    compiles could not be built for other platforms."""
    house = work / "wheelhouse"
    house.mkdir(exist_ok=True)
    report = work / "host-report.json"
    pip(
        python,
        # the first call to the index: offline, fail soon (then the build goes offline)
        "--retries",
        "1",
        "--timeout",
        "20",
        "install",
        "--quiet",
        "--dry-run",
        "--ignore-installed",
        "--prefer-binary",
        "--target",
        str(work / "dry-run-target"),
        "--report",
        str(report),
        *requirements,
    )
    for item in json.loads(report.read_text())["install"]:
        url = item.get("download_info", {}).get("url", "")
        if url.endswith(".whl"):
            continue
        name, version = item["metadata"]["name"], item["metadata"]["version"]
        print(f"bundle-libs: {name} {version} has no wheel: building one", flush=True)
        pip(python, "wheel", "--quiet", "--no-deps", "--wheel-dir", str(house), f"{name}=={version}")
    for wheel in house.glob("*.whl"):
        if not wheel.name.endswith("-none-any.whl"):
            sys.exit(f"bundle-libs: {wheel.name} compiles and has no wheels on the index: cannot bundle it")
    return house


def resolve(python: str, requirements: list[str], work: Path) -> dict[str, str]:
    """{distribution name: version} of everything `requirements` need on some supported Python."""
    from pip._vendor.packaging.requirements import Requirement

    def unmarked(text: str) -> str:  # pip evaluates markers for itself, not for --python-version
        req = Requirement(text)
        return f"{req.name}{req.specifier}"

    wanted = [unmarked(r) for r in requirements if holds_somewhere(r)]
    for _ in range(5):  # fixpoint: add marker-gated requirements of other Pythons
        report = work / "report.json"
        pip(
            python,
            "install",
            "--quiet",
            "--dry-run",
            "--ignore-installed",
            "--only-binary=:all:",
            # versions that still support the oldest Python (Requires-Python)
            "--python-version",
            PYTHONS[0],
            "--target",
            str(work / "dry-run-target"),
            "--report",
            str(report),
            "--find-links",
            str(work / "wheelhouse"),
            *wanted,
        )
        installs = json.loads(report.read_text())["install"]
        pins = {i["metadata"]["name"]: i["metadata"]["version"] for i in installs}
        have = {canonical(n) for n in pins}
        missing = sorted(
            {
                unmarked(text)
                for i in installs
                for text in i["metadata"].get("requires_dist") or []
                if holds_somewhere(text) and canonical(Requirement(text).name) not in have
            }
        )
        if not missing:
            return pins
        print("bundle-libs: also bundling (needed on other Pythons):", ", ".join(missing))
        wanted += missing
    sys.exit("bundle-libs: the requirements did not settle after 5 rounds")


# --- 3./4. wheels ----------------------------------------------------------------------------


def download(python: str, pins: dict[str, str], dest: Path, tags: list[str], version: str | None) -> None:
    args = ["download", "--quiet", "--no-deps", "--only-binary=:all:", "--dest", str(dest)]
    args += ["--find-links", str(dest.parent / "wheelhouse")]
    for tag in tags:
        args += ["--platform", tag]
    if version:
        args += ["--python-version", version, "--implementation", "cp"]
    pip(python, *args, *(f"{n}=={v}" for n, v in pins.items()))


def download_each(
    python: str, pins: dict[str, str], dest: Path, tags: list[str], version: str
) -> list[str]:
    """Download what exists; the names of the pins without a wheel for these tags."""
    try:
        download(python, pins, dest, tags, version)
        return []
    except subprocess.CalledProcessError:
        pass
    lacking = []
    for name, ver in pins.items():
        try:
            download(python, {name: ver}, dest, tags, version)
        except subprocess.CalledProcessError:
            lacking.append(name)
    return lacking


def unpack(wheel: Path, dest: Path) -> None:
    """Install a wheel's importable files into `dest` (`*.data/purelib|platlib` moved up;
    scripts, headers and data left out: nothing runs them)."""
    with zipfile.ZipFile(wheel) as z:
        for info in z.infolist():
            name = info.filename
            parts = name.split("/")
            if parts[0].endswith(".data"):
                if len(parts) < 3 or parts[1] not in ("purelib", "platlib"):
                    continue
                name = "/".join(parts[2:])
            if name.endswith("/"):
                continue
            target = dest / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(z.read(info))


def dist_of(wheel: Path) -> str:
    return canonical(wheel.name.split("-")[0])


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def same_text(a: Path, b: Path) -> bool:
    """The same file but for its line ends (wheels built on Windows may have CRLF)."""
    return a.read_bytes().replace(b"\r\n", b"\n") == b.read_bytes().replace(b"\r\n", b"\n")


def overlay(layer: Path, out: Path, label: str, owned: dict[str, str]) -> list[str]:
    """Copy a platform wheel's files (`layer`) over `out`, where the universal layer is.

    The platform's own copy of a file replaces the universal one (a Windows wheel may have CRLF
    line ends); among the platform's wheels (one per Python) extension modules are added, wheel
    metadata keeps the first copy, and any other file must be identical: one folder serves every
    Python. `owned` maps the files written so far to the wheel that wrote them. Returns the
    extension modules added."""
    added: list[str] = []
    kept: list[str] = []
    for src in sorted(p for p in layer.rglob("*") if p.is_file()):
        rel = src.relative_to(layer)
        dst = out / rel
        if EXTENSION.search(src.name):
            added.append(str(rel))
        if str(rel) in owned and digest(dst) != digest(src):
            if rel.parts[0].endswith(".dist-info") or same_text(dst, src):
                continue
            if EXTENSION.search(src.name) or src.suffix in (".py", ".pyi"):
                why = "its name has no ABI tag" if EXTENSION.search(src.name) else "one folder cannot serve both"
                sys.exit(f"bundle-libs: {rel} differs between {owned[str(rel)]} and {label}: {why}")
            # Another build's by-product (an executable, a static library: OpenCC ships both),
            # which no import loads: the first copy stays.
            kept.append(str(rel))
            continue
        owned.setdefault(str(rel), label)
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst)
    if kept:
        print(f"bundle-libs: note: {label}: the first copy kept of {len(kept)} build by-products that differ ({', '.join(kept[:3])}, …)")
    return added


def strip_compiled(out: Path) -> list[str]:
    removed = []
    for path in sorted(out.rglob("*")):
        if path.is_file() and EXTENSION.search(path.name):
            removed.append(str(path.relative_to(out)))
            path.unlink()
    return removed


def build_online(python: str, requirements: list[str], target: str, out: Path, work: Path) -> dict:
    wheel_sdists(python, requirements, work)
    pins = resolve(python, requirements, work)
    print("bundle-libs: bundling", ", ".join(f"{n} {v}" for n, v in sorted(pins.items())))
    # layer 0: this platform's wheels for the oldest Python, compiled modules deleted
    base = work / "base"
    download(python, pins, base, [], PYTHONS[0])
    for wheel in sorted(base.glob("*.whl")):
        unpack(wheel, out)
    pure = sorted({Path(p).parts[0] for p in strip_compiled(out)})
    compiled: dict[str, list[str]] = {}
    lacking: dict[str, list[str]] = {}
    if target != "universal":
        owned: dict[str, str] = {}
        for version in PYTHONS:
            wheels = work / f"{target}-{version}"
            missing = download_each(python, pins, wheels, TARGETS[target], version)
            for name in missing:
                lacking.setdefault(canonical(name), []).append(version)
            for wheel in sorted(wheels.glob("*.whl")):
                layer = work / "layer" / wheel.stem
                unpack(wheel, layer)
                if overlay(layer, out, wheel.name, owned):
                    compiled.setdefault(dist_of(wheel), []).append(version)
    return {
        "source": "PyPI (pip's index)",
        "pins": {canonical(n): v for n, v in sorted(pins.items())},
        "compiled": compiled,
        "noWheel": lacking,
        "pureFallback": pure,
    }


INSTALLED = r"""
import json, sys
from importlib import metadata
from pip._vendor.packaging.requirements import Requirement
todo, versions = json.loads(sys.argv[1]), json.loads(sys.argv[2])
seen, out, absent = set(), [], []
while todo:
    req = Requirement(todo.pop())
    here = req.marker is None or req.marker.evaluate({"extra": ""})
    if not here and not any(
        req.marker.evaluate({"extra": "", "python_version": v, "python_full_version": v + ".0"})
        for v in versions
    ):
        continue
    key = req.name.lower().replace("_", "-")
    if key in seen:
        continue
    seen.add(key)
    try:
        dist = metadata.distribution(req.name)
    except metadata.PackageNotFoundError:
        if here:
            raise
        absent.append(str(req))  # needed by another Python only (a backport), not installed here
        continue
    base = str(dist.locate_file(""))
    files = [str(f) for f in dist.files or [] if not str(f).startswith("..")]
    out.append({"name": dist.metadata["Name"], "version": dist.version, "base": base, "files": files})
    todo += dist.requires or []
print(json.dumps({"version": "%d.%d" % sys.version_info[:2], "dists": out, "absent": absent}))
"""


def build_offline(python: str, requirements: list[str], target: str, out: Path) -> dict:
    """The installed distributions of `python`: compiled modules for its version only."""
    proc = subprocess.run(
        [python, "-c", INSTALLED, json.dumps(requirements), json.dumps(MARKER_PYTHONS)],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        sys.exit(
            f"bundle-libs: offline, the dependencies are taken from the packages installed for {python}, "
            f"and that failed:\n{proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else proc.returncode}\n"
            "Install the project's dependencies for that interpreter (or pass --python), or build online."
        )
    found = json.loads(proc.stdout)
    compiled: dict[str, list[str]] = {}
    pure: set[str] = set()
    for dist in found["dists"]:
        has_ext = False
        for rel in dist["files"]:
            src = Path(dist["base"]) / rel
            if "__pycache__" in Path(rel).parts or not src.is_file():
                continue
            if EXTENSION.search(rel):
                has_ext = True
                pure.add(Path(rel).parts[0])
                if target == "universal":
                    continue
            (out / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, out / rel)
        if has_ext and target != "universal":
            compiled[canonical(dist["name"])] = [found["version"]]
    others = [v for v in PYTHONS if v != found["version"]]
    print(
        f"bundle-libs: offline build from the packages installed for Python {found['version']}; "
        f"Python {', '.join(others)} will use pure-Python code"
    )
    if found["absent"]:
        print(
            "bundle-libs: WARNING: not installed here, so not bundled (needed by other Pythons only): "
            + ", ".join(found["absent"])
        )
    return {
        "pythons": [found["version"]],
        "missing": found["absent"],
        "source": f"packages installed for Python {found['version']} (offline)",
        "pins": {canonical(d["name"]): d["version"] for d in found["dists"]},
        "compiled": compiled,
        "noWheel": {},
        "pureFallback": sorted(pure),
    }


# --- 6. checking -----------------------------------------------------------------------------

CHECK = r"""
import importlib, json, sys
failed = {}
for name in json.loads(sys.argv[1]):
    try:
        importlib.import_module(name)
    except Exception as exc:
        failed[name] = f"{type(exc).__name__}: {exc}"
import ckp_lsp.server.main
from ckp_lsp.server import native
print(json.dumps({"python": "%d.%d" % sys.version_info[:2], "native": native.compiled(), "failed": failed}))
"""


def check(python: str, out: Path, build: dict) -> None:
    """Import every bundled top-level module with `python -S` (no site-packages) and compare the
    compiled modules in use with what the build promises for that Python."""
    modules = sorted(
        p.stem if p.is_file() else p.name
        for p in out.iterdir()
        if (p.is_dir() and (p / "__init__.py").exists()) or (p.is_file() and p.suffix == ".py")
    )
    modules = [m for m in modules if m != "_yaml"]  # PyYAML's shim of an old module name
    env = dict(os.environ, PYTHONPATH=str(out), PYTHONDONTWRITEBYTECODE="1")
    env.pop("PYTHONHOME", None)
    print(f"bundle-libs: checking imports with {python}", flush=True)
    proc = subprocess.run(
        [python, "-S", "-c", CHECK, json.dumps(modules)], env=env, capture_output=True, text=True
    )
    if proc.returncode != 0:
        sys.exit(f"bundle-libs: the bundle does not import with {python}:\n{proc.stderr}")
    seen = json.loads(proc.stdout.strip().splitlines()[-1])
    version = seen["python"]
    # A package that is compiled code only (no pure-Python fallback) cannot run from the
    # universal build: said, and listed in build.json. Anywhere else every module must import.
    broken = {m: why for m, why in seen["failed"].items() if not (build["target"] == "universal" and m in build["pureFallback"])}
    if broken:
        sys.exit(f"bundle-libs: with Python {version}, these bundled modules do not import: {broken}")
    for module, why in sorted(seen["failed"].items()):
        print(f"bundle-libs: WARNING: {module} is compiled code only and does not run from this build ({why})")
        build.setdefault("unavailable", []).append(module) if module not in build.get("unavailable", []) else None
    for module, dist in (("yaml", "pyyaml"), ("rapidfuzz", "rapidfuzz")):
        if module not in seen["native"]:
            continue
        promised = version in build["compiled"].get(dist, [])
        if seen["native"][module] != promised:
            sys.exit(
                f"bundle-libs: with Python {version}, {module} runs "
                f"{'compiled' if seen['native'][module] else 'pure-Python'} code, but the build "
                f"({build['target']}) {'has' if promised else 'has no'} compiled modules for it"
            )
    state = ", ".join(f"{m} {'compiled' if c else 'pure Python'}" for m, c in seen["native"].items())
    print(f"bundle-libs: imports OK with Python {version}: {state}")


def pythons_here(pyenv: bool = False) -> list[str]:
    """The interpreters of PYTHONS this machine may have: `python3.X` on the PATH, and with
    `pyenv` pyenv's builds of 3.X (newest first), whose shims run only where a `.python-version`
    selects them. `byte_compile` keeps the first that runs of each version."""
    found = [p for v in PYTHONS if (p := shutil.which(f"python{v}"))]
    if not pyenv:
        return found
    root = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv") / "versions"
    for version in PYTHONS:
        builds = sorted(root.glob(f"{version}.*/bin/python{version}"), key=lambda p: [int(n) for n in re.findall(r"\d+", p.parts[-3])], reverse=True)
        found += [str(p) for p in builds]
    return found


def byte_compile(out: Path, pythons: list[str], versions: list[str]) -> list[str]:
    """``.pyc`` files of everything in ``out`` for each interpreter (one per minor version of
    ``versions``, the build's); the versions compiled for."""
    done: list[str] = []
    for python in pythons:
        try:
            version = subprocess.run(
                [python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            continue
        if version in done or version not in versions:
            continue
        # -q -q: only errors; a module that does not compile for this Python (another version's
        # code) is left without a .pyc, and says so here
        proc = subprocess.run(
            [python, "-m", "compileall", "-q", "-q", "-j", "0", "--invalidation-mode", "checked-hash", str(out)],
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            print(f"bundle-libs: WARNING: Python {version} could not compile some files:\n{proc.stdout[-2000:]}")
        # and the methods attrs writes for the protocol's classes (ckp_lsp/server/methods_cache.py)
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONHOME")}
        proc = subprocess.run(
            [python, "-S", "-m", "ckp_lsp.server.methods_cache"],
            env={**env, "PYTHONPATH": str(out)},
            cwd=out,
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            print(f"bundle-libs: WARNING: Python {version} could not keep attrs's methods:\n{proc.stderr[-2000:]}")
        done.append(version)
        print(f"bundle-libs: byte-compiled for Python {version} ({python})", flush=True)
    return done


def from_bundle(source: Path, out: Path, checkers: list[str]) -> None:
    """The universal build made from the platform build in ``source`` (a bundled/libs folder with
    its build.json beside it): its files less the compiled modules, byte code kept, then checked."""
    try:
        platform_build = json.loads((source.parent / "build.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        sys.exit(f"bundle-libs: {source.parent / 'build.json'} cannot be read ({exc}): is {source} a bundle?")
    if platform_build.get("target") in (None, "universal"):
        sys.exit(f"bundle-libs: {source} is not a platform build (target {platform_build.get('target')!r})")
    with tempfile.TemporaryDirectory(prefix="ckp-bundle-") as tmp:
        staged = Path(tmp) / "libs"  # ``source`` may be ``out`` itself
        shutil.copytree(source, staged, symlinks=True)
        if out.exists():
            shutil.rmtree(out)
        shutil.move(str(staged), out)
    stripped = strip_compiled(out)
    # the packages that lost compiled code (a top-level helper module of compiled code is no package)
    pure = sorted({Path(p).parts[0] for p in stripped if len(Path(p).parts) > 1})
    build = {
        "target": "universal",
        "ckpLsp": platform_build["ckpLsp"],
        "pythons": [],
        "source": platform_build.get("source", ""),
        "pins": platform_build.get("pins", {}),
        "compiled": {},
        "noWheel": {},
        "pureFallback": pure,
        "madeFrom": platform_build["target"],
    }
    print(f"bundle-libs: universal build from the {platform_build['target']} bundle in {source}")
    print("bundle-libs: compiled modules removed (pure-Python code is used):", ", ".join(pure))
    for python in checkers:
        check(python, out, build)
    build["bytecode"] = platform_build.get("bytecode", [])
    (out.parent / "build.json").write_text(json.dumps(build, indent=2) + "\n", encoding="utf-8")
    print(f"bundle-libs: {out} ready (universal): ckp-lsp {build['ckpLsp']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--target",
        default="host",
        choices=["host", "universal", *TARGETS],
        help="vsce target; host: this machine's (default), universal: pure Python",
    )
    parser.add_argument("--python", default=sys.executable, help="interpreter whose pip is used")
    parser.add_argument("--repo", type=Path, default=CLIENT.parent, help="ckp-lsp project root")
    parser.add_argument("--out", type=Path, default=CLIENT / "bundled" / "libs")
    parser.add_argument(
        "--offline",
        action="store_true",
        help="take the dependencies installed for --python instead of asking pip's index",
    )
    parser.add_argument(
        "--check-python",
        action="append",
        default=[],
        metavar="PYTHON",
        help="also check the imports with this interpreter (repeatable)",
    )
    parser.add_argument(
        "--from-bundle",
        type=Path,
        metavar="DIR",
        help="with --target universal: a platform build's bundled/libs to strip instead of asking pip",
    )
    parser.add_argument(
        "--pyenv",
        action="store_true",
        help="also byte-compile with pyenv's builds of the supported Pythons (a release build; "
        "each adds a compile of the whole bundle to the build's time)",
    )
    args = parser.parse_args()
    target = host_target() if args.target == "host" else args.target
    out: Path = args.out.resolve()
    if args.from_bundle is not None:
        if target != "universal":
            sys.exit("bundle-libs: --from-bundle makes the universal build only (--target universal)")
        from_bundle(args.from_bundle.resolve(), out, [args.python, *args.check_python])
        return
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)

    version, requirements = project(args.repo.resolve(), out)
    with tempfile.TemporaryDirectory(prefix="ckp-bundle-") as tmp:
        build = None
        if not args.offline:
            try:
                build = build_online(args.python, requirements, target, out, Path(tmp))
            except subprocess.CalledProcessError as exc:
                if target != host_target() and target != "universal":
                    sys.exit(f"bundle-libs: pip failed ({exc}); a build for {target} needs pip's index")
                print(f"bundle-libs: pip failed ({exc}): building offline instead", flush=True)
                shutil.rmtree(out)
                out.mkdir(parents=True)
                project(args.repo.resolve(), out)
        if build is None:
            build = build_offline(args.python, requirements, target, out)
    for junk in [out / "bin", *out.rglob("__pycache__")]:
        if junk.exists():
            shutil.rmtree(junk)
    build = {"target": target, "ckpLsp": version, "pythons": PYTHONS if target != "universal" else [], **build}
    if target == "universal":
        build["compiled"] = {}
    if build["pureFallback"] and target == "universal":
        print("bundle-libs: compiled modules removed (pure-Python code is used):", ", ".join(build["pureFallback"]))
    for dist, versions in sorted(build["compiled"].items()):
        print(f"bundle-libs: {dist}: compiled for Python {', '.join(versions)}")
    for dist, versions in sorted(build["noWheel"].items()):
        print(
            f"bundle-libs: {dist}: no {target} wheel for Python {', '.join(versions)}: its pure-Python "
            "code runs there, if it has any"
        )

    checkers = [args.python, *args.check_python]
    for python in checkers:
        if target in ("universal", host_target()):
            check(python, out, build)
    # for the Pythons the build is for (an offline one: this Python's only; universal: any)
    build["bytecode"] = byte_compile(out, [*checkers, *pythons_here(args.pyenv)], build["pythons"] or PYTHONS)
    (out.parent / "build.json").write_text(json.dumps(build, indent=2) + "\n", encoding="utf-8")
    print(f"bundle-libs: {out} ready ({target}): ckp-lsp {version},", ", ".join(f"{n} {v}" for n, v in build["pins"].items()))


if __name__ == "__main__":
    main()
