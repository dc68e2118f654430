"""``ckp mcp`` end to end: the real server started over stdio by the MCP SDK's own client."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from ckp_lsp.cli.main import main as ckp
from ckp_lsp.core.agent.agent_text import BANK_NOTE, quote_file
from ckp_lsp.core.format.fields import token_estimate
from ckp_lsp.core.format.index import update_index_text
from ckp_lsp.core.project.config import config_for_bank
from ckp_lsp.core.routing.bench import tool_tokens
from ckp_lsp.core.routing.index_pattern import Router
from ckp_lsp.core.routing.ranked import RankedRouter
from ckp_lsp.faces.banks import load_bank
from tests.copies import copy_tree

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples"
MENTAT = "mentat/memory-bank"
TOOLS = {"ckp_route", "ckp_read", "ckp_check", "ckp_compile", "ckp_index"}


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A copy of the bundled samples: the mentat bank and the broken bank."""
    ws = tmp_path / "ws"
    copy_tree(SAMPLES, ws)
    return ws


@asynccontextmanager
async def serve(folder: Path, *flags: str, cwd: Path | None = None) -> AsyncIterator[ClientSession]:
    """A session with ``ckp mcp FOLDER FLAGS`` started as a subprocess (this checkout's code)."""
    env = {
        "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p),
        # the user's own settings and trusted folders stay out of the test
        "XDG_CONFIG_HOME": str(folder.parent / ".user-config"),
    }
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "ckp_lsp.cli.main", "mcp", str(folder), *flags],
        env=env,
        cwd=str(cwd or folder),
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


async def call(session: ClientSession, tool: str, **arguments: Any) -> dict[str, Any]:
    """The structured result of a tool call that must succeed."""
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


async def refused(session: ClientSession, tool: str, **arguments: Any) -> str:
    """The message of a tool call that must fail as a tool error."""
    result = await session.call_tool(tool, arguments)
    assert result.is_error, result.structured_content
    return " ".join(getattr(c, "text", "") for c in result.content)


def cli_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    capsys.readouterr()
    ckp(list(argv))
    return json.loads(capsys.readouterr().out)


async def test_lists_the_five_tools_with_their_schemas(workspace: Path) -> None:
    async with serve(workspace / MENTAT) as s:
        listed = {t.name: t for t in (await s.list_tools()).tools}
    assert set(listed) == TOOLS
    route = listed["ckp_route"]
    assert route.input_schema["required"] == ["query"]
    assert set(route.input_schema["properties"]) == {"query", "bank", "include_content", "max_tokens"}
    assert route.input_schema["properties"]["include_content"]["type"] == "boolean"
    assert set(listed["ckp_read"].input_schema["properties"]) == {"concept", "file", "bank"}
    assert set(listed["ckp_check"].input_schema["properties"]) == {"bank", "files"}
    assert listed["ckp_compile"].input_schema["required"] == ["file"]
    assert all(t.output_schema and t.output_schema["type"] == "object" for t in listed.values())
    assert route.annotations is not None and route.annotations.read_only_hint is True
    # The definitions (name, description, input schema) sit in the agent's context on every
    # question: the README says about 640 tokens; the output schemas are for the host to check answers.
    definitions = [
        t.model_dump(mode="json", by_alias=True, exclude_none=True, exclude={"output_schema"})
        for t in listed.values()
    ]
    assert token_estimate(len(json.dumps(definitions, separators=(",", ":")))) < 700
    assert "anyOf" not in json.dumps(definitions)


