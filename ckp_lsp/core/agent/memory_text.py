"""The memory an agent is given in its context: a routed prompt's files, or a bank's summary.

Both are plain text the prompt hooks add to a prompt (and ``ckp route --max-tokens`` prints): the
declaration line first, the bank's files quoted as the bank's content (``agent_text``), within a
number of characters (``budget``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from ckp_lsp.core.agent.agent_text import BANK_NOTE, quote_file, quoted_len
from ckp_lsp.core.routing.budget import Budgeted, declaration, fit

if TYPE_CHECKING:
    from ckp_lsp.core.bank.bank import Bank
    from ckp_lsp.core.routing.result import RouteResult

#: room kept for what the declaration line says of a budget cut (it names at most three files)
_NOTE_ROOM = 400


def _shown(label: str, file: str) -> str:
    return f"{label}/{file}" if label else file


def prompt_context(
    result: RouteResult, texts: Mapping[str, str], label: str, max_chars: int
) -> tuple[str, Budgeted]:
    """The context for a routed prompt within ``max_chars`` characters: the declaration line, a
    line saying the files are quoted data, and each file given ("" out of domain). ``label`` is
    the bank's folder as the agent names it (files are shown below it)."""
    if result.out_of_domain:
        return "", Budgeted(max_chars)
    fixed = len(result.declaration) + _NOTE_ROOM + len(BANK_NOTE) + 2
    room = max(0, max_chars - fixed)
    while True:
        b = fit(result, texts, room, per_file=lambda e: quoted_len(_shown(label, e.file), "sections"))
        b.max_chars = max_chars  # the budget said is the whole context's, lines and quotes included
        parts = [declaration(result, b), BANK_NOTE]
        parts += [quote_file(_shown(label, g.file), g.text, g.part) for g in b.given]
        text = "\n".join(parts) + "\n"
        if len(text) <= max_chars or room == 0:
            return (text if len(text) <= max_chars else "", b)
        room = max(0, room - (len(text) - max_chars))  # quoting made a text longer: fit again in less


def session_summary(bank: Bank, label: str, max_chars: int) -> str:
    """A short summary of the bank for a session's start: its concepts and TLDRs, as many as
    ``max_chars`` holds, never the whole index; "" for a bank without concepts."""
    files = [kf for kf in bank.sorted_files() if kf.concept and bank.file_of(kf.concept) is kf]
    if not files:
        return ""
    where = label or bank.root.name
    head = (
        f"[CKP: memory bank {where}/ — {len(files)} concepts. The files a prompt needs are added "
        "to it; the concepts and their TLDRs follow.]"
    )
    lines: list[str] = []
    used = len(head) + len(BANK_NOTE) + quoted_len(where, "concepts") + 80
    for kf in files:
        line = f"- {kf.concept} ({kf.path}): {' '.join(kf.tldr.split())}"
        if used + len(line) + 1 > max_chars:
            break
        lines.append(line)
        used += len(line) + 1
    rest = len(files) - len(lines)
    if rest:
        lines.append(f"… and {rest} more concept{'s' if rest != 1 else ''} (routed when a prompt needs them)")
    text = "\n".join([head, BANK_NOTE, quote_file(where, "\n".join(lines), "concepts")]) + "\n"
    return text if len(text) <= max_chars else ""
