"""A failing feature is logged and answers its default: the server keeps serving."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from lsprotocol import types

from ckp_lsp.server.features.rename import RenameRejected
from ckp_lsp.server.server import UNCHANGED, guarded


class FakeServer:
    def __init__(self) -> None:
        self.logged: list[tuple[str, Any]] = []

    def log(self, message: str, kind: Any = None) -> None:
        self.logged.append((message, kind))


def test_a_failing_feature_is_logged_and_answers_its_default():
    @guarded([])
    def hover(ls: Any, params: Any) -> list[int]:
        raise KeyError("boom")

    ls = FakeServer()
    assert hover(ls, None) == []
    assert "hover failed" in ls.logged[0][0] and "boom" in ls.logged[0][0]
    assert ls.logged[0][1] == types.MessageType.Error


def test_a_failing_async_feature_is_logged_and_answers_its_default():
    @guarded(None)
    async def definition(ls: Any, params: Any) -> None:
        raise RuntimeError("broken")

    ls = FakeServer()
    assert asyncio.run(definition(ls, None)) is None
    assert "definition failed: broken" in ls.logged[0][0]


def test_a_deliberate_error_answer_reaches_the_client():
    @guarded(None)
    def rename(ls: Any, params: Any) -> None:
        raise RenameRejected("the concept already exists")

    ls = FakeServer()
    with pytest.raises(RenameRejected):
        rename(ls, None)
    assert ls.logged == []


def test_a_failing_resolve_answers_what_it_was_asked_to_resolve():
    @guarded(UNCHANGED)
    async def resolve(ls: Any, item: Any) -> Any:
        raise RuntimeError("broken")

    item = types.CompletionItem(label="jwt")
    assert asyncio.run(resolve(FakeServer(), item)) is item


def test_a_failing_feature_written_in_steps_is_logged_and_answers_its_default():
    @guarded([])
    def references(ls: Any, params: Any) -> Any:
        yield from ()
        raise KeyError("boom")

    ls = FakeServer()
    steps = references(ls, None)
    with pytest.raises(StopIteration) as done:
        next(steps)
    assert done.value.value == []
    assert "references failed" in ls.logged[0][0]


def test_a_feature_written_in_steps_passes_its_waits_and_its_answer_through():
    @guarded(None)
    def hover(ls: Any, params: Any) -> Any:
        answer = yield "wait for the banks"
        return f"hover: {answer}"

    steps = hover(FakeServer(), None)
    assert next(steps) == "wait for the banks"
    with pytest.raises(StopIteration) as done:
        steps.send("ready")
    assert done.value.value == "hover: ready"


def test_a_deliberate_error_of_a_feature_in_steps_reaches_the_client():
    @guarded(None)
    def rename(ls: Any, params: Any) -> Any:
        yield from ()
        raise RenameRejected("the concept already exists")

    ls = FakeServer()
    with pytest.raises(RenameRejected):
        next(rename(ls, None))
    assert ls.logged == []
