"""Keywords tried on the bank's own text: each passage of a body stands for a question on its file.

The index pattern (SPEC §6a) loads the three files with the most matching keywords. A keyword list
chosen one file at a time cannot see the others': a word it takes may win another file's questions,
one it lacks may leave its own to others. So each passage of every body (a paragraph, a list item or
a table row, with its section's heading) is routed as the index pattern would route it, over every
file's keywords, and each file in turn swaps its weakest compiled keyword for one of its next
candidates, or takes one more where it has fewer than 20, when that routes more passages of the
bank to their own file, counted over the whole bank: a passage a change takes from another file
counts against it. Measured on fifteen real banks with their questions, index-mode recall 84 → 90 of
120 (passages of 3 words or more: 88; of 5: 88, of 6: 89; 40 candidates tried: 20 or 80 gave 84).

Kept keywords (an author's, a complete header's) and the concept are never swapped, only counted.
Deterministic: files in path order, ties to the candidate ranked first.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from ckp_lsp.core.format.limits import MAX_KEYWORDS, MAX_PRIMARY

from .text import Block

_WEAKEST = 8  # compiled keywords a file may give up, the lowest ranked first
_ROUNDS = 2
_SWAPS = 4  # changes per file and round
_MIN_KEYS = 4  # a passage with fewer words (its heading's among them) asks nothing
#: the files' scores looked at (``_Bank.routed``) before the trials stop, the files not reached yet
#: keeping their ranked keywords: a few seconds at most. Fifteen real banks of 6 to 73 files needed
#: 15,000 to 9.7 million; a generated bank of 300 files of one vocabulary, far more.
WORK = 20_000_000
#: a bank of more files is not tried: the cost grows with the files times the passages
MAX_FILES = 200


@dataclass
class Trial:
    """One file as the trials see it."""

    concept: str
    fixed: list[frozenset[str]]  # the concept's and the kept keywords' keys: counted, never swapped
    chosen: list[tuple[str, frozenset[str]]]  # compiled keywords, weakest last
    spare: list[tuple[str, frozenset[str]]]  # the next candidates, best first
    passages: list[frozenset[str]] = field(default_factory=list)
    free: bool = True  # False: its keywords are kept as they are


def passages(blocks: Sequence[Block], keys_of: Callable[[str], Iterable[str]]) -> list[frozenset[str]]:
    """Each paragraph, item, quote or table row of a body with its heading's words, as keys."""
    out: list[frozenset[str]] = []
    heading: frozenset[str] = frozenset()
    for block in blocks:
        if block.kind == "heading":
            heading = frozenset(keys_of(block.plain))
            continue
        if block.kind == "code":
            continue
        rows = block.text.split("\n") if block.kind == "table" else [block.text]
        for row in rows:
            keys = frozenset(keys_of(row)) | heading
            if len(keys) >= _MIN_KEYS:
                out.append(keys)
    return out


