"""The code of the methods attrs writes, kept from one start to the next (server/methods_cache.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from attr import _make

from ckp_lsp.server import methods_cache

CLASSES = """
from __future__ import annotations
import attrs

@attrs.define
class Position:
    line: int
    character: int = 0

@attrs.define
class Range:
    start: Position
    end: Position
"""

USE = """
import json, sys
from ckp_lsp.server import methods_cache
with methods_cache.kept(methods_cache.Path(sys.argv[1])) as counts:
    import classes
a = classes.Range(classes.Position(1, 2), classes.Position(3))
b = classes.Range(classes.Position(1, 2), classes.Position(3, 0))
print(json.dumps({**counts, "repr": repr(a), "equal": a == b, "other": a == classes.Range(a.start, a.start),
                  "annotations": classes.Position.__init__.__annotations__}))
"""


def start(tmp_path: Path, cache: Path, **env: str) -> dict:
    """One process importing the attrs classes with the methods kept in ``cache``."""
    (tmp_path / "classes.py").write_text(CLASSES)
    environ = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    environ["PYTHONPATH"] = os.pathsep.join([str(tmp_path), str(Path(methods_cache.__file__).parents[2])])
    environ.update(env)
    out = subprocess.run([sys.executable, "-c", USE, str(cache)], env=environ, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.splitlines()[-1])


def test_the_second_start_takes_the_methods_from_the_file_and_they_behave_the_same(tmp_path: Path) -> None:
    cache = tmp_path / "__pycache__" / "attrs-methods.marshal"
    first = start(tmp_path, cache)
    assert first["kept"] == 0 and first["compiled"] > 0
    assert cache.is_file()
    second = start(tmp_path, cache)
    assert second["compiled"] == 0 and second["kept"] == first["compiled"]
    for key in ("repr", "equal", "other", "annotations"):
        assert second[key] == first[key], key
    assert first["repr"] == "Range(start=Position(line=1, character=2), end=Position(line=3, character=0))"
    assert first["equal"] and not first["other"]
    assert first["annotations"] == {"line": "int", "character": "int", "return": None}


def test_without_byte_code_written_no_file_is_written(tmp_path: Path) -> None:
    cache = tmp_path / "__pycache__" / "attrs-methods.marshal"
    assert start(tmp_path, cache, PYTHONDONTWRITEBYTECODE="1")["compiled"] > 0
    assert not cache.exists()


def test_a_file_of_another_python_or_damaged_is_ignored(tmp_path: Path) -> None:
    other = tmp_path / "other.marshal"
    other.write_bytes(b"\x00\x00\r\n" + b"garbage")
    assert methods_cache.load(other) == {}
    damaged = tmp_path / "damaged.marshal"
    damaged.write_bytes(methods_cache.MAGIC_NUMBER + b"\xff\x00")
    assert methods_cache.load(damaged) == {}
    assert methods_cache.load(tmp_path / "missing.marshal") == {}
    # and the start still works, compiling: the file is then rewritten
    assert start(tmp_path, damaged)["compiled"] > 0
    assert methods_cache.load(damaged)


def test_attrs_compiles_with_the_builtin_again_once_the_start_is_over(tmp_path: Path) -> None:
    with methods_cache.kept(tmp_path / "x.marshal"):
        assert "compile" in vars(_make)
    assert "compile" not in vars(_make)
