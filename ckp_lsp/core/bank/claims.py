"""Keyword claims: which files claim each ANSWERS_WHEN keyword (SPEC §4's claim limit), kept as files come and go."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any


class Claims(Mapping[str, "set[str]"]):
    """Keyword (casefolded) -> the files that claim it.

    Most keywords are claimed by one file: that one is held as its path alone, not in a set
    (sets would be a third of a large bank's memory); reading gives a set either way. ``many``
    holds the keywords claimed by two files or more, for the checks to look at first.
    """

    __slots__ = ("many", "one")

    def __init__(self) -> None:
        self.one: dict[str, str] = {}
        self.many: dict[str, set[str]] = {}

    def __getitem__(self, keyword: str) -> set[str]:
        found = self.many.get(keyword)
        return found if found is not None else {self.one[keyword]}

    def get(self, keyword: str, default: Any = None) -> Any:
        found = self.many.get(keyword)
        if found is not None:
            return found
        path = self.one.get(keyword)
        return default if path is None else {path}

    def __contains__(self, keyword: object) -> bool:
        return keyword in self.one or keyword in self.many

    def __iter__(self) -> Iterator[str]:
        yield from self.one
        yield from self.many

    def __len__(self) -> int:
        return len(self.one) + len(self.many)

    def count(self, keyword: str) -> int:
        """How many files claim ``keyword``."""
        found = self.many.get(keyword)
        return len(found) if found is not None else 1 if keyword in self.one else 0

    def add(self, keyword: str, path: str) -> None:
        found = self.many.get(keyword)
        if found is not None:
            found.add(path)
            return
        sole = self.one.setdefault(keyword, path)
        if sole != path:
            del self.one[keyword]
            self.many[keyword] = {sole, path}

    def discard(self, keyword: str, path: str) -> None:
        found = self.many.get(keyword)
        if found is None:
            if self.one.get(keyword) == path:
                del self.one[keyword]
            return
        found.discard(path)
        if len(found) == 1:
            del self.many[keyword]
            self.one[keyword] = next(iter(found))