class _Bank:
    """Every passage's score per file, kept as keywords change."""

    def __init__(self, trials: list[Trial]) -> None:
        self.trials = trials
        self.owner: list[int] = []
        self.postings: dict[str, set[int]] = {}
        for i, t in enumerate(trials):
            for p in t.passages:
                q = len(self.owner)
                self.owner.append(i)
                for k in p:
                    self.postings.setdefault(k, set()).add(q)
        self._matches: dict[frozenset[str], frozenset[int]] = {}
        self.work = 0
        self.scores: list[dict[int, int]] = [{} for _ in self.owner]
        self.held: list[dict[frozenset[str], int]] = []  # by file: its keys sets and how many keywords
        for i, t in enumerate(trials):
            self.held.append({})
            for keys in [*t.fixed, *(k for _, k in t.chosen)]:
                self.add(i, keys)

    def matches(self, keys: frozenset[str]) -> frozenset[int]:
        """The passages that hold every one of ``keys``."""
        found = self._matches.get(keys)
        if found is None:
            sets = sorted((self.postings.get(k, set()) for k in keys), key=len)
            found = frozenset(set.intersection(*sets)) if sets and sets[0] else frozenset()
            self._matches[keys] = found
        return found

    def _bump(self, i: int, keys: frozenset[str], by: int) -> None:
        for q in self.matches(keys):
            score = self.scores[q]
            score[i] = score.get(i, 0) + by
            if not score[i]:
                del score[i]

    def add(self, i: int, keys: frozenset[str]) -> None:
        held = self.held[i]
        held[keys] = held.get(keys, 0) + 1
        if held[keys] == 1:  # keywords of the same words are one match
            self._bump(i, keys, 1)

    def remove(self, i: int, keys: frozenset[str]) -> None:
        held = self.held[i]
        held[keys] -= 1
        if not held[keys]:
            del held[keys]
            self._bump(i, keys, -1)

    def routed(self, q: int) -> bool:
        score = self.scores[q]
        self.work += 1 + len(score)
        owner = self.owner[q]
        mine = score.get(owner, 0)
        if not mine:
            return False
        name = self.trials[owner].concept
        above = 0
        for i, s in score.items():
            if s > mine or (s == mine and self.trials[i].concept < name):
                above += 1
                if above >= MAX_PRIMARY:
                    return False
        return True

    def gain(self, i: int, out: frozenset[str] | None, into: frozenset[str] | None) -> int:
        """How many more passages route to their file with ``out`` swapped for ``into`` in file ``i``."""
        touched = (self.matches(out) if out is not None else frozenset()) | (
            self.matches(into) if into is not None else frozenset()
        )
        before = sum(self.routed(q) for q in touched)
        if out is not None:
            self.remove(i, out)
        if into is not None:
            self.add(i, into)
        after = sum(self.routed(q) for q in touched)
        if into is not None:
            self.remove(i, into)
        if out is not None:
            self.add(i, out)
        return after - before


def tune(trials: list[Trial], claims: dict[str, int], claim_limit: int, work: int = WORK) -> list[list[str]]:
    """Each file's compiled keywords after the trials (kept ones untouched). ``claims`` counts the
    files that claim each keyword (case-folded); no swap takes a keyword past ``claim_limit``; the
    trials stop once ``work`` passages have been judged."""
    bank = _Bank(trials)
    for _ in range(_ROUNDS):
        if not _round(bank, trials, claims, claim_limit, work):
            break
    return [[shown for shown, _ in t.chosen] for t in trials]


def _round(bank: _Bank, trials: list[Trial], claims: dict[str, int], claim_limit: int, work: int) -> bool:
    """Up to ``_SWAPS`` changes to each free file; whether another round may change more (one
    changed something, and ``work`` is not spent)."""
    changed = False
    for i, t in enumerate(trials):
        if not t.free:
            continue
        for _ in range(_SWAPS):
            if bank.work >= work:
                return False
            if not _step(bank, i, t, claims, claim_limit):
                break
            changed = True
    return changed


def _step(bank: _Bank, i: int, t: Trial, claims: dict[str, int], claim_limit: int) -> bool:
    """One change to file ``i``'s keywords that routes more passages; False when none does."""
    held = set(bank.held[i])
    spare = [
        (n, shown, keys)
        for n, (shown, keys) in enumerate(t.spare)
        if keys not in held and claims.get(shown.casefold(), 0) < claim_limit and bank.matches(keys)
    ]
    if not spare:
        return False
    gained, _, best = max((bank.gain(i, None, s[2]), -s[0], s) for s in spare)
    weakest = t.chosen[-_WEAKEST:]
    if len(t.chosen) + len(t.fixed) < MAX_KEYWORDS:
        out: tuple[str, frozenset[str]] | None = None
        if gained <= 0:
            return False
    elif weakest:
        # the one of the eight whose loss costs fewest passages; on a tie the first, the highest
        # ranked of them (measured: the last one gave 88 of 120 where this gives 90)
        losses = [(bank.gain(i, keys, None), -n, (shown, keys)) for n, (shown, keys) in enumerate(weakest)]
        out = max(losses)[2]
        if bank.gain(i, out[1], best[2]) <= 0:
            return False
    else:
        return False
    n, shown, keys = best
    if out is not None:
        bank.remove(i, out[1])
        t.chosen.remove(out)
        claims[out[0].casefold()] = claims.get(out[0].casefold(), 0) - 1
        t.spare.append(out)
    bank.add(i, keys)
    t.chosen.append((shown, keys))
    t.spare.pop(n)
    claims[shown.casefold()] = claims.get(shown.casefold(), 0) + 1
    return True
