"""CONCEPT for a file without one: a readable ASCII slug of its file name, else of its title."""

from __future__ import annotations

from collections.abc import Collection

from ...language import slug
from ...language.scripts import script_of


def file_stem(path_hint: str) -> str:
    """The file name of a path without its Markdown extension."""
    hint = path_hint.replace("\\", "/").rsplit("/", 1)[-1]
    if hint.casefold().endswith((".md", ".markdown")):
        hint = hint.rsplit(".", 1)[0]
    return hint


def derive_concept(path_hint: str, title: str, taken: Collection[str], cjk: str | None = None) -> str:
    """A unique slug: `activeContext.md` → `active-context`, `caffè` → `caffe`.

    A file name in a script other than Latin is named from the title, transliterated: titles say
    more than short file names, and one in Latin letters reads better than any transliteration.
    """
    hint = file_stem(path_hint)
    latin = all(script_of(c) == "LATIN" for c in hint if c.isalpha())
    candidates = [hint, title] if latin else [title, hint]
    name = next((s for s in (slug(c, cjk) for c in candidates if c) if s), "") or "untitled"
    unique, n = name, 2
    while unique in taken:
        unique, n = f"{name}-{n}", n + 1
    return unique
