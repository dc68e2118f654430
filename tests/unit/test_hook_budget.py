"""The budget rule (``core.routing.budget``), the hook's context (``core.agent.memory_text``) and what the hook
does with a file it cannot read, called directly."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from ckp_lsp.cli import hook_cmd
from ckp_lsp.core.agent.agent_text import quote_file
from ckp_lsp.core.agent.hooks import HookError, parse_input, render
from ckp_lsp.core.agent.memory_text import prompt_context
from ckp_lsp.core.project.config import config_for_bank
from ckp_lsp.core.project.within import Folder
from ckp_lsp.core.routing import route
from ckp_lsp.core.routing.budget import declaration, fit, split_file
from ckp_lsp.core.routing.result import RouteResult
from ckp_lsp.faces.banks import load_bank
from tests.copies import copy_tree

ROOT = Path(__file__).resolve().parents[2]
MENTAT = ROOT / "samples" / "mentat" / "memory-bank"
QUESTION = "How do the JWT guards protect NestJS routes?"


def _routed() -> tuple[RouteResult, dict[str, str]]:
    bank = load_bank(MENTAT, config_for_bank(MENTAT))
    result = route(bank, QUESTION)
    texts = {e.file: (MENTAT / e.file).read_text(encoding="utf-8") for e in result.loaded}
    return result, texts


def test_primaries_first_then_relationships_and_a_file_that_does_not_fit_as_tldr_and_sections() -> None:
    result, texts = _routed()
    whole = sum(len(t) for t in texts.values())
    b = fit(result, texts, whole)
    assert [g.part for g in b.given] == ["whole"] * len(texts) and not b.cut
    assert declaration(result, b) == result.declaration
    first = len(texts[result.loaded[0].file])
    b = fit(result, texts, first + 400)
    assert b.given[0].part == "whole" and b.given[0].file == result.loaded[0].file
    assert {g.part for g in b.given[1:]} == {"sections"} and b.used_chars <= first + 400
    for g in b.given[1:]:
        assert g.text.startswith("TLDR: ") and g.left_out
    line = declaration(result, b)
    assert "as TLDR and matching sections" in line and "; budget ~" in line


def test_a_section_is_given_when_its_heading_matches_the_question() -> None:
    result, texts = _routed()
    auth = result.loaded[0]
    assert auth.file == "patterns/auth.md"
    b = fit(result, {auth.file: texts[auth.file]}, 1500)
    given = b.given[0]
    assert given.part == "sections" and given.sections == ("Global guards",)
    assert "## Global guards\n\nTwo guards are registered globally" in given.text
    assert "## Tenant isolation" not in given.text and "Tenant isolation" in given.left_out
    tldr, sections = split_file(texts[auth.file])
    assert tldr.startswith("Shared NestJS authentication") and len(sections) == len(given.left_out) + 1


def test_what_does_not_fit_at_all_is_left_out_and_named() -> None:
    result, texts = _routed()
    b = fit(result, texts, 40)
    assert not b.given and [e.file for e in b.dropped] == [e.file for e in result.loaded]
    assert "left out]" in declaration(result, b)
    missing = {k: v for k, v in texts.items() if k != "patterns/jwt.md"}
    b = fit(result, missing, 100_000)
    assert [e.file for e in b.dropped] == ["patterns/jwt.md"]
    assert "patterns/jwt.md left out" in declaration(result, b)


@pytest.mark.parametrize("limit", [600, 1200, 2500, 4000, 10_000])
def test_the_hook_context_never_exceeds_its_budget(limit: int) -> None:
    result, texts = _routed()
    text, b = prompt_context(result, texts, "memory-bank", limit)
    assert len(text) <= limit
    if text:
        assert text.startswith("[CKP: loaded ")
        for g in b.given:
            assert quote_file(f"memory-bank/{g.file}", g.text, g.part) in text


def test_a_closing_tag_inside_a_file_cannot_end_its_quote() -> None:
    quoted = quote_file('a "b".md', 'text </bank-file> <bank-file path="x"> more')
    assert quoted.startswith('<bank-file path="a &quot;b&quot;.md">\n')
    assert quoted.count("</bank-file>") == 1 and quoted.count("<bank-file") == 1


def test_each_hosts_output_shape() -> None:
    assert json.loads(render("claude-code", "UserPromptSubmit", "x")) == {
        "hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "x"}
    }
    assert json.loads(render("cline", "UserPromptSubmit", "x")) == {
        "cancel": False,
        "contextModification": "x",
    }
    assert json.loads(render("cursor", "sessionStart", "x")) == {"additional_context": "x"}
    assert render("codex", "UserPromptSubmit", "") == ""
    with pytest.raises(HookError, match="beforeSubmitPrompt hook can only allow or block"):
        parse_input("cursor", "beforeSubmitPrompt", "{}")
    got = parse_input(
        "cline",
        "UserPromptSubmit",
        json.dumps({"userPromptSubmit": {"prompt": '<user_input mode="act">hi there</user_input>'}}),
    )
    assert got.prompt == "hi there"


def test_a_file_that_cannot_be_read_is_left_out_and_the_declaration_names_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "shop"
    copy_tree(MENTAT, project / "memory-bank")
    real = Folder.bytes_of

    def bytes_of(self: Folder, path: Path | str) -> bytes:
        if str(path).endswith("patterns/jwt.md") and reading["now"]:
            raise PermissionError(13, "Permission denied", str(path))
        return real(self, path)

    reading = {"now": False}
    monkeypatch.setattr(Folder, "bytes_of", bytes_of)
    monkeypatch.setattr(hook_cmd, "_read_bank", lambda root: load_bank(root, config_for_bank(root)))
    original = hook_cmd._texts

    def texts(root: Path, files: list[str]) -> dict[str, str]:
        reading["now"] = True  # the bank was read; the file became unreadable before its text was
        return original(root, files)

    monkeypatch.setattr(hook_cmd, "_texts", texts)
    args = argparse.Namespace(host="claude-code", event="UserPromptSubmit", bank=None, max_chars=None)
    stdin = json.dumps({"prompt": QUESTION, "cwd": str(project)}).encode()
    out = hook_cmd.answer(args, lambda n: stdin, {"CLAUDE_PROJECT_DIR": str(project)})
    context = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert "patterns/jwt.md left out" in context.splitlines()[0]
    assert (
        'path="memory-bank/patterns/jwt.md"' not in context
        and 'path="memory-bank/patterns/auth.md"' in context
    )


def test_every_text_an_agent_is_given_passes_through_for_agent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import asyncio

    from ckp_lsp.core.agent import agent_text
    from ckp_lsp.mcp.server import build_server

    secret = "refresh-token rotation"  # words of jwt.md's TLDR and body, standing in for a secret
    monkeypatch.setattr(agent_text, "for_agent", lambda text: text.replace(secret, "<redacted: test>"))
    project = tmp_path / "shop"
    copy_tree(MENTAT, project / "memory-bank")
    args = argparse.Namespace(host="claude-code", event="UserPromptSubmit", bank=None, max_chars=None)
    stdin = json.dumps({"prompt": QUESTION}).encode()
    out = hook_cmd.answer(args, lambda n: stdin, {"CLAUDE_PROJECT_DIR": str(project)})
    session = argparse.Namespace(host="claude-code", event="SessionStart", bank=None, max_chars=None)
    summary = hook_cmd.answer(session, lambda n: b"{}", {"CLAUDE_PROJECT_DIR": str(project)})
    server = build_server(project / "memory-bank")

    async def answers() -> list[str]:
        got = []
        for name, arguments in [
            ("ckp_route", {"query": QUESTION, "include_content": True}),
            ("ckp_read", {"concept": "jwt"}),
        ]:
            result = await server.call_tool(name, arguments)
            got.append(json.dumps(result.structured_content))
        return got

    texts = [out, summary, *asyncio.run(answers())]
    assert all("<redacted: test>" in t and secret not in t for t in texts)


def test_the_hook_routes_from_the_kept_analysis_as_ckp_route_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first prompt analyses the bank and keeps it (``route.marshal``); the next analyses no file
    and answers the same, as ``ckp route`` and ``ckp mcp`` read the same snapshot."""
    from ckp_lsp.core.routing import ranked
    from ckp_lsp.core.routing.snapshot import ranked_router
    from ckp_lsp.faces.banks import read_headers

    monkeypatch.delenv("CKP_NO_CACHE", raising=False)
    monkeypatch.delenv("CKP_CACHE_DIR", raising=False)
    project = tmp_path / "project"
    copy_tree(Path(__file__).resolve().parents[2] / "samples" / "cline-es", project)
    args = argparse.Namespace(host="claude-code", event="UserPromptSubmit", bank=None, max_chars=None)
    prompt = json.dumps({"hook_event_name": "UserPromptSubmit", "prompt": "¿Qué comisión cobra Stripe?"})
    env = {"CLAUDE_PROJECT_DIR": str(project)}
    first = hook_cmd.answer(args, lambda n: prompt.encode(), env)
    assert (project / "memory-bank" / ".ckp-cache" / "route.marshal").is_file()

    def no_analysis(*_: object) -> None:
        raise AssertionError("a file was analysed again")

    monkeypatch.setattr(ranked, "analyse", no_analysis)
    assert hook_cmd.answer(args, lambda n: prompt.encode(), env) == first
    assert "pagos.md" in first
    assert (
        ranked_router(project / "memory-bank", load=read_headers)
        .route("¿Qué comisión cobra Stripe?")
        .loaded[0]
        .file
        == "pagos.md"
    )
