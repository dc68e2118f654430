"""Routing benchmark: route a list of queries, check them against expectations, measure the saving.

Token costs follow SPEC §6. Growing subsets of the bank (``sizes``) show how the saving grows
with the bank: each subset holds the concepts the queries need first, then the others by name,
and is read through the index rendered for that subset.

A third cost is routing through the ``ckp_route`` tool of ``ckp mcp``, with no index in the
agent's context: the tool call, its answer (the JSON the tool sends) and the loaded files.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .bank import Bank, read_text
from .index import tokens, update_index_text
from .route import Router, RouteResult

#: the tool an agent routes through (``ckp mcp``)
ROUTE_TOOL = "ckp_route"


def tool_json(value: Any) -> str:
    """JSON as the agent tools send it (compact: every character is a token the agent pays)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def tool_tokens(result: RouteResult) -> int:
    """Tokens of routing ``result`` through the tool, no index in context: the call (its name and
    arguments), the answer, and the files loaded."""
    call = tool_json({"name": ROUTE_TOOL, "arguments": {"query": result.query}})
    return tokens(call) + tokens(tool_json(result.as_dict())) + result.tokens.loaded


class BenchError(Exception):
    """The queries file cannot be used: the message says why."""


@dataclass(frozen=True)
class Query:
    """A query and what routing it should do."""

    text: str
    must_load: tuple[str, ...] = ()
    out_of_domain: bool | None = None
    max_loaded: int | None = None


@dataclass
class QueryOutcome:
    """One query routed over the whole bank, and the expectations it missed."""

    query: Query
    result: RouteResult
    failures: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures

    def as_dict(self) -> dict[str, Any]:
        t = self.result.tokens
        return {
            "query": self.query.text,
            "loaded": self.result.concepts,
            "files": len(self.result.loaded),
            "declaration": self.result.declaration,
            "out_of_domain": self.result.out_of_domain,
            "tokens": {**t.as_dict(), "with_tool": tool_tokens(self.result)},
            "reduction": round(t.reduction, 4),
            "ok": self.ok,
            "failures": self.failures,
        }


@dataclass(frozen=True)
class SizeRow:
    """The mean cost of the queries over a bank (or a subset of it) of ``files`` files."""

    files: int
    without_ckp: int
    with_ckp: int  # the index and the loaded files
    reduction: float
    with_tool: int = 0  # the ckp_route call, its answer and the loaded files; no index
    tool_reduction: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "files": self.files,
            "without_ckp": self.without_ckp,
            "with_ckp": self.with_ckp,
            "reduction": round(self.reduction, 4),
            "with_tool": self.with_tool,
            "tool_reduction": round(self.tool_reduction, 4),
        }


