"""The methods attrs writes for the protocol's classes, compiled once and kept beside the byte code.

Importing ``lsprotocol.types`` makes attrs write the source of the methods of its 550 classes
(``__init__``, ``__eq__``, ...) and compile each: about a quarter of the server's start. A code
object depends only on its source, its file name, the compiler's flags and the interpreter's
version, so the ones compiled at one start are kept in a file (``marshal``, as ``.pyc`` files keep
code) and the next start takes them from it instead of compiling the same source again. The file
is written where Python writes the package's byte code, unless Python writes none
(``PYTHONDONTWRITEBYTECODE``); the .vsix ships it with its byte code. A source it does not hold
is compiled as before, and an attrs that no longer compiles through ``_compile_and_eval`` is left
alone.
"""

from __future__ import annotations
import __future__

import builtins
import contextlib
import marshal
import os
import sys
from collections.abc import Iterator
from importlib.util import MAGIC_NUMBER
from pathlib import Path
from typing import Any

#: the file of this interpreter's version (its header is the interpreter's byte-code magic number)
FILE = Path(__file__).parent / "__pycache__" / f"attrs-methods.{sys.implementation.cache_tag}.marshal"

Key = tuple[str, str, str]  # (source, file name, mode), as attrs passes them to compile()


def load(path: Path) -> dict[Key, Any]:
    """The code objects kept in ``path``; none when it is missing, unreadable or of another Python."""
    try:
        data = path.read_bytes()
    except OSError:
        return {}
    if not data.startswith(MAGIC_NUMBER):
        return {}
    try:
        codes = marshal.loads(data[len(MAGIC_NUMBER) :])
    except (EOFError, ValueError, TypeError):
        return {}
    return codes if isinstance(codes, dict) else {}


def save(path: Path, codes: dict[Key, Any]) -> None:
    """Write ``codes`` to ``path`` (atomically); a folder that cannot be written is no error."""
    if sys.dont_write_bytecode:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        part = path.with_name(f"{path.name}.{os.getpid()}.part")
        part.write_bytes(MAGIC_NUMBER + marshal.dumps(codes))
        os.replace(part, path)
    except (OSError, ValueError):
        with contextlib.suppress(OSError, UnboundLocalError):
            part.unlink()


@contextlib.contextmanager
def kept(path: Path = FILE) -> Iterator[dict[str, int]]:
    """While in it, attrs takes the code of the methods it writes from ``path`` when it holds
    them, and compiles the rest; on leaving, ``path`` is rewritten if anything was compiled.
    Yields counts (``kept``, ``compiled``), filled on leaving."""
    counts = {"kept": 0, "compiled": 0}
    try:
        from attr import _make
    except ImportError:
        yield counts
        return
    if not callable(getattr(_make, "_compile_and_eval", None)) or "compile" in vars(_make):
        yield counts
        return
    known = load(path)
    used: dict[Key, Any] = {}
    # the future statements of attrs's own module: compile() there inherits them
    flags = sum(v.compiler_flag for v in vars(_make).values() if isinstance(v, __future__._Feature))

    def compile_kept(source: Any, filename: Any, mode: Any, *args: Any, **kwargs: Any) -> Any:
        if (
            args
            or kwargs
            or not (isinstance(source, str) and isinstance(filename, str) and isinstance(mode, str))
        ):
            return builtins.compile(source, filename, mode, *args, **kwargs)
        key = (source, filename, mode)
        code = known.get(key)
        if code is None:
            code = builtins.compile(source, filename, mode, flags, True)
            counts["compiled"] += 1
        else:
            counts["kept"] += 1
        used[key] = code
        return code

    # A global of attrs's module, found before the builtin: only attrs's compile() calls come here.
    _make.compile = compile_kept  # type: ignore[attr-defined]
    try:
        yield counts
    finally:
        del _make.compile  # type: ignore[attr-defined]
    # Rewritten when much was compiled (the first start, another attrs or lsprotocol), with what
    # this start used: sources of an older version do not pile up. A few are compiled at every
    # start (a class whose source lists a set, in an order that changes from one start to another).
    if counts["compiled"] > counts["kept"] // 20:
        save(path, used)


def warm(path: Path = FILE) -> dict[str, int]:
    """Import what the server imports at start, keeping the methods' code in ``path`` (the .vsix
    build runs it for each Python it byte-compiles for)."""
    with kept(path) as counts:
        from . import pygls_compat  # noqa: F401
        from .factory import create_server

        create_server()
    return counts


if __name__ == "__main__":
    print(warm())
