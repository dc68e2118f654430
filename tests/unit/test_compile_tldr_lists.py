"""A file written only as lists gets a TLDR built from its title and the subjects of its items or
sections, in its language; never one bullet of the list, a sentence deep in the file, a status
line or the labels of a record's form."""

from __future__ import annotations

from ckp_lsp.core.compile.model import Answer, CompileInput
from ckp_lsp.core.compile.offline import BankFile, compile_bank, compile_offline
from ckp_lsp.core.compile.offline.subjects import listed
from ckp_lsp.core.compile.offline.text import parse


def compile_text(text: str, hint: str = "note") -> Answer:
    return compile_offline(CompileInput(text, None, (), hint))


def test_a_task_list_is_named_by_its_title_and_the_subjects_of_its_items() -> None:
    text = (
        "# Tareas\n\n"
        "- [x] Estructura de carpetas\n"
        "- [x] Backend: autenticación de usuarios, pedidos y carrito de compras\n"
        "- [x] Frontend: páginas de catálogo y de detalle de producto con filtros\n"
        "- [x] Implementación de un sistema de rutas protegidas por rol para los paneles.\n"
    )
    assert compile_text(text).tldr == "Tareas: Estructura de carpetas, Backend, Frontend."


def test_bold_subjects_of_a_focus_list_name_the_file_not_one_of_them() -> None:
    text = (
        "# Active Context\n\n## Current Work Focus\n\n"
        "* **Offline export**: the export queue now retries each job three times before failing.\n"
        "* **Safari support**: the viewer waits for its libraries before it draws the first page.\n"
        "* **Faster search**: the index is built once at start-up and kept in memory afterwards.\n\n"
        "## Recent Changes\n\n* **Login page** (2025-07-19): a new form replaced the old dialog.\n"
    )
    assert compile_text(text).tldr == "Active Context: Offline export, Safari support, Faster search."


def test_a_korean_list_file_keeps_its_words_and_commas() -> None:
    text = (
        "# 프로젝트 개요\n\n## 핵심 요구사항\n\n"
        "*   PDF 및 Markdown 파일 지원\n*   다이어그램 렌더링 기능\n"
        "*   문서 비교 기능 (버전 비교, 실시간 차이점 표시)\n*   자동 목차 생성 기능\n"
    )
    assert compile_text(text).tldr == (
        "프로젝트 개요: PDF 및 Markdown 파일 지원, 다이어그램 렌더링 기능, 문서 비교 기능, 자동 목차 생성 기능."
    )


def test_a_japanese_progress_file_is_named_by_its_phases_not_its_status_sections() -> None:
    progress = (
        "# 進捗状況: 通知ボット\n\n## 1. 現在のステータス\n\n- **フェーズ:** デプロイ\n- **全体進捗:** 約 60%\n\n"
        "## 2. 完了したこと\n\n### 準備フェーズ\n\n- 仮想環境を作成した。\n\n### 基本実装フェーズ\n\n"
        "- パーサーを追加した。\n\n### テストフェーズ\n\n- 単体テストを追加した。\n\n## 3. 残っているタスク\n\n"
        "- 本番環境の構築。\n"
    )
    other = "# 技術コンテキスト: 通知ボット\n\nこのボットは厚生労働省のページを毎朝確認して新しい通知を送ります。\n"
    answers = compile_bank([BankFile("progress.md", progress), BankFile("tech.md", other)])
    assert answers["progress.md"].tldr == "進捗状況：準備フェーズ、基本実装フェーズ、テストフェーズ。"


def test_a_chinese_progress_list_after_a_status_section_names_what_works() -> None:
    text = (
        "# Progress\n\n## 项目状态：已完成\n\n此项目为备份副本。\n\n## 已实现功能\n\n"
        "- [x] 账号绑定与解绑\n- [x] 状态定时轮询与自动播报\n- [x] 图片缓存机制\n\n## 已知问题\n\n"
        "1. 个人主页爬取依赖特定的页面结构，网站更新可能导致解析失败。\n"
    )
    assert compile_text(text).tldr == "Progress：账号绑定与解绑、状态定时轮询与自动播报、图片缓存机制。"