@dataclass
class BenchReport:
    """Every query's outcome, the accuracy of routing and the saving per bank size."""

    files: int
    outcomes: list[QueryOutcome]
    sizes: list[SizeRow]
    skipped_sizes: list[int] = field(default_factory=list)
    index_format: str = "table"

    @property
    def reduction(self) -> float:
        """Mean share of tokens saved per query, 0-1."""
        return _mean([o.result.tokens.reduction for o in self.outcomes])

    @property
    def tool_reduction(self) -> float:
        """Mean share of tokens saved per query when routing through the tool, 0-1."""
        return _mean(
            [
                1 - tool_tokens(o.result) / o.result.tokens.without_ckp
                if o.result.tokens.without_ckp
                else 0.0
                for o in self.outcomes
            ]
        )

    @property
    def must_load(self) -> tuple[int, int]:
        """(loaded, expected) over every query's ``must_load`` concepts."""
        expected = sum(len(o.query.must_load) for o in self.outcomes)
        loaded = sum(len(set(o.query.must_load) & set(o.result.concepts)) for o in self.outcomes)
        return loaded, expected

    @property
    def recall(self) -> float:
        loaded, expected = self.must_load
        return loaded / expected if expected else 1.0

    @property
    def passed(self) -> int:
        return sum(o.ok for o in self.outcomes)

    @property
    def ok(self) -> bool:
        return self.passed == len(self.outcomes)

    def as_dict(self) -> dict[str, Any]:
        return {
            "files": self.files,
            "index_format": self.index_format,
            "reduction": round(self.reduction, 4),
            "tool_reduction": round(self.tool_reduction, 4),
            "recall": round(self.recall, 4),
            "accuracy": round(self.passed / len(self.outcomes), 4) if self.outcomes else 1.0,
            "passed": self.passed,
            "queries": [o.as_dict() for o in self.outcomes],
            "sizes": [s.as_dict() for s in self.sizes],
        }


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def load_queries(path: Path) -> list[Query]:
    """The queries of a YAML or JSON file: a list of ``{query, must_load?, out_of_domain?, max_loaded?}``."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BenchError(f"{path}: cannot be read ({exc})") from exc
    if path.suffix.lower() == ".json":
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise BenchError(f"{path}: not valid JSON ({exc})") from exc
        except RecursionError:
            raise BenchError(f"{path}: nested too deeply to be a list of queries") from None
    else:
        import yaml

        from .yaml_load import safe_load

        try:
            data = safe_load(text)
        except yaml.YAMLError as exc:
            raise BenchError(f"{path}: not valid YAML ({exc})") from exc
        except RecursionError:
            raise BenchError(f"{path}: nested too deeply to be a list of queries") from None
    if isinstance(data, dict) and isinstance(data.get("queries"), list):
        data = data["queries"]
    if not isinstance(data, list) or not data:
        raise BenchError(f"{path}: expected a list of queries, each {{query: ..., must_load: [...]}}")
    return [_query(item, n, path) for n, item in enumerate(data, 1)]


def _query(item: Any, n: int, path: Path) -> Query:
    where = f"{path}: query {n}"
    if isinstance(item, str):
        return Query(item)
    if not isinstance(item, dict) or not isinstance(item.get("query"), str) or not item["query"].strip():
        raise BenchError(f"{where}: each entry needs a 'query' string")
    unknown = set(item) - {"query", "must_load", "out_of_domain", "max_loaded"}
    if unknown:
        raise BenchError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
    must = item.get("must_load") or []
    if isinstance(must, str):
        must = [must]
    if not isinstance(must, list) or not all(isinstance(c, str) for c in must):
        raise BenchError(f"{where}: must_load is a list of concepts")
    ood = item.get("out_of_domain")
    if ood is not None and not isinstance(ood, bool):
        raise BenchError(f"{where}: out_of_domain is true or false")
    cap = item.get("max_loaded")
    if cap is not None and (not isinstance(cap, int) or isinstance(cap, bool) or cap < 0):
        raise BenchError(f"{where}: max_loaded is a whole number")
    return Query(item["query"], tuple(must), ood, cap)


def failures(query: Query, result: RouteResult, concepts: Iterable[str]) -> list[str]:
    """What ``result`` got wrong against ``query``'s expectations, in words."""
    known = set(concepts)
    out = []
    loaded = set(result.concepts)
    for c in query.must_load:
        if c not in known:
            out.append(f"must_load names '{c}', which is not a concept of this bank")
        elif c not in loaded:
            out.append(f"did not load '{c}'")
    if query.out_of_domain is True and not result.out_of_domain:
        out.append(
            f"expected out of domain, loaded {len(result.loaded)} file(s): {', '.join(result.concepts)}"
        )
    if query.out_of_domain is False and result.out_of_domain:
        out.append("expected a match, the query was out of domain")
    if query.max_loaded is not None and len(result.loaded) > query.max_loaded:
        out.append(f"loaded {len(result.loaded)} files, at most {query.max_loaded} expected")
    return out


def subset_order(bank: Bank, queries: Sequence[Query]) -> list[str]:
    """The bank's files in the order subsets take them: the queries' concepts first, then by name."""
    first: list[str] = []
    for q in queries:
        for c in q.must_load:
            kf = bank.file_of(c)
            if kf is not None and kf.path not in first:
                first.append(kf.path)
    rest = sorted(
        (p for p in bank.files if p not in first),
        key=lambda p: (bank.files[p].concept is None, bank.files[p].concept or "", p),
    )
    return first + rest


def subset(bank: Bank, paths: Iterable[str]) -> Bank:
    """A bank of only ``paths`` (read again from disk), without ``_index.md``: its index is rendered."""
    sub = Bank(bank.root, bank.config, bank.dates, bank.today)
    for rel in paths:
        try:
            text, utf8 = read_text(bank.root / rel)
        except OSError:
            continue
        sub.set_file(rel, text, utf8)
    return sub


def size_row(router: Router, queries: Sequence[Query]) -> SizeRow:
    """The mean cost of ``queries`` through ``router``."""
    results = [router.route(q.text) for q in queries]
    with_ckp = round(_mean([r.tokens.with_ckp for r in results]))
    tool = [tool_tokens(r) for r in results]
    total = router.total_tokens
    return SizeRow(
        router.files,
        total,
        with_ckp,
        _mean([r.tokens.reduction for r in results]),
        round(_mean(tool)),
        _mean([1 - t / total if total else 0.0 for t in tool]),
    )


def run_bench(
    bank: Bank, queries: Sequence[Query], sizes: Sequence[int] = (), index_format: str | None = None
) -> BenchReport:
    """Route every query over ``bank``, check the expectations, and measure the bank (or its subsets).

    With ``index_format``, the index the agent reads is the one ``ckp index`` writes in that
    form (the bank's files are not touched).
    """
    if index_format is not None:
        bank.config = replace(bank.config, index_format=index_format)
        bank.index_text = update_index_text(bank.index_text, bank)
    router = Router(bank)
    concepts = bank.concepts()
    outcomes = []
    for q in queries:
        result = router.route(q.text)
        outcomes.append(QueryOutcome(q, result, failures(q, result, concepts)))
    report = BenchReport(len(bank.files), outcomes, [], index_format=bank.config.index_format)
    if not sizes:
        report.sizes.append(size_row(router, queries))
        return report
    order = subset_order(bank, queries)
    for n in sorted(set(sizes)):
        if n < 1 or n > len(order):
            report.skipped_sizes.append(n)
            continue
        report.sizes.append(size_row(Router(subset(bank, order[:n])), queries))
    return report
