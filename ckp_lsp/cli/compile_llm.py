"""``ckp compile`` with an LLM provider: a few requests at a time, progress, the bill, and a budget.

Each file is one compile (its prompt, an answer, at most one repair) with its own deadline; ``--jobs``
of them run at once. The bank is read once and not changed while requests run, so every prompt
sees the same headers. ``--max-tokens-total`` stops starting new files once the tokens the API
reported reach the budget; the files in flight finish, so every file is either done or untouched.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path

from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.format.fields import REQUIRED_FIELDS
from ckp_lsp.core.project.config import LlmConfig

from ..core.compile.compiler import Compiled, compile_header
from ..core.compile.job import Job, Usage
from ..core.compile.model import CompileError
from ..core.compile.providers import Provider
from ..faces.banks import read_bank, read_file, write_file
from ..faces.llm.providers import provider_for
from ..faces.paths import display_path
from .output import print_diff

DEFAULT_JOBS = 4
MAX_JOBS = 64


def jobs(text: str) -> int:
    """A ``--jobs`` value: 1 to MAX_JOBS requests at a time."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= MAX_JOBS:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of requests from 1 to {MAX_JOBS}")
    return value


def tokens(text: str) -> int:
    """A ``--max-tokens-total`` value: a positive number of tokens."""
    try:
        value = int(text.replace(",", "").replace("_", ""))
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number of tokens")
    return value


def incomplete(bank: Bank, rel: str) -> bool:
    """Whether a file lacks a header or one of its required fields: ``--all`` without ``--force``
    compiles only those."""
    kf = bank.files.get(rel)
    if kf is None or kf.header is None:
        return True
    return any(not (f := kf.header.first(name)) or not f.value.strip() for name in REQUIRED_FIELDS)


@dataclass
class _Running:
    rel: str
    text: str
    bom: bool
    job: Job


