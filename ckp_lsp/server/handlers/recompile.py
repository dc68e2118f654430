"""The ``ckp.recompile`` command: the plan (``features/recompile.py``) run with progress,
cancellation, a timeout, and an undoable edit."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from lsprotocol import types

from ..convert import uri_arg
from ..pygls_compat import forget_progress
from ..server import CkpServer, table

_tokens = itertools.count(1)
T = TypeVar("T")


@table.command("ckp.recompile")
async def cmd_recompile(ls: CkpServer, *args: Any) -> dict[str, Any]:
    await ls.indexer.ready.wait()
    uri = uri_arg(args)
    if uri is None:
        return {"applied": False, "reason": "no document given"}
    task = ls.spawn(recompile(ls, uri))
    try:
        return await task
    except asyncio.CancelledError:
        return {"applied": False, "reason": "cancelled"}


def _tell(ls: CkpServer, message: str, kind: types.MessageType = types.MessageType.Error) -> None:
    ls.window_show_message(types.ShowMessageParams(type=kind, message=message))


async def recompile(ls: CkpServer, uri: str) -> dict[str, Any]:
    """Recompile the header of ``uri`` and apply it as a WorkspaceEdit; a dict says what happened."""
    # Imported on first use: the compiler it brings is a tenth of the server's start-up.
    from ...core.compile.compiler import compile_header
    from ...core.compile.job import Job
    from ...core.compile.model import CompileError
    from ...faces.llm.providers import provider_for
    from ..features.recompile import Refused, edit_of, plan, spent, usage_of

    session = ls.session
    snap = session.snapshot(uri)
    unreadable = None
    if snap is not None and snap.opened is None and snap.file is not None:
        try:
            snap.bank.disk.read(snap.bank.root / snap.rel)
        except OSError as exc:
            unreadable = exc.strerror or type(exc).__name__
    planned = plan(snap, unreadable)
    if isinstance(planned, Refused):
        _tell(ls, planned.message, planned.kind)
        return {"applied": False, "reason": planned.reason}
    rel, text = planned.rel, planned.text
    # Read now, not when the bank was loaded: a folder trusted since (`ckp trust`) counts at once.
    config = await asyncio.to_thread(session.state.config_for, planned.bank.root)
    _tell_ignored(ls, config.ignored)
    llm = config.llm
    try:
        provider = provider_for(llm)
    except CompileError as exc:
        _tell(ls, f"CKP: cannot recompile: {exc}")
        return {"applied": False, "reason": str(exc)}
    name = llm.provider if provider is not None else "offline"
    token = f"ckp-recompile-{next(_tokens)}"
    progress = await _begin(ls, token, f"Recompiling {rel} ({name})")
    job = Job(llm.timeout)  # the deadline of the answer; cancelling it kills the model's command

    def stop(_: object = None) -> None:
        job.cancel()
        work.cancel()

    # The compiler runs on a thread, on a snapshot: edits made meanwhile change the live bank only.
    work = _in_thread(compile_header, planned.bank.snapshot(), rel, text, provider, job)
    if progress:
        cancel = ls.work_done_progress.tokens.get(token)
        if cancel is not None:
            cancel.add_done_callback(stop)
    try:
        compiled = await asyncio.wait_for(asyncio.shield(work), timeout=llm.timeout + 5)
    except asyncio.CancelledError:
        stop()
        _end(ls, token, progress, "cancelled")
        return {"applied": False, "reason": "cancelled"}
    except asyncio.TimeoutError:
        stop()
        _end(ls, token, progress, "timed out")
        _tell(
            ls,
            f"CKP: the {name} compiler gave no answer within {llm.timeout:.0f} s; raise ckp.llm.timeout or try again.",
        )
        return {"applied": False, "reason": "timeout"}
    except CompileError as exc:
        _end(ls, token, progress, f"failed{spent(job.usage)}")
        _tell(ls, f"CKP: recompile failed, the document is unchanged: {exc}")
        return {"applied": False, "reason": str(exc)}
    current = session.documents.get(uri)
    if current is None or current.text != text or current.bom != bool(planned.bom):
        _end(ls, token, progress, "refused")
        _tell(
            ls,
            "CKP: the document changed while the header was compiling; nothing was applied, run Recompile again.",
            types.MessageType.Warning,
        )
        return {"applied": False, "reason": "document changed"}
    if compiled.text == text:
        _end(ls, token, progress, f"header already up to date{spent(compiled.usage)}")
        return {"applied": False, "reason": "unchanged", **usage_of(compiled.usage)}
    edit = edit_of(planned, compiled)
    _end(ls, token, progress, f"applying{spent(compiled.usage)}")
    result = await ls.workspace_apply_edit_async(
        types.ApplyWorkspaceEditParams(edit=edit, label="Recompile CKP header")
    )
    outcome = {} if result.applied else {"reason": _not_applied(ls, uri, planned.version, rel, result)}
    return {
        "applied": bool(result.applied),
        **outcome,
        "cached": compiled.cached,
        "provider": name,
        **usage_of(compiled.usage),
    }


def _not_applied(
    ls: CkpServer, uri: str, version: int | None, rel: str, result: types.ApplyWorkspaceEditResult
) -> str:
    """Say why the editor did not apply the edit, as loudly as it deserves; the reason, in a word.

    LSP gives a ``failureReason`` for a failure; without one the user declined the edit (VS
    Code's Refactor Preview discarded), a choice and no error, so it is only logged. VS Code's
    client also answers a version mismatch without a reason: a document edited since is told apart
    by its version.
    """
    if result.failure_reason:
        _tell(ls, f"CKP: the editor could not apply the recompiled header of {rel}: {result.failure_reason}.")
        return result.failure_reason
    current = ls.session.documents.get(uri)
    if current is None or current.version != version:
        _tell(
            ls,
            "CKP: the document changed before the recompiled header could be applied; nothing was applied, "
            "run Recompile again.",
            types.MessageType.Warning,
        )
        return "document changed"
    ls.log(f"ckp-lsp: recompiled header of {rel} not applied: declined in the editor")
    return "declined"


def _in_thread(fn: Callable[..., T], *args: Any) -> asyncio.Future[T]:
    """``fn(*args)`` on a daemon thread: a model that never answers cannot keep the server from exiting."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def settle(result: Any, error: BaseException | None) -> None:
        if future.done():
            return  # cancelled meanwhile
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)

    def run() -> None:
        result, error = None, None
        try:
            result = fn(*args)
        except BaseException as exc:
            error = exc
        with contextlib.suppress(RuntimeError):  # the loop is closed: the server has exited
            loop.call_soon_threadsafe(settle, result, error)

    threading.Thread(target=run, name="ckp-recompile", daemon=True).start()
    return future


def _tell_ignored(ls: CkpServer, notes: tuple[str, ...]) -> None:
    """Say which workspace settings an untrusted folder could not choose: logged always, shown once."""
    for note in notes:
        ls.log(f"ckp-lsp: {note}", types.MessageType.Warning)
        if note not in ls.session.told:
            ls.session.told.add(note)
            _tell(ls, f"CKP: {note}", types.MessageType.Warning)


async def _begin(ls: CkpServer, token: str, title: str) -> bool:
    if not ls.session.caps.work_done_progress:
        return False
    try:
        await ls.work_done_progress.create_async(token)
    except Exception:
        return False
    ls.work_done_progress.begin(token, types.WorkDoneProgressBegin(title=title, cancellable=True))
    return True


def _end(ls: CkpServer, token: str, progress: bool, message: str) -> None:
    if progress:
        ls.work_done_progress.end(token, types.WorkDoneProgressEnd(message=message))
        forget_progress(ls, token)
