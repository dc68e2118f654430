"""Whether the compiled modules of the server's dependencies are in use, for its start-up log.

PyYAML and RapidFuzz both run without their compiled modules, on pure-Python code that reads a
large bank several times slower. A server bundled without them (or for another Python) still
works, so the log says which code runs. The language libraries (Chinese and Japanese words,
sentences, ASCII names) fall back to simpler methods where they cannot load; the log names those.
"""

from __future__ import annotations

import platform
import sys


def compiled() -> dict[str, bool]:
    """``{"yaml": True, "rapidfuzz": True}``: True where the compiled code is in use."""
    out: dict[str, bool] = {}
    try:
        import yaml

        out["yaml"] = bool(getattr(yaml, "__with_libyaml__", False)) and hasattr(yaml, "CSafeLoader")
    except ImportError:
        pass
    try:
        from rapidfuzz import fuzz

        # the C++ backend's functions live in fuzz_cpp*, the fallback's in fuzz_py
        out["rapidfuzz"] = not fuzz.ratio.__module__.endswith("_py")
    except ImportError:
        pass
    return out


def describe(state: dict[str, bool] | None = None) -> str:
    """One line: the interpreter and which dependencies run compiled code (``state``: what
    ``compiled`` found, when it was asked already)."""
    state = compiled() if state is None else state
    python = f"{platform.python_implementation()} {platform.python_version()} ({sys.executable})"
    fast = [name for name, on in state.items() if on]
    slow = [name for name, on in state.items() if not on]
    parts = []
    if fast:
        parts.append("compiled modules in use: " + ", ".join(fast))
    if slow:
        parts.append(
            "pure-Python fallback (no compiled module for this Python and platform): "
            + ", ".join(slow)
            + "; reading a bank at start is slower (YAML front matter about 8×, bare headers about 1.2×)"
        )
    return f"{python}; " + "; ".join(parts)


def describe_languages() -> str:
    """One line naming the language libraries that cannot load here and fall back, or ''.

    Imported here, not at the top: the language package is not needed before the first bank.
    """
    from ..core.language.libraries import describe_missing

    return describe_missing()
