"""What each MCP tool does, as plain functions of the served banks: the server module only wraps them.

Each returns the JSON value the agent gets (the same as the matching ``ckp`` command prints with
``--format json``) or raises ``Refusal`` with what to do.
"""

from __future__ import annotations

from typing import Any

from ckp_lsp.core.agent.agent_text import BANK_NOTE, for_agent, quote_file
from ckp_lsp.core.bank.checks import check_file
from ckp_lsp.core.bank.findings import Finding
from ckp_lsp.core.bank.index_checks import check_index
from ckp_lsp.core.edit.header_changes import describe, header_diff
from ckp_lsp.core.format.fields import token_estimate
from ckp_lsp.core.format.index import update_index_text
from ckp_lsp.core.format.knowledge import read_knowledge_file
from ckp_lsp.core.project.discovery import INDEX_NAME
from ckp_lsp.core.routing.budget import declaration as budget_declaration
from ckp_lsp.core.routing.budget import fit, tokens_to_chars
from ckp_lsp.faces.banks import write_file, write_index

from ..core.compile.compiler import compile_header
from ..core.compile.model import CompileError
from ..faces.findings_json import as_json
from ..faces.llm.providers import provider_for
from .banks import Refusal, ServedBank, ServedBanks


def route(
    banks: ServedBanks,
    query: str,
    bank: str | None = None,
    include_content: bool = False,
    max_tokens: int | None = None,
) -> dict[str, Any]:
    """``ckp route --format json`` for ``query``, with the loaded files' text when asked (quoted
    as the bank's content), within ``max_tokens`` tokens of file text when given."""
    if not query.strip():
        raise Refusal("'query' is empty: pass the question the agent is answering")
    if max_tokens is not None and max_tokens < 1:
        raise Refusal("'max_tokens' must be a whole number of at least 1 (the tokens of file text to return)")
    with banks.lock:
        sb = banks.bank(bank)
        router = sb.router()
        if router.files and not any(router.table.concepts):
            # Nothing can match a bank without headers: say so rather than "out of domain".
            raise Refusal(
                f"the bank {sb.name} is not compiled: none of its {router.files} knowledge files has a CKP "
                "header, so no question can match. Call ckp_compile on each file (or run "
                f"`ckp compile --all {sb.root}`), then ckp_index."
            )
        routed = router.route(query)
        result = routed.as_dict()
        if max_tokens is None:
            if include_content:
                for entry in result["loaded"]:
                    entry["content"] = quote_file(entry["file"], banks.read(sb, entry["file"]))
                result["note"] = BANK_NOTE
            return result
        texts = {}
        for e in routed.loaded:
            try:
                texts[e.file] = banks.read(sb, e.file)
            except Refusal:
                continue  # unreadable: the budget names it as left out
        budgeted = fit(routed, texts, tokens_to_chars(max_tokens))
        result["budget"] = budgeted.as_dict()
        result["declaration"] = budget_declaration(routed, budgeted)
        if include_content:
            given = {g.file: g for g in budgeted.given}
            for entry in result["loaded"]:
                g = given.get(entry["file"])
                if g is not None:
                    entry["content"] = quote_file(g.file, g.text, g.part)
            result["note"] = BANK_NOTE
    return result


def read(
    banks: ServedBanks, concept: str | None = None, file: str | None = None, bank: str | None = None
) -> dict[str, Any]:
    """One knowledge file of a bank (or its ``_index.md``), by concept or by path."""
    if bool(concept and concept.strip()) == bool(file and file.strip()):
        raise Refusal("name exactly one of 'concept' (such as 'jwt') or 'file' (such as 'auth/jwt.md')")
    with banks.lock:
        sb, rel = banks.concept(concept, bank) if concept else banks.file(file or "", bank, index=True)
        text = banks.read(sb, rel)
        kf = sb.bank.files.get(rel)
        return {
            "bank": sb.name,
            "file": rel,
            "concept": kf.concept if kf is not None else None,
            "tokens": token_estimate(len(text)),
            "text": quote_file(rel, text),
            "note": BANK_NOTE,
        }


