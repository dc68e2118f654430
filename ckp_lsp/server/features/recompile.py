"""Recompiling a header from the editor, planned: what is compiled or why not, and the edit that
applies the result (``handlers/recompile.py`` runs it: the model, progress, the editor's answer)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from lsprotocol import types

from ...core.bank.bank import Bank
from ...core.compile.job import Usage
from ...core.edit.header_changes import describe
from ...core.edit.line_edits import line_edits
from ...core.format.text import BOM
from .actions import recompile_annotation, text_edit

if TYPE_CHECKING:
    from ...core.compile.compiler import Compiled
    from ..snapshot import Snapshot


@dataclass(frozen=True)
class Refused:
    """A recompile that does not start: the word the command answers, and what the user is told."""

    reason: str
    message: str
    kind: types.MessageType = types.MessageType.Error


@dataclass(frozen=True)
class Plan:
    """A recompile that starts: the editor's document as the request found it."""

    uri: str
    bank: Bank
    rel: str
    text: str  # the editor's text without its BOM: what is compiled
    bom: str  # the BOM in front of the header ("" when none): kept, never compiled
    version: int | None
    annotate: bool  # the client labels the change with what it does (VS Code)


def plan(snap: Snapshot | None, unreadable: str | None = None) -> Plan | Refused:
    """What recompiling the document of ``snap`` does; ``unreadable``: why its file cannot be
    read, when the editor does not have it open."""
    if snap is None or snap.doc.is_index or snap.file is None:  # a file the bank skipped is never read
        return Refused(
            "not a knowledge file", "CKP: Recompile works on knowledge files inside a memory bank."
        )
    if snap.opened is None:
        if unreadable is not None:  # a file deleted since the bank read it is said so
            return Refused(
                f"cannot read the file ({unreadable})",
                f"CKP: cannot recompile {snap.rel}: the file cannot be read ({unreadable}).",
            )
        # An edit to a file the editor has not open carries no version: applied to whatever the
        # disk holds by then, it would overwrite a change made meanwhile (an agent's).
        return Refused(
            "not open",
            f"CKP: open {snap.rel} to recompile its header, or run `ckp compile {snap.rel}` "
            "(it writes only if the file did not change meanwhile).",
            types.MessageType.Warning,
        )
    opened = snap.opened
    bom = BOM if opened.bom else ""
    return Plan(snap.uri, snap.bank, snap.rel, opened.text, bom, opened.version, snap.caps.change_annotations)


def edit_of(plan: Plan, compiled: Compiled) -> types.WorkspaceEdit:
    """The edit that applies ``compiled``: one per run of changed lines, each readable on its own,
    the unchanged lines untouched."""
    note = None
    if plan.annotate:
        note = recompile_annotation(describe(plan.text, compiled.text, plan.rel, names=True))
    edits = line_edits(plan.bom + compiled.replaced, plan.bom + compiled.header)
    return text_edit(plan.uri, plan.version, edits, note)


def spent(usage: Usage) -> str:
    """What the model's requests cost, for the progress end message: `` (1,234 tokens: …)``."""
    if not usage.requests:
        return ""
    return (
        f" ({usage.tokens:,} tokens: {usage.prompt_tokens:,} prompt, {usage.completion_tokens:,} "
        f"completion; {usage.requests} request{'s' if usage.requests != 1 else ''})"
    )


def usage_of(usage: Usage) -> dict[str, int]:
    return {
        "promptTokens": usage.prompt_tokens,
        "completionTokens": usage.completion_tokens,
        "requests": usage.requests,
    }
