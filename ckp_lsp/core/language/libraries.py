"""The optional libraries behind the language package, and which of them cannot load here.

Each library is imported on first use. Where one cannot be imported (not installed, or a compiled
library without its compiled module for this Python and platform: the VS Code extension's
universal build, Windows on arm64) its feature falls back to a simpler method instead of failing:

- ``rjieba`` (Chinese words): each run of ideographs becomes its overlapping pairs of characters
  (``用户认证`` → ``用户``, ``户认``, ``认证``), on a keyword and a query alike, so they still meet;
- ``opencc`` (Traditional Chinese): no folding to Simplified; Traditional text is cut as it is and
  its stop words are the Simplified list only;
- ``tinysegmenter`` (Japanese words): pairs of characters as for Chinese;
- ``sentencex`` (sentences): a split after ``.!?`` followed by a space or the end, and after
  ``。！？``;
- ``anyascii`` (ASCII names): Unicode decomposition without accents (``caffè`` → ``caffe``), other
  scripts dropped;
- ``pykakasi`` (Japanese names): Japanese is spelled as Chinese is (by ``anyascii``);
- ``snowballstemmer`` (word forms): no stems; a query matches the forms a keyword is written in
  (and its ``s``/``es`` plurals);
- ``stopwordsiso`` (stop words): no stop words.

A failure is remembered (each loader is cached) and reported by ``missing_libraries``, once, by the
face that shows it (the language server's start-up log).
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os

#: Every library the package uses, with its compiled module (package-relative, no suffix) if any.
LIBRARIES: dict[str, str | None] = {
    "anyascii": None,
    "opencc": "clib/opencc_clib",
    "pykakasi": None,
    "rjieba": "rjieba",
    "sentencex": "sentencex",
    "snowballstemmer": None,
    "stopwordsiso": None,
    "tinysegmenter": None,
}
#: What each library does, for the message that names it.
PURPOSE = {
    "anyascii": "ASCII names",
    "opencc": "Traditional Chinese",
    "pykakasi": "Japanese names",
    "rjieba": "Chinese words",
    "sentencex": "sentences",
    "snowballstemmer": "word forms",
    "stopwordsiso": "stop words",
    "tinysegmenter": "Japanese words",
}
#: Errors that mean a library cannot load (a compiled module absent, or one for another platform).
LOAD_ERRORS = (ImportError, OSError)

_failed: set[str] = set()


def failed(name: str) -> None:
    """Record that a library failed to load (its loader then uses the fallback)."""
    _failed.add(name)


def _loadable(name: str) -> bool:
    """Whether a library looks importable, found without importing it: the package is there and so
    is its compiled module for this interpreter."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return False
    if spec is None:
        return False
    compiled = LIBRARIES.get(name)
    if compiled is None:
        return True
    folders = list(spec.submodule_search_locations or [])
    return any(
        os.path.exists(os.path.join(folder, compiled + suffix))
        for folder in folders
        for suffix in importlib.machinery.EXTENSION_SUFFIXES
    )


def missing_libraries() -> list[str]:
    """The libraries that failed to load, or would: sorted names, [] when all are usable.

    Cheap (nothing is imported): the language server logs it once at start-up.
    """
    return sorted(name for name in LIBRARIES if name in _failed or not _loadable(name))


def describe_missing() -> str:
    """One line for a log: the missing libraries and what falls back, or '' when none is."""
    missing = missing_libraries()
    if not missing:
        return ""
    names = ", ".join(f"{name} ({PURPOSE[name]})" for name in missing)
    return f"language libraries missing, simpler fallbacks in use: {names}"
