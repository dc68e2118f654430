"""A request to the agent and a sentence that points back are no TLDR in any language read: the
words that open them are language data (``core.language.address``), one line per language."""

from __future__ import annotations

import pytest

from ckp_lsp.core.compile.model import Answer, CompileInput
from ckp_lsp.core.compile.offline import compile_offline
from ckp_lsp.core.compile.offline.structure import structure
from ckp_lsp.core.language.address import BACK_OPENINGS, REQUEST_OPENINGS


def compile_text(text: str, hint: str = "note") -> Answer:
    return compile_offline(CompileInput(text, None, (), hint))


REQUESTS = [
    "You are an expert Python developer, read the loader plan and implement it.",
    "Vous êtes un développeur Python expérimenté : lisez le plan du chargeur et implémentez-le.",
    "Tu es un expert du cache, lis le plan et corrige la configuration du serveur.",
    "Eres un desarrollador experto; lee el plan del cargador y ponlo en marcha.",
    "Você é um desenvolvedor experiente e deve ler o plano do carregador inteiro.",
    "Du bist ein erfahrener Entwickler, lies den Plan des Laders und setze ihn um.",
    "Sei un esperto di Python: leggi il piano del caricatore e realizzalo.",
    "Ты опытный разработчик, прочитай план загрузчика и реализуй его полностью.",
    "你是一名资深的 Python 开发者，请阅读加载器的实施计划并完成实现。",
    "あなたは経験豊富な開発者として、ローダーの計画を読んで実装します。",
    "ローダーの計画をすべて読んで、必要な変更を実装してください。",
    "당신은 숙련된 개발자로서 로더 계획을 읽고 전체를 구현합니다.",
    "로더 계획을 모두 읽고 필요한 변경을 구현해주세요.",
]

BACK = [
    "This was a critical bug affecting the whole query pipeline of the service.",
    "As above, the cache is emptied every night by the background worker.",
    "C'était un bogue critique qui touchait toute la chaîne des requêtes du service.",
    "Esto fue un error crítico que afectaba a toda la cadena de consultas.",
    "Isso foi um erro crítico que afetava toda a cadeia de consultas do serviço.",
    "Das war ein kritischer Fehler in der gesamten Abfragekette des Dienstes.",
    "Это была критическая ошибка во всём конвейере запросов сервиса.",
    "这是因为查询意图在每次请求时都被设为默认的代码搜索类型。",
    "そのため、クエリの意図は毎回既定のコード検索として扱われていました。",
    "이로 인해 질의 의도가 매번 기본 코드 검색으로 처리되었습니다.",
]

PROSE = [
    "Tutorial files explain how the loader clones each repository once a night.",
    "Toutes les sessions actives sont gardées en mémoire et écrites une fois par minute.",
    "Usuarios pueden comprar artesanías en la tienda pública de cada artesano.",
    "Itinerary pages are cached for a day by the edge workers of the site.",
    "Du côté serveur, chaque requête est comptée avant d'être transmise au modèle.",
    "这是一个基于 NoneBot2 的 Steam 好友状态播报插件，定时轮询群友状态。",
    "このボットは厚生労働省のページを監視し、新しい通知をSlackへ送ります。",
    "이 뷰어는 PDF 파일과 마크다운 파일을 한 화면에서 보여 줍니다.",
]


@pytest.mark.parametrize("sentence", REQUESTS)
def test_a_request_to_the_agent_is_structure_in_every_language(sentence: str) -> None:
    assert structure(sentence, 5) == "request"


@pytest.mark.parametrize("sentence", BACK)
def test_a_sentence_that_points_back_is_structure_in_every_language(sentence: str) -> None:
    assert structure(sentence, 5) == "back-reference"


@pytest.mark.parametrize("sentence", PROSE)
def test_a_sentence_that_opens_like_one_of_those_words_still_says_something(sentence: str) -> None:
    assert structure(sentence, 5) is None


def test_every_language_read_has_both_lists() -> None:
    assert (
        set(REQUEST_OPENINGS) == set(BACK_OPENINGS) >= {"en", "fr", "es", "pt", "de", "ru", "zh", "ja", "ko"}
    )


def test_a_french_prompt_in_a_task_file_gives_way_to_the_sentence_after_it() -> None:
    prose = "Le chargeur clone chaque dépôt une fois puis ne récupère que les fichiers modifiés."
    text = (
        "# Chargeur\n\n## Demande initiale\n\n"
        "Vous êtes un développeur Python expérimenté. Lisez le plan et implémentez le chargeur.\n\n"
        f"{prose}\n"
    )
    assert compile_text(text).tldr.endswith(prose)
