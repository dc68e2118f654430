"""Regular expressions compiled when first used.

A one-shot process (the prompt hook, ``ckp route``) imports many modules whose patterns it never
runs: compiling a class of every ideograph or of Hangul syllables costs more than the question
it answers. ``lazy`` gives a stand-in that compiles on first use and then costs what the pattern's
own methods do.
"""

from __future__ import annotations

import re
from typing import Any, cast


class _Lazy:
    """A pattern's stand-in: the first attribute asked compiles it."""

    def __init__(self, pattern: str, flags: int) -> None:
        self._args = (pattern, flags)

    def __getattr__(self, name: str) -> Any:
        value = getattr(re.compile(*self._args), name)
        setattr(self, name, value)  # kept: the next use finds the bound method at once
        return value

    def __repr__(self) -> str:
        return repr(re.compile(*self._args))


def lazy(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, compiled when first used."""
    return cast("re.Pattern[str]", _Lazy(pattern, flags))
