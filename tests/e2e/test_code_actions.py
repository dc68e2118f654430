"""Quick fixes, fix-all, recompile and routing through the real server, as an editor applies them."""

from __future__ import annotations

import ast
import asyncio
import re
import sys
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from .conftest import (
    action_params,
    apply_workspace_edit,
    change_doc,
    codes,
    open_doc,
    pulls,
    wait_diagnostics,
    wait_indexed,
    wait_until,
)

#: a file of the broken bank where each fixable code occurs
FIXABLE = {
    "CKP050": "jwt.md",
    "CKP046": "jwt.md",
    "CKP041": "logging.md",
    "CKP042": "logging.md",
    "CKP043": "database.md",
    "CKP044": "cors.md",
    "CKP045": "database.md",
    "CKP003": "http-headers.md",
    "CKP030": "http-headers.md",
    "CKP010": "jwt-authentication.md",
    "CKP060": "oauth2.md",
    "CKP001": "notes/deployment-notes.md",
    "CKP070": "_index.md",
    "CKP080": "cache.md",  # the one fix that edits a body: the secret's range alone
}


async def _actions(
    client: LanguageClient, uri: str, diags: list[types.Diagnostic], only: list[str] | None = None
):
    end = max(
        (d.range.end for d in diags),
        key=lambda p: (p.line, p.character),
        default=types.Position(line=0, character=0),
    )
    return await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=types.Position(line=0, character=0), end=end),
            context=types.CodeActionContext(diagnostics=diags, only=only),
        )
    )


async def test_every_quick_fix_removes_its_diagnostic(client: LanguageClient):
    bank = client.workspace_path / "broken/memory-bank"
    await wait_indexed(client)
    for code, name in FIXABLE.items():
        uri = (
            open_doc(client, bank / name, version=1)
            if uri_not_open(client, bank / name)
            else (bank / name).as_uri()
        )
        diags = await wait_diagnostics(client, uri, lambda d, c=code: c in codes(d))
        target = next(d for d in diags if d.code == code)
        actions = await _actions(client, uri, [target]) or []
        fixes = [
            a
            for a in actions
            if isinstance(a, types.CodeAction) and a.kind == types.CodeActionKind.QuickFix and a.diagnostics
        ]
        assert fixes, f"{code}: no quick fix offered"
        fix = next((a for a in fixes if a.is_preferred), fixes[0])
        assert fix.edit is not None, f"{code}: the fix carries no edit"
        apply_workspace_edit(client, fix.edit)  # as an editor applies it
        line = target.range.start.line

        def gone(d: list[types.Diagnostic], c: str = code, ln: int = line) -> bool:
            return not any(x.code == c and x.range.start.line == ln for x in d)

        await wait_diagnostics(client, uri, gone)


def action_command(action: types.CodeAction | types.Command) -> types.Command | None:
    """The command of a code action.

    lsprotocol's client side reads any action carrying a command as a Command whose ``command``
    is the whole action, stringified; editors read it correctly.
    """
    if isinstance(action, types.CodeAction):
        return action.command
    if action.command.startswith("{"):
        raw = ast.literal_eval(action.command)
        return types.Command(title=raw["title"], command=raw["command"], arguments=raw.get("arguments"))
    return action


def uri_not_open(client: LanguageClient, path: Path) -> bool:
    return path.as_uri() not in client.texts


async def test_fix_all_applies_every_safe_fix(client: LanguageClient):
    path = client.workspace_path / "broken/memory-bank/http-headers.md"
    await wait_indexed(client)
    uri = open_doc(client, path)
    diags = await wait_diagnostics(client, uri, lambda d: {"CKP003", "CKP030"} <= codes(d))
    actions = await _actions(client, uri, diags, only=["source.fixAll.ckp"]) or []
    assert [a.kind for a in actions] == ["source.fixAll.ckp"]
    apply_workspace_edit(client, actions[0].edit)
    after = await wait_diagnostics(client, uri, lambda d: not ({"CKP003", "CKP030"} & codes(d)))
    assert "CKP020" in codes(after)  # not a safe fix: left for the user
    body = path.read_text().split("\n\n", 1)[1]
    assert client.texts[uri][1].endswith(body)


