"""ANSWERS_WHEN offline for the index pattern: the words of the concept's name, single words before
phrases, the words a file keeps coming back to, no word every file of the bank uses, a code name
said once, and SPEC's 20 keywords."""

from __future__ import annotations

from pathlib import Path

from ckp_lsp.core.compile.offline import MAX_KEYWORDS, BankFile, compile_bank
from ckp_lsp.core.compile.offline.keywords import Term, choose_keywords, ranked
from ckp_lsp.core.compile.offline.terms import Corpus
from ckp_lsp.core.format.limits import MAX_KEYWORDS as SPEC_MAX_KEYWORDS
from ckp_lsp.faces.banks import load_bank


def _keywords(files: list[BankFile], rel: str) -> list[str]:
    return [k.casefold() for k in compile_bank(files).get(rel).answers_when]  # type: ignore[union-attr]


def test_a_word_of_the_concept_name_is_a_keyword_of_its_own() -> None:
    """`socket-permissions` routes only a question with both words; `permission` routes one about
    a permission error."""
    files = [
        BankFile(
            "socket-permissions.md",
            "# Socket permissions\n\nA player lacks the permission to update an actor the GM owns. "
            "The permission check fails, so the update goes through the GM's client instead.",
        ),
        BankFile("combat.md", "# Combat\n\nInitiative is rolled each round; the tracker orders the turns."),
        BankFile("packs.md", "# Packs\n\nCompendium packs are compiled from JSON sources before a release."),
    ]
    keywords = _keywords(files, "socket-permissions.md")
    assert keywords[0] == "socket-permissions"
    assert "permission" in keywords


def test_single_words_come_before_a_phrase_of_them() -> None:
    """Both words route more questions than the phrase, which needs both in one question."""
    files = [
        BankFile(
            "cache.md",
            "# Avatars\n\nThe avatar cache keeps each avatar for a day. The avatar cache is cleared when a "
            "user changes the picture; the cache TTL is configurable.",
        ),
        BankFile("bot.md", "# Bot\n\nThe bot polls the Steam API every minute and posts to the group."),
        BankFile("fonts.md", "# Fonts\n\nThe renderer draws names with the bundled fonts in three weights."),
    ]
    keywords = _keywords(files, "cache.md")
    assert {"avatar", "cache"} <= set(keywords)
    assert "avatar cache" not in keywords


def test_the_word_a_file_keeps_coming_back_to_outranks_a_rare_word_said_once() -> None:
    corpus = Corpus(files=6, df={"deploy": 3, "rollback": 1})
    often = Term(score=4.0, forms={"deploy": 4}, keys=("deploy",))
    once = Term(score=1.0, forms={"rollback": 1}, keys=("rollback",))
    order = [key for _, _, key, _ in ranked({"deploy": often, "rollback": once}, corpus)]
    assert order == ["deploy", "rollback"]


def test_a_word_every_file_uses_is_no_keyword() -> None:
    shared = "The service handles the request and the service logs the response of the service. "
    files = [
        BankFile("a.md", f"# A\n\n{shared * 3}The service pushes updates over WebSocket connections."),
        BankFile("b.md", f"# B\n\n{shared * 3}The service stores orders in MongoDB collections."),
        BankFile("c.md", f"# C\n\n{shared * 3}The service streams events through Kafka topics."),
        BankFile("d.md", f"# D\n\n{shared * 3}The service caches sessions in Redis."),
    ]
    answers = compile_bank(files)
    for rel in ("a.md", "b.md", "c.md", "d.md"):
        assert "service" not in [k.casefold() for k in answers[rel].answers_when]


def test_a_file_gets_spec_s_twenty_keywords() -> None:
    assert MAX_KEYWORDS == SPEC_MAX_KEYWORDS == 20


def test_a_code_name_said_once_is_a_keyword_where_a_word_said_once_is_not() -> None:
    """Past the first five keywords a term must weigh enough, but an identifier is the file's own."""
    terms = {
        **{f"topic{n}": Term(score=4.0, forms={f"topic{n}": 4}, keys=(f"topic{n}",)) for n in range(6)},
        "devdependencies": Term(
            score=1.5, forms={"devDependencies": 1}, keys=("devdependencies",), identifier=True
        ),
        "jest": Term(score=1.5, forms={"jest": 1}, keys=("jest",)),
    }
    corpus = Corpus(files=9, df={**{f"topic{n}": 2 for n in range(6)}, "devdependencies": 1, "jest": 1})
    keywords = choose_keywords(terms, "tech-stack", corpus, frozenset(), []).keywords
    assert "devDependencies" in keywords and "jest" not in keywords


def test_the_index_pattern_routes_a_question_by_a_word_of_the_name(tmp_path: Path) -> None:
    """Compiled and indexed through the command line, the bank's index routes a question that
    says `permission` (not `socket`) to the socket-permissions file."""
    import contextlib
    import io

    from ckp_lsp.cli.main import main as cli
    from ckp_lsp.core.routing import route

    bank = tmp_path / "memory-bank"
    bank.mkdir()
    (bank / "socket-permissions.md").write_text(
        "# Socket permissions\n\nA player lacks the permission to update an actor the GM owns. "
        "The permission check fails, so the update goes through the GM's client instead.\n",
        encoding="utf-8",
    )
    (bank / "combat.md").write_text(
        "# Combat\n\nInitiative is rolled each round; the tracker orders the turns of a combat.\n",
        encoding="utf-8",
    )
    (bank / "packs.md").write_text(
        "# Packs\n\nCompendium packs are compiled from JSON sources before a release of the packs.\n",
        encoding="utf-8",
    )
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        for args in (["compile", "--all", str(bank)], ["index", str(bank)]):
            with contextlib.suppress(SystemExit):
                cli(args)
    result = route(load_bank(bank), "Why does a player get a permission error?", mode="index")
    assert [e.file for e in result.loaded] == ["socket-permissions.md"]


def test_a_word_every_file_uses_is_a_keyword_of_the_file_that_uses_it_most() -> None:
    """The index pattern counts matching keywords: the file that is about the bank's common word
    (`steam` of the Steam API file) gets it as one more match for its questions."""
    files = [
        BankFile(
            "api.md",
            "# Steam API\n\nThe Steam API answers 429 when the Steam quota is spent; Steam asks the "
            "plugin to wait. Each Steam call carries the key.",
        ),
        BankFile("bot.md", "# Bot\n\nThe bot posts Steam news to the group every morning."),
        BankFile("fonts.md", "# Fonts\n\nThe renderer draws Steam names with the bundled fonts."),
        BankFile("cards.md", "# Cards\n\nA card shows the Steam level beside the avatar."),
    ]
    assert "steam" in [k.casefold() for k in compile_bank(files)["api.md"].answers_when]


def test_how_many_files_use_a_word_does_not_rank_it() -> None:
    """Two words this body uses as often, and the others never: the one more files use elsewhere
    ranks the same, not lower (no idf)."""
    corpus = Corpus(files=6, df={"deploy": 5, "rollback": 1})
    one = Term(score=3.0, forms={"deploy": 3}, keys=("deploy",))
    two = Term(score=3.0, forms={"rollback": 3}, keys=("rollback",))
    ranks = {key: rank for _, rank, key, _ in ranked({"deploy": one, "rollback": two}, corpus)}
    assert ranks["deploy"] == ranks["rollback"]
