"""Offline keywords tried on the bank's own passages (core/compile/offline/trials.py)."""

from __future__ import annotations

import pytest

from ckp_lsp.core.compile.offline import BankFile, compile_bank
from ckp_lsp.core.compile.offline.trials import WORK, Trial, tune


def _k(*words: str) -> frozenset[str]:
    return frozenset(words)


def _trial(
    concept: str, chosen: list[str], spare: list[str], passages: list[set[str]], free: bool = True
) -> Trial:
    return Trial(
        concept=concept,
        fixed=[_k(concept)],
        chosen=[(w, _k(w)) for w in chosen],
        spare=[(w, _k(w)) for w in spare],
        passages=[frozenset(p) for p in passages],
        free=free,
    )


def _full(words: str) -> list[str]:
    return [f"{words}{n}" for n in range(19)]


def test_a_file_takes_the_candidate_its_passages_hold_when_others_win_them() -> None:
    """Four files hold `store` as a keyword and win the passage on Chroma; the file whose passage it
    is swaps its weakest keyword (matching nothing) for `chroma`, its next candidate."""
    passage = {"store", "vector", "chroma", "switch"}
    others = [_trial(f"zeta{n}", ["store"], [], [{"store", f"x{n}", "y", "z"}]) for n in range(4)]
    tech = _trial("tech", _full("w"), ["chroma", "never"], [passage])
    lists = tune([*others, tech], {"store": 4}, claim_limit=3)
    assert "chroma" in lists[-1] and len(lists[-1]) == 19 and len(set(_full("w")) - set(lists[-1])) == 1


def test_a_file_under_twenty_keywords_takes_one_more_without_giving_any_up() -> None:
    short = _trial("socket", ["permission"], ["players", "damage"], [{"players", "damage", "apply", "gm"}])
    rival = _trial("combat", ["damage"], [], [{"damage", "roll", "round", "turn"}])
    lists = tune([short, rival], {"damage": 1}, claim_limit=3)
    assert lists[0][0] == "permission" and "players" in lists[0]


def test_no_swap_is_made_that_routes_no_more_passages() -> None:
    """A candidate the file's passages hold, but which they are already routed without, is not taken."""
    alone = _trial("alone", _full("w"), ["extra"], [{"alone", "extra", "a", "b"}])
    assert tune([alone], {}, claim_limit=3) == [_full("w")]


def test_kept_keywords_are_never_swapped() -> None:
    others = [_trial(f"zeta{n}", ["store"], [], [{"store", f"x{n}", "y", "z"}]) for n in range(4)]
    kept = _trial("tech", _full("w"), ["chroma"], [{"store", "vector", "chroma", "switch"}], free=False)
    assert tune([*others, kept], {"store": 4}, claim_limit=3)[-1] == _full("w")


def test_no_swap_takes_a_keyword_past_the_claim_limit() -> None:
    others = [_trial(f"zeta{n}", ["store"], [], [{"store", f"x{n}", "y", "z"}]) for n in range(3)]
    tech = _trial("tech", _full("w"), ["store"], [{"store", "vector", "chroma", "switch"}])
    assert "store" not in tune([*others, tech], {"store": 3}, claim_limit=3)[-1]


def test_a_compiled_bank_gives_a_section_s_word_to_its_file_and_stays_stable() -> None:
    """Compiled twice, the same headers: the trials are deterministic."""
    files = [
        BankFile(
            f"f{n}.md",
            f"# Topic {n}\n\n"
            + "".join(f"- The module{n} handles part{m} of the flow for item{m}.\n" for m in range(30)),
        )
        for n in range(4)
    ]
    assert compile_bank(files) == compile_bank(list(reversed(files)))


def test_the_trials_stop_once_their_work_is_spent_and_the_rest_keep_their_ranked_keywords() -> None:
    """The same bank as the first test: with no work to spend, nothing is swapped; with enough, the
    swap is made. A bank of any size costs the trials at most ``WORK`` passages judged."""
    passage = {"store", "vector", "chroma", "switch"}
    others = [_trial(f"zeta{n}", ["store"], [], [{"store", f"x{n}", "y", "z"}]) for n in range(4)]

    def tech() -> Trial:
        return _trial("tech", _full("w"), ["chroma", "never"], [passage])

    assert tune([*others, tech()], {"store": 4}, claim_limit=3, work=0)[-1] == _full("w")
    assert "chroma" in tune([*others, tech()], {"store": 4}, claim_limit=3, work=WORK)[-1]


def test_a_bank_of_more_than_max_files_or_with_every_keyword_list_kept_is_not_tried(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The trials' cost grows with the files times the passages: a larger bank keeps the ranked
    keywords, and so does a bank whose every keyword list is kept (a second compile)."""
    from ckp_lsp.core.compile.offline import bank as offline_bank

    calls: list[int] = []

    def counted(trials: list[Trial], *args: object, **kwargs: object) -> list[list[str]]:
        calls.append(len(trials))
        return [[shown for shown, _ in t.chosen] for t in trials]

    monkeypatch.setattr(offline_bank, "tune", counted)
    files = [
        BankFile(f"f{n}.md", f"# Topic {n}\n\nThe module{n} handles the flow of part{n}.\n") for n in range(4)
    ]
    monkeypatch.setattr(offline_bank, "MAX_FILES", 3)
    compile_bank(files)
    assert calls == []
    monkeypatch.setattr(offline_bank, "MAX_FILES", 4)
    compile_bank([BankFile(f.rel, f.body, keywords=("kept",)) for f in files])
    assert calls == []
    compile_bank(files)
    assert calls == [4]