async def test_recompile_applies_a_workspace_edit_with_progress(client: LanguageClient):
    path = client.workspace_path / "mentat/memory-bank/patterns/jwt.md"
    await wait_indexed(client)
    uri = open_doc(client, path)
    original = path.read_text()
    actions = await _actions(client, uri, [], only=[types.CodeActionKind.RefactorRewrite]) or []
    recompile = next(a for a in actions if a.title.startswith("Recompile header: "))
    command = action_command(recompile)
    assert command is not None and command.command == "ckp.recompile"
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=command.command, arguments=command.arguments)
    )
    assert result["applied"] is True
    assert client.applied, "the server did not send workspace/applyEdit"
    titles = [
        v.title
        for values in client.progress_reports.values()
        for v in values
        if isinstance(v, types.WorkDoneProgressBegin)
    ]
    assert any(t.startswith("Recompiling patterns/jwt.md") for t in titles)
    new = client.texts[uri][1]
    body = original[original.index("\n\n") :]
    assert new.endswith(body) and new != original
    assert path.read_text() == original  # an edit in the editor, never a write behind its back
    # The title said what would change; the edit says it again where the client takes change
    # annotations (VS Code), without asking to confirm (its default choice applies it).
    edit = client.applied[0].edit
    [doc] = edit.document_changes or []
    assert isinstance(doc, types.TextDocumentEdit)
    # one edit per run of changed lines, none reaching the body, each whole lines of the header
    old_lines = original.splitlines(keepends=True)
    header_end = original[: original.index("\n\n")].count("\n") + 1
    assert len(doc.edits) >= 1 and all(e.range.end.line <= header_end for e in doc.edits), doc.edits
    assert all(e.range.start.character == 0 for e in doc.edits), doc.edits
    untouched = set(range(len(old_lines))) - {
        line
        for e in doc.edits
        for line in range(e.range.start.line, max(e.range.end.line, e.range.start.line + 1))
    }
    assert untouched >= set(range(header_end, len(old_lines))), "an edit reached the body"
    if pulls(client):
        assert edit.change_annotations is None
    else:
        assert edit.change_annotations is not None
        [note] = edit.change_annotations.values()
        assert note.needs_confirmation is False
        assert note.description == recompile.title
        assert all(isinstance(e, types.AnnotatedTextEdit) for e in doc.edits)


async def test_recompile_is_offered_on_the_header_and_not_on_the_body(client: LanguageClient):
    path = client.workspace_path / "mentat/memory-bank/patterns/jwt.md"
    await wait_indexed(client)
    uri = open_doc(client, path)
    body_line = path.read_text().split("\n").index("") + 2

    async def titles_at(line: int) -> list[str]:
        actions = await client.text_document_code_action_async(action_params(uri, line))
        return [a.title for a in actions or []]  # some read back as Command: see action_command

    header = await titles_at(2)
    assert any(t.startswith("Recompile header: ") and "keyword" in t for t in header), header
    assert not any(t.startswith("Recompile") for t in await titles_at(body_line))


async def test_the_index_offers_one_regenerate_action(client: LanguageClient):
    path = client.workspace_path / "broken/memory-bank/_index.md"
    await wait_indexed(client)
    uri = open_doc(client, path)
    diags = await wait_diagnostics(client, uri, lambda d: "CKP070" in codes(d))
    actions = await _actions(client, uri, diags) or []
    titles = [a.title for a in actions]
    assert titles == ["Regenerate the index"], titles


async def test_an_unknown_concept_is_replaced_by_concept_names_only(client: LanguageClient):
    # The broken bank declares the display name 'JWT Authentication' (CKP010): never a replacement.
    path = client.workspace_path / "broken/memory-bank/logging.md"
    await wait_indexed(client)
    uri = open_doc(client, path)
    diags = await wait_diagnostics(client, uri, lambda d: "CKP041" in codes(d))
    unknown = [d for d in diags if d.code == "CKP041"]
    actions = await _actions(client, uri, unknown, only=[types.CodeActionKind.QuickFix]) or []
    replacements = [a.title for a in actions if a.title.startswith("Replace with")]
    assert replacements and all(
        re.fullmatch(r"Replace with '[a-z0-9][a-z0-9._-]*'", t) for t in replacements
    ), replacements


