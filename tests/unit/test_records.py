"""The plain value classes of the routing path (``core/format/records.py``) behave as the
dataclasses they replace: equality and ``repr`` by their fields, a hash only when frozen, and
``replace``."""

from __future__ import annotations

import pytest

from ckp_lsp.core.bank.findings import Finding, Severity
from ckp_lsp.core.format.text import Span
from ckp_lsp.core.project.config import Config, LlmConfig
from ckp_lsp.core.routing.analysis import QueryWord
from ckp_lsp.core.routing.result import RouteEntry, RouteTokens


def test_equal_by_their_fields_and_never_to_another_class() -> None:
    a = RouteEntry("jwt", "jwt.md", "match", ["jwt"], None, 120)
    assert a == RouteEntry("jwt", "jwt.md", "match", ["jwt"], None, 120, False, [], 0.0)
    assert a != RouteEntry("jwt", "jwt.md", "match", ["jwt"], None, 121)
    assert QueryWord("jwt", ("jwt",)) != RouteTokens(1, 2, 3, 4)
    assert (a == object()) is False


def test_a_value_that_changes_has_no_hash_and_a_frozen_one_hashes_by_its_fields() -> None:
    with pytest.raises(TypeError):
        hash(RouteEntry("jwt", "jwt.md", "match", [], None, 1))
    assert hash(QueryWord("jwt", ("jwt",), True)) == hash(QueryWord("jwt", ("jwt",), True))
    assert len({QueryWord("a", ("a",)), QueryWord("a", ("a",)), QueryWord("b", ("b",))}) == 2


def test_the_repr_names_each_field_in_order() -> None:
    assert repr(RouteTokens(1, 2, 3, 4)) == "RouteTokens(index=1, loaded=2, with_ckp=3, without_ckp=4)"
    assert repr(Finding("CKP001", Span(0, 0, 0, 1), "m")) == (
        f"Finding(code='CKP001', span=Span(start_line=0, start_col=0, end_line=0, end_col=1), "
        f"message='m', severity={Severity.WARNING!r}, data={{}})"
    )


def test_replace_gives_a_copy_with_the_changes_and_refuses_a_name_that_is_no_field() -> None:
    config = Config()
    changed = config.replace(staleness="updated", llm=LlmConfig(provider="command", command="x"))
    assert (changed.staleness, changed.llm.command, changed.exclude) == ("updated", "x", config.exclude)
    assert config.staleness == "validated" and config == Config()
    assert changed != config
    with pytest.raises(TypeError):
        config.replace(no_such_setting=1)


def test_defaults_are_never_shared_between_objects() -> None:
    a, b = Config(), Config()
    a.diagnostics["CKP001"] = None
    assert b.diagnostics == {}
    first, second = Finding("CKP001", Span(0, 0, 0, 1), "m"), Finding("CKP001", Span(0, 0, 0, 1), "m")
    first.data["x"] = 1
    assert second.data == {}
