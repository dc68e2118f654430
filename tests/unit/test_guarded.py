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