class Run:
    """One ``ckp compile`` through a provider over the files of one bank."""

    def __init__(
        self, args: argparse.Namespace, bank: Bank, llm: LlmConfig, provider: Provider | None
    ) -> None:
        self.args = args
        self.bank = bank
        self.llm = llm
        self.provider = provider
        self.usage = Usage()
        self.changed = self.failed = self.done = 0
        self.total = 0
        self.started = time.monotonic()
        self.tty = sys.stderr.isatty()
        self.last_line = 0.0

    def __call__(self, rels: list[str]) -> tuple[int, list[str]]:
        """Compile ``rels``; the exit code and the files left untouched by the budget."""
        self.total = len(rels)
        budget = getattr(self.args, "max_tokens_total", None)
        waiting = list(reversed(rels))
        running: dict[Future[Compiled], _Running] = {}
        untouched: list[str] = []
        workers = getattr(self.args, "jobs", None) or DEFAULT_JOBS
        with ThreadPoolExecutor(max_workers=workers) as pool:
            try:
                while waiting or running:
                    while waiting and len(running) < workers:
                        if budget is not None and self.usage.tokens >= budget:
                            untouched, waiting = list(reversed(waiting)), []
                            break
                        self._start(pool, running, waiting.pop())
                    if not running:
                        break
                    finished, _ = wait(running, return_when=FIRST_COMPLETED)
                    for future in finished:
                        self._finish(future, running.pop(future))
            except KeyboardInterrupt:
                for r in running.values():
                    r.job.cancel()  # kills a command that is still thinking
                raise
        self._clear()
        return (1 if self.failed or untouched else 0), untouched

    def _start(self, pool: ThreadPoolExecutor, running: dict[Future[Compiled], _Running], rel: str) -> None:
        try:
            text, bom = read_file(self.bank, rel)
        except OSError as exc:
            self._fail(rel, exc.strerror or str(exc))
            return
        job = Job(self.llm.timeout)
        future = pool.submit(compile_header, self.bank, rel, text, self.provider, job)
        running[future] = _Running(rel, text, bom, job)

    def _finish(self, future: Future[Compiled], r: _Running) -> None:
        self.usage = self.usage + r.job.usage
        self.done += 1
        path = self.bank.root / r.rel
        try:
            compiled = future.result()
        except CompileError as exc:
            self._fail(r.rel, str(exc))
            return
        if compiled.text != r.text:
            self.changed += 1
            if self.args.diff or self.args.dry_run:
                self._clear()
                print_diff(path, r.text, compiled.text)
            if not self.args.dry_run:
                # the bank keeps what it read: the compiles still running read it meanwhile
                written = write_file(self.bank, r.rel, compiled.text, expected=r.text, bom=r.bom, take=False)
                if not written.ok:
                    self.changed -= 1
                    self._fail(r.rel, written.refused, named=False)
                    return
        self._progress(r.rel)

    def _fail(self, rel: str, why: str, *, named: bool = True) -> None:
        self.failed += 1
        self._clear()
        where = f"{display_path(self.bank.root / rel)}: " if named else ""
        print(f"ckp: {where}{why}", file=sys.stderr)

    def _progress(self, rel: str) -> None:
        if self.total < 2:
            return
        line = f"[{self.done}/{self.total}] {self.usage.tokens:,} tokens, {self.usage.requests} requests"
        if self.tty:
            sys.stderr.write(f"\r{line} {rel[:36]:<36}")
            sys.stderr.flush()
        elif time.monotonic() - self.last_line >= 5 or self.done == self.total:
            self.last_line = time.monotonic()
            print(f"ckp: {line}", file=sys.stderr)

    def _clear(self) -> None:
        if self.tty and self.total > 1:
            sys.stderr.write("\r" + " " * 100 + "\r")

    def summary(self, skipped: int, untouched: list[str]) -> str:
        verb = "would change" if self.args.dry_run else "recompiled"
        u = self.usage
        estimated = getattr(self.provider, "estimated", False)
        lines = [
            f"{self.done} file(s): {self.changed} {verb}, {self.failed} failed"
            + (f", {skipped} complete header(s) skipped (--force compiles them too)" if skipped else "")
            + f"; {u.tokens:,} tokens{' (estimated: characters / 4)' if estimated else ''} "
            f"({u.prompt_tokens:,} prompt + {u.completion_tokens:,} completion) "
            f"in {u.requests} request(s) to {self.provider.name if self.provider else 'offline'}, "
            f"{time.monotonic() - self.started:.1f} s."
        ]
        if untouched:
            lines.insert(
                0,
                f"ckp: stopped at the token budget ({u.tokens:,} of --max-tokens-total "
                f"{self.args.max_tokens_total:,} spent): {len(untouched)} file(s) not compiled and "
                "left untouched; run again to go on.",
            )
        return "\n".join(lines)


def run_with_provider(
    args: argparse.Namespace,
    targets: list[tuple[Path, str]],
    llm_of: Callable[[Bank], LlmConfig],
    tell: Callable[[Bank], None],
) -> int:
    """Compile ``targets`` bank by bank through each bank's provider (``--all`` fills unless ``--force``)."""
    by_bank: dict[Path, list[str]] = {}
    for root, rel in targets:
        by_bank.setdefault(root, []).append(rel)
    fill = args.all is not None and not args.force and not args.files
    code = 0
    for root, rels in by_bank.items():
        bank = read_bank(root)
        tell(bank)
        llm = llm_of(bank)
        try:
            provider = provider_for(llm)
        except CompileError as exc:
            print(f"ckp: {exc}", file=sys.stderr)
            code = 1
            continue
        chosen = [rel for rel in rels if incomplete(bank, rel)] if fill else rels
        run = Run(args, bank, llm, provider)
        result, untouched = run(chosen)
        print(run.summary(len(rels) - len(chosen), untouched), file=sys.stderr)
        code = code or result
    return code