def check(banks: ServedBanks, bank: str | None = None, files: list[str] | None = None) -> dict[str, Any]:
    """``ckp check --format json`` of a bank, of every bank served, or of some of their files."""
    with banks.lock:
        wanted: dict[str, tuple[ServedBank, list[str], bool]] = {}
        if files:
            for f in files:
                sb, rel = banks.file(f, bank, index=True)
                _, rels, with_index = wanted.setdefault(sb.name, (sb, [], False))
                if rel == INDEX_NAME:
                    with_index = True
                elif rel not in rels:
                    rels.append(rel)
                wanted[sb.name] = (sb, rels, with_index)
        else:
            for sb in banks.in_scope(bank):
                wanted[sb.name] = (sb, sorted(sb.bank.files), True)
        results: list[tuple[Any, Finding]] = []
        checked = 0
        for sb, rels, with_index in sorted(wanted.values(), key=lambda w: w[0].root):
            checked += len(rels) + bool(files and with_index)  # the index, when named (as ckp check)
            for rel in sorted(rels):
                results.extend((sb.root / rel, f) for f in check_file(sb.bank, rel))
            if with_index:
                results.extend((sb.root / INDEX_NAME, f) for f in check_index(sb.bank))
        return as_json(results, checked)


def compile_file(
    banks: ServedBanks, file: str, bank: str | None = None, dry_run: bool = False
) -> dict[str, Any]:
    """Recompile the header of one knowledge file with the configured compiler; only the header
    changes. The answer says what changed (or would, with ``dry_run``, which writes nothing)."""
    with banks.lock:
        sb, rel = banks.file(file, bank)
        path = sb.root / rel
        llm = sb.bank.config.llm
        try:
            text, bom = banks.read_with_bom(sb, rel)
            compiled = compile_header(sb.bank, rel, text, provider_for(llm), llm.timeout)
        except CompileError as exc:
            raise Refusal(f"{rel}: {exc}") from None
        except OSError as exc:
            raise Refusal(f"{rel} cannot be read: {exc.strerror or exc}") from None
        changed = compiled.text != text
        if changed and not dry_run:
            written = write_file(sb.bank, rel, compiled.text, expected=text, bom=bom)
            if not written.ok:
                raise Refusal(written.refused)
            sb.wrote(rel)
        findings = as_json([(path, f) for f in check_file(sb.bank, rel)], 1)
        new_header = read_knowledge_file(rel, text).header is None
        return {
            "bank": sb.name,
            "file": rel,
            "provider": llm.provider,
            # settings of the repository ignored because its folder is not trusted (SPEC §8)
            "ignored": list(sb.bank.config.ignored),
            "dry_run": dry_run,
            "changed": changed,
            # in words, then as data: what was added, removed, and the fields given a new value
            "change": ("new header" if new_header else describe(text, compiled.text, rel, names=True))
            if changed
            else "no change",
            **header_diff(text, compiled.text, rel),
            "header": compiled.header,
            "diagnostics": findings["diagnostics"],
        }


def index(banks: ServedBanks, bank: str | None = None) -> dict[str, Any]:
    """Regenerate a bank's ``_index.md`` (everything outside its markers is kept)."""
    with banks.lock:
        sb = banks.bank(bank)
        new = update_index_text(sb.bank.index_text, sb.bank)
        written = write_index(sb.bank, new)
        changed = written is not None
        if written is not None:
            if not written.ok:
                raise Refusal(written.refused)
            sb.wrote(INDEX_NAME)
        return {
            "bank": sb.name,
            "file": INDEX_NAME,
            "changed": changed,
            "concepts": len(sb.bank.by_concept),
            "tokens": token_estimate(len(new)),
        }


def index_text(banks: ServedBanks, bank: str | None = None) -> str:
    """The text of a bank's ``_index.md`` (the one ``ckp_index`` would write when there is none)."""
    with banks.lock:
        sb = banks.bank(bank)
        text = sb.bank.index_text if sb.bank.index_text is not None else update_index_text(None, sb.bank)
        return for_agent(text)


def concept_text(banks: ServedBanks, concept: str, bank: str | None = None) -> str:
    with banks.lock:
        sb, rel = banks.concept(concept, bank)
        return for_agent(banks.read(sb, rel))


def catalogue(banks: ServedBanks) -> list[tuple[str, str, str, str]]:
    """(bank, concept, file, TLDR) of every concept served, for the resource list."""
    with banks.lock:
        return [
            (sb.name, kf.concept, kf.path, kf.tldr or "")
            for sb in banks.current()
            for kf in sb.bank.sorted_files()
            if kf.concept and sb.bank.file_of(kf.concept) is kf
        ]