async def test_recompile_is_refused_when_the_document_changed_meanwhile(
    client: LanguageClient, tmp_path: Path
):
    slow = tmp_path / "slow_model.py"
    slow.write_text(
        "import sys, time, json\nsys.stdin.read()\ntime.sleep(1.5)\n"
        "print(json.dumps({'TLDR': 'Tokens.', 'ANSWERS_WHEN': ['jwt'], 'CONFIDENCE': 'high'}))\n"
    )
    llm = {"provider": "command", "command": f"{sys.executable} {slow}"}
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"ckp": {"llm": llm}})
    )
    path = client.workspace_path / "mentat/memory-bank/patterns/jwt.md"
    await wait_indexed(client)
    uri = open_doc(client, path)
    pending = asyncio.ensure_future(
        client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="ckp.recompile", arguments=[uri])
        )
    )
    await asyncio.sleep(0.5)
    change_doc(client, uri, path.read_text() + "\nOne more line.\n", 2)
    result = await pending
    assert result["applied"] is False and result["reason"] == "document changed", result
    await wait_until(lambda: any("changed while" in m.message for m in client.messages))
    assert not client.applied


async def test_route_command_returns_the_declaration(client: LanguageClient):
    await wait_indexed(client)
    uri = (client.workspace_path / "mentat/memory-bank/projects/mentat.md").as_uri()
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(
            command="ckp.route",
            arguments=[{"bank": uri, "query": "How does mentat fetch ISTAT data via SDMX?"}],
        )
    )
    assert result["declaration"].startswith("[CKP: loaded ")
    assert "mentat-istat" in [e["concept"] for e in result["loaded"]]


async def test_the_routing_preview_ranks_files_by_the_words_of_their_body(client: LanguageClient):
    """The preview is the ranked router: a file whose body alone holds the question's words is
    loaded, and the declaration names those words."""
    await wait_indexed(client)
    uri = (client.workspace_path / "mentat/memory-bank/projects/mentat.md").as_uri()
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(
            command="ckp.route", arguments=[{"bank": uri, "query": "How are refresh tokens rotated?"}]
        )
    )
    auth = next(e for e in result["loaded"] if e["file"] == "patterns/auth.md")
    assert auth["keywords"] == [] and "rotated" in auth["words"] and auth["relevance"] > 0
    assert "patterns/auth.md via rotated" in result["declaration"]


async def test_a_front_matter_without_ckp_keys_gets_them_from_the_quick_fix(client: LanguageClient):
    path = client.workspace_path / "adr/docs/decisions/0006-kubernetes-deployment.md"
    await wait_indexed(client)
    lines = path.read_text().split("\n")
    users = [ln for ln in lines[: lines.index("---", 1)] if not re.match(r"[A-Z_]+:", ln)]
    text = "\n".join(users + lines[lines.index("---", 1) :])  # the user's keys only
    uri = open_doc(client, path, text, version=2)
    diags = await wait_diagnostics(client, uri, lambda d: "CKP001" in codes(d))
    assert codes(diags) == {"CKP001"}  # one finding, not one a missing field
    actions = await _actions(client, uri, diags) or []
    fix = next(a for a in actions if isinstance(a, types.CodeAction) and a.is_preferred)
    assert fix.edit is not None
    apply_workspace_edit(client, fix.edit)
    await wait_diagnostics(client, uri, lambda d: "CKP001" not in codes(d))
    new = client.texts[uri][1]
    front = new.split("\n---\n", 1)[0]
    assert front.startswith("---\ntitle: Deploy services on Kubernetes with Argo CD\n")
    assert (
        "\nCONCEPT: " in front
        and "\nANSWERS_WHEN: " in front
        and "\ntags: [infrastructure, deployment]" in front
    )
    assert new.split("\n---\n", 1)[1] == text.split("\n---\n", 1)[1]  # the body as it was