async def test_routes_every_sample_question_as_ckp_route_does(
    workspace: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(workspace)
    queries = [q["query"] for q in yaml.safe_load((workspace / "mentat/queries.yaml").read_text())]
    assert len(queries) >= 10
    async with serve(workspace / MENTAT) as s:
        for q in queries:
            assert await call(s, "ckp_route", query=q) == cli_json(
                capsys, "route", MENTAT, q, "--format", "json"
            )


async def test_the_answer_text_is_the_compact_json_ckp_bench_counts(workspace: Path) -> None:
    query = "How does the OAuth2 login flow with SPID work?"
    async with serve(workspace / MENTAT) as s:
        result = await s.call_tool("ckp_route", {"query": query})
    assert result.structured_content is not None
    text = getattr(result.content[0], "text", None)
    assert text == json.dumps(result.structured_content, ensure_ascii=False, separators=(",", ":"))
    bank = workspace / MENTAT
    routed = RankedRouter(load_bank(bank, config_for_bank(bank))).route(query)
    call = json.dumps({"name": "ckp_route", "arguments": {"query": query}}, separators=(",", ":"))
    assert tool_tokens(routed) == token_estimate(len(call)) + token_estimate(len(text)) + routed.tokens.loaded


async def test_route_ranks_files_by_their_body_and_names_the_words_it_matched(workspace: Path) -> None:
    """ckp_route is the ranked router (SPEC 6b): auth.md holds "rotated" and "refresh" in its body
    only, and is loaded with those words in the declaration; the index pattern misses it."""
    async with serve(workspace / MENTAT) as s:
        routed = await call(s, "ckp_route", query="How are refresh tokens rotated?")
    auth = next(e for e in routed["loaded"] if e["file"] == "patterns/auth.md")
    assert auth["keywords"] == [] and {"rotated", "refresh"} <= set(auth["words"])
    assert "patterns/auth.md via rotated" in routed["declaration"]
    bank = workspace / MENTAT
    index = Router(load_bank(bank, config_for_bank(bank))).route("How are refresh tokens rotated?")
    assert "patterns/auth.md" not in [e.file for e in index.loaded]


async def test_route_brings_the_loaded_files_text_when_asked(workspace: Path) -> None:
    async with serve(workspace / MENTAT) as s:
        got = await call(
            s, "ckp_route", query="How do the JWT guards protect NestJS routes?", include_content=True
        )
        plain = await call(s, "ckp_route", query="How do the JWT guards protect NestJS routes?")
    assert {e["concept"] for e in got["loaded"]} >= {"auth", "jwt"}
    for entry in got["loaded"]:
        text = (workspace / MENTAT / entry["file"]).read_text(encoding="utf-8")
        assert entry.pop("content") == quote_file(entry["file"], text)
    assert got.pop("note") == BANK_NOTE
    assert got == plain


async def test_reads_a_file_by_concept_by_path_and_the_index(workspace: Path) -> None:
    bank = workspace / MENTAT
    async with serve(bank) as s:
        by_concept = await call(s, "ckp_read", concept="jwt")
        by_path = await call(s, "ckp_read", file=by_concept["file"])
        index = await call(s, "ckp_read", file="_index.md")
    assert by_concept["text"] == quote_file(
        by_concept["file"], (bank / by_concept["file"]).read_text(encoding="utf-8")
    )
    assert by_concept["concept"] == "jwt" and by_concept == by_path
    assert index["text"] == quote_file("_index.md", (bank / "_index.md").read_text(encoding="utf-8"))
    assert by_concept["note"] == BANK_NOTE


async def test_refuses_every_path_outside_the_bank_and_keeps_answering(workspace: Path) -> None:
    bank = workspace / MENTAT
    secret = workspace / "secret.md"
    secret.write_text("CONCEPT: secret\nTLDR: Not in the bank.\nANSWERS_WHEN: secret\n\ntop secret\n")
    (bank / "leak.md").symlink_to(secret)
    (bank / "domain" / "up").symlink_to(workspace, target_is_directory=True)
    async with serve(workspace) as s:
        for path in (
            "../secret.md",
            f"{MENTAT}/../../secret.md",
            "domain/../../../secret.md",
            str(secret),
            "/etc/passwd",
            "leak.md",
            f"{MENTAT}/leak.md",
            "domain/up/secret.md",
            "secret.md",
            "mentat/queries.yaml",
        ):
            for tool in ("ckp_read", "ckp_compile"):
                args: dict[str, Any] = {"file": path}
                if tool == "ckp_read":
                    args["bank"] = MENTAT
                message = await refused(s, tool, **args)
                assert "top secret" not in message
        assert "outside" in await refused(s, "ckp_read", file="../secret.md", bank=MENTAT)
        assert "symbolic link" in await refused(s, "ckp_read", file=f"{MENTAT}/leak.md")
        routed = await call(s, "ckp_route", query="What is the secret?", bank=MENTAT, include_content=True)
        # (jwt.md speaks of its signing secret: the file outside the bank is neither routed nor read)
        assert "leak.md" not in [e["file"] for e in routed["loaded"]]
        assert "top secret" not in json.dumps(routed)
        assert (await call(s, "ckp_read", concept="jwt", bank=MENTAT))["concept"] == "jwt"
    assert secret.read_text().endswith("top secret\n")


async def test_check_returns_what_ckp_check_prints(
    workspace: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(workspace)
    async with serve(workspace, cwd=workspace) as s:
        everything = await call(s, "ckp_check")
        broken = await call(s, "ckp_check", bank="broken/memory-bank")
        some = await call(
            s, "ckp_check", bank="mentat/memory-bank", files=["projects/mentat.md", "_index.md"]
        )
    assert everything == cli_json(capsys, "check", ".", "--format", "json")
    assert broken == cli_json(capsys, "check", "broken/memory-bank", "--format", "json")
    assert broken["summary"]["errors"] > 0
    # Both faces give the core the day: the broken bank's VALIDATED 2099-01 is in the future.
    assert any(d["code"] == "CKP052" for d in broken["diagnostics"])
    files = [f"{MENTAT}/projects/mentat.md", f"{MENTAT}/_index.md"]
    assert some == cli_json(capsys, "check", *files, "--format", "json")


async def test_compile_rewrites_only_the_header(workspace: Path) -> None:
    bank = workspace / MENTAT
    header = b"CONCEPT: cache-layer\nTLDR: Old.\nANSWERS_WHEN: cache\n\n"
    body = (
        b"# Cache layer\r\n\r\nMentat keeps ISTAT answers in Redis for an hour; the JWT guard runs\r\n"
        b"before the cache is read.  Trailing spaces stay.  \r\n\r\nNo newline at the end"
    )
    target = bank / "stack" / "cache.md"
    target.write_bytes(header + body)
    async with serve(bank) as s:
        got = await call(s, "ckp_compile", file="stack/cache.md")
        again = await call(s, "ckp_compile", file="stack/cache.md")
        routed = await call(s, "ckp_route", query="How does the cache layer work?")
    after = target.read_bytes()
    assert after.endswith(body) and after != header + body
    assert got["changed"] is True and after.decode() == got["header"] + "\n" + body.decode()
    assert got["header"].split()[:2] == ["CONCEPT:", "cache-layer"] and "VALIDATED:" in got["header"]
    assert got["provider"] == "offline"
    assert not [d for d in got["diagnostics"] if d["severity"] == 1]
    assert again["changed"] is False and target.read_bytes() == after
    assert "cache-layer" in [e["concept"] for e in routed["loaded"]]


async def test_compile_dry_run_says_what_it_would_add_and_writes_nothing(workspace: Path) -> None:
    bank = workspace / MENTAT
    target = bank / "patterns" / "jwt.md"
    text = target.read_text(encoding="utf-8")
    header, body = text.split("\n\n", 1)
    # An author's short list: the recompile keeps it whole and adds the body's own topics.
    short = header.replace(
        "ANSWERS_WHEN: jwt, JSON web token, access token, refresh token, bearer, claims, signing key, RS256, "
        "JWKS, token expiry, revocation",
        "ANSWERS_WHEN: jwt, RS256, JWKS",
    )
    assert short != header
    target.write_text(f"{short}\n\n{body}", encoding="utf-8")
    before = target.read_bytes()
    async with serve(bank) as s:
        dry = await call(s, "ckp_compile", file="patterns/jwt.md", dry_run=True)
        assert target.read_bytes() == before  # a dry run writes nothing
        done = await call(s, "ckp_compile", file="patterns/jwt.md")
        again = await call(s, "ckp_compile", file="patterns/jwt.md", dry_run=True)
    added = dry["added"]["ANSWERS_WHEN"]
    assert dry["dry_run"] is True and dry["changed"] is True and added
    assert dry["removed"] == {} and dry["updated"] == {}  # no keyword lost, CONFIDENCE and TLDR kept
    assert dry["change"].startswith(f"+{len(added)} keyword") and all(k in dry["change"] for k in added)
    assert done["dry_run"] is False and done["header"] == dry["header"] and done["added"] == dry["added"]
    after = target.read_text(encoding="utf-8")
    assert after.endswith(body) and "ANSWERS_WHEN: jwt, RS256, JWKS, " in after
    assert again["changed"] is False and again["change"] == "no change" and again["added"] == {}


async def test_compile_ignores_a_program_an_untrusted_repository_names(workspace: Path) -> None:
    bank = workspace / MENTAT
    witness = workspace / "ran"
    (workspace / ".ckp.toml").write_text(
        f'[llm]\nprovider = "command"\ncommand = "touch {witness}"\n', encoding="utf-8"
    )
    async with serve(bank) as s:
        got = await call(s, "ckp_compile", file="stack/database.md")
    assert got["provider"] == "offline"
    assert any("provider" in note for note in got["ignored"])
    assert not witness.exists()


async def test_compile_uses_the_users_llm_and_the_server_keeps_answering_meanwhile(workspace: Path) -> None:
    import anyio

    from tests.fake_llm import FakeLLM, Reply

    bank = workspace / MENTAT
    body = (bank / "patterns" / "jwt.md").read_text(encoding="utf-8").split("\n\n", 1)[1]
    with FakeLLM() as llm:
        llm.script(Reply(delay=4.0))
        user = bank.parent / ".user-config" / "ckp"  # the XDG_CONFIG_HOME serve() gives
        user.mkdir(parents=True)
        (user / "config.toml").write_text(
            f'[llm]\nprovider = "openai"\nbase_url = "{llm.openai_base_url}"\nmodel = "m"\n', encoding="utf-8"
        )
        done: dict[str, float] = {}
        async with serve(bank) as s:
            start = anyio.current_time()
            got: dict[str, Any] = {}

            async def compile_jwt() -> None:
                got.update(await call(s, "ckp_compile", file="patterns/jwt.md"))
                done["compile"] = anyio.current_time() - start

            async def route_jwt() -> None:
                got["routed"] = await call(
                    s, "ckp_route", query="How do the JWT guards protect NestJS routes?"
                )
                done["route"] = anyio.current_time() - start

            async with anyio.create_task_group() as tg:
                tg.start_soon(compile_jwt)
                await anyio.sleep(0.5)
                tg.start_soon(route_jwt)  # waits for the bank, which the compile holds
                await anyio.sleep(0.3)
                assert len((await s.list_tools()).tools) == 5
                done["list"] = anyio.current_time() - start
            routed = got.pop("routed")
    # The event loop stayed free while the model thought (4 s) and the route waited for the bank.
    assert done["list"] < 3.0 < 4.0 <= done["compile"]
    assert done["route"] >= 4.0
    assert got["provider"] == "openai" and got["changed"] is True and got["ignored"] == []
    assert "JWT access tokens" in got["header"] and "http-headers" not in got["header"]
    assert (bank / "patterns" / "jwt.md").read_text(encoding="utf-8").endswith(body)
    assert "jwt" in [e["concept"] for e in routed["loaded"]]
    assert len(llm.received) == 1


async def test_index_regenerates_the_index(workspace: Path) -> None:
    bank = workspace / MENTAT
    index = bank / "_index.md"
    index.write_text(index.read_text(encoding="utf-8").replace("| jwt |", "| jwt-old |"), encoding="utf-8")
    async with serve(bank) as s:
        assert (await call(s, "ckp_check"))["summary"]["warnings"] > 0
        got = await call(s, "ckp_index")
        assert got["changed"] is True and got["concepts"] == 11
        assert (await call(s, "ckp_check"))["diagnostics"] == []
        assert (await call(s, "ckp_index"))["changed"] is False
    fresh = load_bank(bank, config_for_bank(bank))
    assert index.read_text(encoding="utf-8") == update_index_text(fresh.index_text, fresh)


async def test_read_only_lists_no_writing_tool(workspace: Path) -> None:
    bank = workspace / MENTAT
    before = {p: p.read_bytes() for p in bank.rglob("*.md")}
    async with serve(bank, "--read-only") as s:
        names = {t.name for t in (await s.list_tools()).tools}
        message = await refused(s, "ckp_compile", file="stack/database.md")
        await refused(s, "ckp_index")
        assert (await call(s, "ckp_route", query="database migrations"))["loaded"]
    assert names == {"ckp_route", "ckp_read", "ckp_check"}
    assert "ckp_compile" in message
    assert {p: p.read_bytes() for p in bank.rglob("*.md")} == before


async def test_a_malformed_call_is_a_tool_error_and_the_server_keeps_answering(workspace: Path) -> None:
    async with serve(workspace / MENTAT) as s:
        assert "query" in await refused(s, "ckp_route")
        await refused(s, "ckp_route", query=["not", "a", "string"])
        await refused(s, "ckp_route", query="jwt", include_content="perhaps")
        await refused(s, "ckp_route", query="   ")
        await refused(s, "ckp_read")
        await refused(s, "ckp_read", concept="jwt", file="auth/jwt.md")
        assert "did you mean 'jwt'" in await refused(s, "ckp_read", concept="jwtt")
        await refused(s, "ckp_read", file="\x00")
        await refused(s, "ckp_check", files="projects/mentat.md")
        await refused(s, "ckp_route", query="jwt", bank="no-such-bank")
        await refused(s, "ckp_nothing", query="jwt")
        got = await call(s, "ckp_route", query="How do the JWT guards protect NestJS routes?")
    assert "jwt" in [e["concept"] for e in got["loaded"]]


async def test_several_banks_are_named_and_each_has_its_index_resource(workspace: Path) -> None:
    async with serve(workspace) as s:
        message = await refused(s, "ckp_route", query="jwt")
        routed = await call(s, "ckp_route", query="jwt tokens", bank=MENTAT)
        from_above = await call(s, "ckp_read", file=f"{MENTAT}/stack/database.md")
        uris = [str(r.uri) for r in (await s.list_resources()).resources]
        index = await s.read_resource(f"ckp://index?bank={MENTAT.replace('/', '%2F')}")
        concept = await s.read_resource(f"ckp://concept/jwt?bank={MENTAT.replace('/', '%2F')}")
    assert "'broken/memory-bank'" in message and f"'{MENTAT}'" in message
    assert "jwt" in [e["concept"] for e in routed["loaded"]]
    assert from_above["concept"] == "database" and from_above["bank"] == MENTAT
    assert "ckp://index?bank=broken%2Fmemory-bank" in uris and "ckp://index?bank=mentat%2Fmemory-bank" in uris
    assert getattr(index.contents[0], "text", None) == (workspace / MENTAT / "_index.md").read_text(
        encoding="utf-8"
    )
    jwt = next(p for p in (workspace / MENTAT).rglob("jwt.md"))
    assert getattr(concept.contents[0], "text", None) == jwt.read_text(encoding="utf-8")


async def test_resources_are_the_index_and_each_concepts_file_and_a_prompt_has_the_rules(
    workspace: Path,
) -> None:
    bank = workspace / MENTAT
    async with serve(bank) as s:
        resources = (await s.list_resources()).resources
        index = await s.read_resource("ckp://index")
        database = await s.read_resource("ckp://concept/database")
        prompts = (await s.list_prompts()).prompts
        rules = await s.get_prompt("ckp_routing_rules")
    uris = {str(r.uri) for r in resources}
    concepts = {kf.concept for kf in load_bank(bank, config_for_bank(bank)).files.values()}
    assert uris == {"ckp://index"} | {f"ckp://concept/{c}" for c in concepts}
    assert getattr(index.contents[0], "text", None) == (bank / "_index.md").read_text(encoding="utf-8")
    assert getattr(database.contents[0], "text", None) == (bank / "stack/database.md").read_text(
        encoding="utf-8"
    )
    assert [p.name for p in prompts] == ["ckp_routing_rules"]
    assert "ckp_route" in getattr(rules.messages[0].content, "text", "")


async def test_files_changed_on_disk_are_seen_without_a_restart(workspace: Path) -> None:
    import anyio

    bank = workspace / MENTAT
    query = "How does the zeppelin fleet refuel?"
    async with serve(bank) as s:
        assert (await call(s, "ckp_route", query=query))["out_of_domain"] is True
        new = bank / "domain" / "zeppelin.md"
        new.write_text("CONCEPT: zeppelin\nTLDR: Airships.\nANSWERS_WHEN: zeppelin\n\n# Zeppelins\n")
        assert [e["concept"] for e in (await call(s, "ckp_route", query=query))["loaded"]] == ["zeppelin"]
        # Rewritten in place (the folder does not change): the stat scan finds it within a second or two.
        with new.open("r+") as fh:
            fh.write("CONCEPT: dirigible\n")
        for _ in range(40):
            loaded = [e["concept"] for e in (await call(s, "ckp_route", query="dirigible"))["loaded"]]
            if loaded:
                break
            await anyio.sleep(0.1)
        assert loaded == ["dirigible"]
        new.unlink()
        assert (await call(s, "ckp_route", query="dirigible"))["out_of_domain"] is True


async def test_a_bank_without_headers_is_reported_as_not_compiled(tmp_path: Path) -> None:
    bank = tmp_path / "memory-bank"
    bank.mkdir()
    (bank / "notes.md").write_text("# Notes\n\nNothing compiled yet.\n")
    async with serve(bank) as s:
        message = await refused(s, "ckp_route", query="notes")
        compiled = await call(s, "ckp_compile", file="notes.md")
        await call(s, "ckp_index")
        routed = await call(s, "ckp_route", query="notes")
    assert "not compiled" in message and "ckp_compile" in message
    assert compiled["changed"] is True
    assert [e["file"] for e in routed["loaded"]] == ["notes.md"]
