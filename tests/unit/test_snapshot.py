"""One owner of the banks, snapshots for work off its thread: a Recompile that runs while the
user types sees the bank as it was when it started, whole."""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path

from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.bank.checks import check_file
from ckp_lsp.core.compile.compiler import compile_header
from ckp_lsp.core.project.config import Config
from ckp_lsp.faces.banks import load_bank
from ckp_lsp.server.state import WorkspaceState
from tests.unit.builders import copy_bank

ROOT = Path(__file__).resolve().parents[2]
MENTAT = ROOT / "samples" / "mentat" / "memory-bank"


def loaded(tmp_path: Path) -> tuple[WorkspaceState, Bank]:
    root = copy_bank(MENTAT, tmp_path / "memory-bank").resolve()
    state = WorkspaceState()
    state.folders = [tmp_path.resolve()]
    bank = load_bank(root, Config())
    state.reload_all([bank])
    return state, bank


def renamed(text: str, concept: str) -> str:
    return re.sub(r"^CONCEPT:.*$", f"CONCEPT:      {concept}", text, count=1, flags=re.M)


def findings(bank: Bank) -> dict[str, list[tuple[str, str]]]:
    return {rel: [(f.code, f.message) for f in check_file(bank, rel)] for rel in sorted(bank.files)}


def test_a_snapshot_keeps_the_bank_as_it_was_while_the_bank_changes(tmp_path: Path) -> None:
    state, bank = loaded(tmp_path)
    snap = bank.snapshot()
    files, concepts, before = (
        dict(snap.files),
        {k: list(v) for k, v in snap.by_concept.items()},
        findings(snap),
    )
    oauth2 = bank.root / "patterns/oauth2.md"
    state.changed(oauth2, renamed(oauth2.read_text(), "login"))  # every entry naming oauth2 breaks
    state.disk_deleted(bank.root / "patterns/auth.md")
    state.opened(bank.root / "patterns/new.md", renamed((bank.root / "patterns/jwt.md").read_text(), "jwt"))
    assert "login" in bank.by_concept and "auth" not in bank.by_concept  # the live bank changed
    assert snap.files == files and snap.by_concept == concepts
    assert findings(snap) == before


class Typist:
    """A model that takes its time: the user types in other files meanwhile (on the owner's side)."""

    name = "typist"

    def __init__(self, state: WorkspaceState, bank: Bank) -> None:
        self.state, self.bank = state, bank
        self.asked = threading.Event()
        self.typed = threading.Event()

    def complete(self, prompt: object, job: object = None) -> str:
        self.asked.set()
        assert self.typed.wait(30)
        return json.dumps(
            {"TLDR": "Tokens.", "ANSWERS_WHEN": ["jwt"], "SIMILAR_HIGH": ["oauth2"], "CONFIDENCE": "high"}
        )


def test_recompile_while_typing_compiles_against_the_bank_it_started_from(tmp_path: Path) -> None:
    state, bank = loaded(tmp_path)
    jwt = bank.root / "patterns/jwt.md"
    text = jwt.read_text() + f"\nWritten in {tmp_path}.\n"  # not a text whose answer is cached
    model = Typist(state, bank)
    outcome: list[object] = []

    def work() -> None:
        try:
            outcome.append(compile_header(bank.snapshot(), "patterns/jwt.md", text, model, 30))
        except Exception as exc:
            outcome.append(exc)

    thread = threading.Thread(target=work)
    thread.start()
    assert model.asked.wait(30)
    # While the model thinks, the user types: oauth2, which the answer relates jwt to, is renamed
    # back and forth and ends renamed; files come and go.
    oauth2 = bank.root / "patterns/oauth2.md"
    for n in range(200):
        state.changed(oauth2, renamed(oauth2.read_text(), "oauth2" if n % 2 else f"login{n}"))
        state.opened(bank.root / f"notes/n{n}.md", renamed(text, f"n{n}"))
    state.changed(oauth2, renamed(oauth2.read_text(), "login"))
    model.typed.set()
    for n in range(400):  # and goes on typing while the compiler validates
        state.changed(bank.root / f"notes/n{n % 200}.md", renamed(text, f"m{n}"))
        state.disk_deleted(bank.root / f"notes/n{(n + 100) % 200}.md")
    thread.join(30)
    (compiled,) = outcome
    assert not isinstance(compiled, Exception), compiled  # not "dictionary changed size", nor unknown oauth2
    assert compiled.header.startswith("CONCEPT:") and "oauth2:" in compiled.header
