"""Start a bank for a project: one knowledge file that describes it, and its index; or find the
bank the project keeps already (``ckp init`` adopts it as ``ckp compile --all`` compiles a bank).

The project is read by ``project``; the header is compiled offline (SPEC §7), so the result is
the same on every run. The agent rules that point an agent at the bank are ``agent_rules``'.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ckp_lsp.core.bank.bank import Bank, Loader
from ckp_lsp.core.compile.model import Answer, ConceptSummary
from ckp_lsp.core.format.dates import CkpDate
from ckp_lsp.core.project.config import config_for_bank
from ckp_lsp.core.project.project import project_answer, project_body, scan_project
from ckp_lsp.core.project.within import escape


class InitError(Exception):
    """Nothing was written: the message says why."""


class AlreadyDone(InitError):
    """What init would write is there already: nothing to do."""


@dataclass
class InitPlan:
    """What ``ckp init`` writes to start a bank: the file ``rel`` of the bank at ``bank`` (its
    text, declaring ``concept``), then the bank's index; ``existing``, the bank read before (None
    when there was none)."""

    bank: Path
    rel: str
    concept: str
    text: str
    existing: Bank | None

    @property
    def file(self) -> Path:
        return self.bank / self.rel


# --- the knowledge file -------------------------------------------------------------------------


def header_text(concept: str, answer: Answer, month: str) -> str:
    """The bare header of SPEC §2, relationships and VALIDATED dated ``month``."""
    lines = [
        f"CONCEPT:      {concept}",
        f"TLDR:         {answer.tldr}",
        f"ANSWERS_WHEN: {', '.join(answer.answers_when)}",
    ]
    if answer.similar_high:
        lines.append("SIMILAR_HIGH: " + ", ".join(f"{c}:{month}" for c in answer.similar_high))
    if answer.similar_mid:
        lines.append("SIMILAR_MID:  " + ", ".join(f"{c}:{month}" for c in answer.similar_mid))
    lines += [f"CONFIDENCE:   {answer.confidence}", f"VALIDATED:    {month}"]
    return "\n".join(lines) + "\n"


def plan_init(project_dir: Path, bank_dir: Path | None = None, *, today: CkpDate, load: Loader) -> InitPlan:
    """What starts a bank for the project: ``<bank>/projects/<concept>.md`` (VALIDATED the month of
    ``today``), then the index; the bank is read by ``load`` (the face's bank service, which writes
    the plan through its one write path).

    Raises InitError, writing nothing, when that file exists already.
    """
    if not project_dir.is_dir():
        raise InitError(f"{project_dir}: no such folder")
    bank_root = bank_dir if bank_dir is not None else project_dir / "memory-bank"
    why = escape(bank_root, project_dir)
    if why is not None:
        raise InitError(why)
    project = scan_project(project_dir, skip=bank_root)
    rel = f"projects/{project.concept}.md"
    target = bank_root / rel
    if target.exists():
        raise AlreadyDone(
            f"{target} exists already: nothing was written (edit it, or remove it to start again)"
        )
    existing = load(bank_root, config_for_bank(bank_root), None) if bank_root.is_dir() else None
    if existing is not None and project.concept in existing.by_concept:
        raise InitError(
            f"concept '{project.concept}' is already declared by "
            f"{bank_root / existing.by_concept[project.concept][0]}: nothing was written"
        )
    others = [
        ConceptSummary(kf.concept, kf.tldr, tuple(i.text for i in kf.keywords))
        for kf in (existing.sorted_files() if existing else [])
        if kf.concept
    ]
    body = project_body(project)
    text = header_text(project.concept, project_answer(project, others), today.month_text()) + "\n" + body
    return InitPlan(bank_root, rel, project.concept, text, existing)


def existing_bank(project_dir: Path) -> Path | None:
    """The bank the project keeps already (``memory-bank/``, ``.memory-bank/``, ``.claude/memory/``,
    ``memory/``, a folder ``.ckp.toml`` names, one with a CKP ``_index.md``), if it has any."""
    from ckp_lsp.core.project.discovery import find_banks

    found = find_banks([project_dir])
    return found[0] if found else None


# --- the agent rules ----------------------------------------------------------------------------
