"""A dated log (progress, decision log, archive) is named by its title and the subjects of its
newest entries, in any language and whatever the order of its entries; never by one entry's
sentence. One dated heading in a record is only the record's date."""

from __future__ import annotations

from ckp_lsp.core.compile.model import Answer, CompileInput
from ckp_lsp.core.compile.offline import MAX_TLDR, compile_offline
from ckp_lsp.core.compile.offline.logs import dated_log, log_summary
from ckp_lsp.core.compile.offline.text import parse


def compile_text(text: str, hint: str = "note") -> Answer:
    return compile_offline(CompileInput(text, None, (), hint))


DECISIONS = (
    "## Décisions récentes\n\n"
    "### [2026-03-02 09:10:00] - Cache en mémoire pour les sessions - TERMINÉ\n"
    "**Problème** : Les sessions étaient relues depuis le disque à chaque requête du tableau de bord.\n"
    "**Décision** : Garder les sessions actives en mémoire et les écrire une fois par minute.\n\n"
    "### [2026-04-18 17:45:00] - Pivot vers une API sans état\n"
    "**Contexte** : Le client mobile ne garde plus de session et envoie son jeton à chaque appel.\n\n"
    "### [2026-01-05 08:00:00] - Journal structuré en JSON\n"
    "**Contexte** : Les journaux texte ne se laissaient pas filtrer par requête ni par utilisateur.\n"
)


def test_a_decision_log_is_named_by_its_newest_entries_not_one_entrys_problem() -> None:
    tldr = compile_text(DECISIONS, "memory-bank/decisionLog.md").tldr
    assert (
        tldr
        == "Decision log: Pivot vers une API sans état, Cache en mémoire pour les sessions, Journal structuré en JSON."
    ), tldr


def test_a_log_with_its_own_title_is_named_by_that_title() -> None:
    tldr = compile_text("# Journal des décisions\n\n" + DECISIONS, "notes.md").tldr
    assert tldr.startswith("Journal des décisions: Pivot vers une API sans état, "), tldr


def test_a_log_of_dated_items_names_their_bold_subjects_without_their_status() -> None:
    text = (
        "## Tâche en cours\nAucune tâche active.\n\n## Dernière session\n"
        "- [2026-07-15 01:20:00] **Durcissement du proxy — TERMINÉ** : Remplacement de `eval`, "
        "blocage du bind sur la boucle locale, validation des adresses cibles et des clés.\n"
        "- [2026-07-12 23:35:00] **Routage du pont MCP — TERMINÉ** : Ajout du serveur dans le pont.\n"
    )
    tldr = compile_text(text, "activeContext.md").tldr
    assert tldr == "Active context: Durcissement du proxy, Routage du pont MCP.", tldr


def test_a_chinese_log_is_named_with_chinese_punctuation() -> None:
    text = (
        "# 变更记录\n\n"
        "- 2026-02-16：创建记忆库，建立所有核心文件并写入项目背景说明\n"
        "- 2026-02-18：完成接口限流优化，新增重试与指数退避逻辑\n"
    )
    tldr = compile_text(text, "changes.md").tldr
    assert tldr == "变更记录：完成接口限流优化、创建记忆库。", tldr


def test_one_dated_heading_of_a_record_is_its_date_not_a_log() -> None:
    goal = "Le serveur de cache démarre sur le port 8006 et répond aux sondes de santé en une seconde."
    text = f"### [2026-02-27 00:58:00] - Incident du cache - TERMINÉ\n\n**Objectif** : {goal}\n"
    assert dated_log(parse(text.splitlines())) is None
    assert compile_text(text).tldr.endswith(goal)


def test_a_task_file_whose_progress_log_comes_last_keeps_its_lead_sentence() -> None:
    lead = "The importer reads each supplier's CSV file and writes its rows into the catalogue."
    text = (
        f"# Supplier import\n\n{lead}\n\n## Progress Log\n\n"
        "### 2025-11-20\n- Parsed the header row and mapped every column to a catalogue field.\n\n"
        "### 2025-11-25\n- Rejected rows whose price is not a number, with the line in the message.\n"
    )
    assert compile_text(text, "tasks/TASK001.md").tldr == lead


def test_the_summary_stays_within_the_limit_and_unlike_a_taken_tldr() -> None:
    entries = "".join(
        f"### [2026-01-{d:02d}] - {'Sujet très long ' * 4}numéro {d}\n\nTexte.\n\n" for d in range(1, 9)
    )
    log = dated_log(parse(entries.splitlines()))
    assert log is not None
    first = log_summary(log, "Progress")
    assert first and len(first) <= MAX_TLDR
    second = log_summary(log, "Progress", taken={first.casefold()})
    assert second and second != first and len(second) <= MAX_TLDR


def test_a_context_file_that_keeps_a_log_of_changes_below_its_focus_is_named_by_its_focus() -> None:
    text = (
        "# Active Context\n\n## Current Focus\n"
        "- **Offline export**: the export queue retries each job three times before it fails.\n"
        "- **Safari support**: the viewer waits for its libraries before it draws a page.\n"
        "- **Faster search**: the index is built once at start-up and kept in memory.\n\n"
        "## Recent Changes\n"
        "- 2026-02-16: created the memory bank and wrote every core file\n"
        "- 2026-02-18: finished the rate limiting of the API client with retries\n"
        "- 2026-02-20: moved the settings into one file read at start-up\n"
    )
    assert compile_text(text, "activeContext.md").tldr == (
        "Active Context: Offline export, Safari support, Faster search."
    )