def test_a_list_of_status_fields_is_no_subject_list() -> None:
    text = (
        "# Прогресс\n\n## Статус\n\n- **Фаза:** развёртывание\n- **Готовность:** 60%\n\n"
        "## Модули\n\n- **Импорт статей**: загрузка обзоров с сервера каждую неделю.\n"
        "- **Поиск**: поиск по тегам и годам в архиве обзоров.\n"
        "- **Архив**: хранение обзоров по годам и неделям.\n"
    )
    assert compile_text(text).tldr == "Прогресс: Импорт статей, Поиск, Архив."


def test_the_labels_a_record_repeats_are_its_form_not_its_subjects() -> None:
    decisions = "".join(
        f"### {name}\n\n- **Escolha**: {name} em vez da alternativa antiga\n"
        f"- **Razão**: melhor desempenho\n- **Impacto**: migração gradual\n\n"
        for name in ("App Router", "SQLite", "Tailwind")
    )
    blocks = parse(f"# Decisões\n\n## Decisões Técnicas\n\n{decisions}".split("\n"))
    assert listed(blocks, "Decisões") == "Decisões: App Router, SQLite, Tailwind."


def test_a_sentence_deep_in_a_file_loses_to_its_headings() -> None:
    table = "| name | version |\n|---|---|\n| vite | 5 |\n\n"
    sections = "".join(f"## {t}\n\n{table}{table}" for t in ("Stack", "Tooling", "Runtime"))
    deep = "Older browsers are no longer supported by the framework since its last major release.\n"
    assert (
        compile_text(f"# Tech Context\n\n{sections}{deep}").tldr == "Tech Context: Stack, Tooling, Runtime."
    )


def test_a_summary_sentence_at_the_top_still_wins() -> None:
    text = (
        "# Brief\n\n- **Purpose**: an admin panel that lets support staff refund orders themselves.\n"
        "- **Entry**: src/main.ts\n- **Layout**: three layouts\n"
    )
    assert compile_text(text).tldr.endswith(
        "an admin panel that lets support staff refund orders themselves."
    )


def test_headings_every_file_of_a_template_shares_are_no_subjects() -> None:
    template = "## Original Request\n\nShip it.\n\n## Thought Process\n\n## Implementation Plan\n\n"
    files = [
        BankFile(
            f"tasks/{name}.md",
            f"# {title}\n\n{template}### {a}\n\n### {b}\n\n- {a} step\n- {b} step\n",
        )
        for name, title, a, b in (
            ("t1", "Deploy to production", "Environment variables", "Build settings"),
            ("t2", "Dark mode", "Theme provider", "Toggle button"),
        )
    ]
    answers = compile_bank(files)
    assert answers["tasks/t1.md"].tldr == "Deploy to production: Environment variables, Build settings."
    assert answers["tasks/t2.md"].tldr == "Dark mode: Theme provider, Toggle button."


def test_two_list_files_with_the_same_subjects_get_different_tldrs() -> None:
    body = "# Tasks\n\n- Login page\n- Search box\n- Cart page\n- Checkout flow\n- Order history\n"
    answers = compile_bank([BankFile("a.md", body), BankFile("b.md", body)])
    assert answers["a.md"].tldr != answers["b.md"].tldr


def test_a_list_of_done_tasks_is_named_by_the_work_not_the_status() -> None:
    text = (
        "# Active Context\n\n## 当前工作焦点\n\n"
        "- TASK001 已完成：代码结构重构为三层架构\n- TASK002 已完成：接口限流优化\n- TASK003 已完成：数据层强化\n"
    )
    assert compile_text(text).tldr == "Active Context：代码结构重构为三层架构、接口限流优化、数据层强化。"


def test_the_lists_of_the_first_section_name_its_subjects_together_without_versions() -> None:
    text = (
        "# Tech Context\n\n## Technology Stack\n\n### Core Framework\n\n- **Next.js 16.0.3**\n"
        "  - App Router and server components by default\n\n### Frontend\n\n- **React 19.2.0**\n"
        "  - Concurrent rendering\n\n### Styling\n\n- **Tailwind CSS 4.1**\n  - Utility classes\n\n"
        "## Development Setup\n\n- Node 20 and npm\n"
    )
    assert compile_text(text).tldr == "Tech Context: Next.js, React, Tailwind CSS."
