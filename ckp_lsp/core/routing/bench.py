"""Routing benchmark: route a list of queries, check them against expectations, measure the saving.

Token costs follow SPEC §6. Growing subsets of the bank (``sizes``) show how the saving grows
with the bank: each subset holds the concepts the queries need first, then the others by name,
and is read through the index rendered for that subset.

A third cost is routing through the ``ckp_route`` tool of ``ckp mcp``, with no index in the
agent's context: the tool call, its answer (the JSON the tool sends) and the loaded files.

Recall comes before tokens: a question is *found* when every file it must load is loaded, and
the saving is reported over the found questions only, with the misses beside it. Each question is
routed by both routers (ranked, §6b; the index pattern, §6a), and each is measured against the
peer, plain BM25 over the files' raw text, given as many files as that router loaded.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.format.fields import token_estimate
from ckp_lsp.core.format.index import update_index_text
from ckp_lsp.core.routing.index_pattern import Router
from ckp_lsp.core.routing.peer import PlainBM25
from ckp_lsp.core.routing.ranked import RankedRouter
from ckp_lsp.core.routing.result import RouteResult

#: the routers a bench measures: the one the tools use, and the index pattern
MODES = ("ranked", "index")

#: the tool an agent routes through (``ckp mcp``)
ROUTE_TOOL = "ckp_route"


def tool_json(value: Any) -> str:
    """JSON as the agent tools send it (compact: every character is a token the agent pays)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def tool_tokens(result: RouteResult) -> int:
    """Tokens of routing ``result`` through the tool, no index in context: the call (its name and
    arguments), the answer, and the files loaded."""
    call = tool_json({"name": ROUTE_TOOL, "arguments": {"query": result.query}})
    return token_estimate(len(call)) + token_estimate(len(tool_json(result.as_dict()))) + result.tokens.loaded


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
class Measure:
    """What one router did with one question, beside the peer at the same number of files."""

    loaded: list[str]  # files
    found: bool | None  # every must_load file loaded; None for a question without any
    peer: list[str]  # the peer's files, as many as ``loaded``
    peer_found: bool | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "files": len(self.loaded),
            "loaded": self.loaded,
            "found": self.found,
            "peer": self.peer,
            "peer_found": self.peer_found,
        }


@dataclass
class QueryOutcome:
    """One query routed over the whole bank, and the expectations it missed."""

    query: Query
    result: RouteResult
    failures: list[str] = field(default_factory=list)
    measures: dict[str, Measure] = field(default_factory=dict)  # by mode
    must_files: tuple[str, ...] = ()  # the must_load entries as files
    mode: str = "ranked"  # the router whose result this is

    @property
    def ok(self) -> bool:
        return not self.failures

    @property
    def in_domain(self) -> bool:
        return bool(self.query.must_load) or self.query.out_of_domain is False

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
            "found": self.measures[self.mode].found if self.measures else None,
            "modes": {m: v.as_dict() for m, v in self.measures.items()},
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
    mode: str = "ranked"

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
        """(loaded, expected) over every query's ``must_load`` files."""
        expected = sum(len(o.must_files) for o in self.outcomes)
        loaded = sum(len(set(o.must_files) & {e.file for e in o.result.loaded}) for o in self.outcomes)
        return loaded, expected

    def figures(self, mode: str) -> dict[str, Any]:
        """One router's totals: recall (questions with every must_load file loaded), the peer's
        recall at the same number of files, files loaded, and the out-of-domain errors both ways."""
        asked = [o for o in self.outcomes if o.query.must_load and mode in o.measures]
        found = sum(bool(o.measures[mode].found) for o in asked)
        peer = sum(bool(o.measures[mode].peer_found) for o in asked)
        routed = [o.measures[mode] for o in self.outcomes if o.in_domain and mode in o.measures]
        outside = [o.measures[mode] for o in self.outcomes if o.query.out_of_domain and mode in o.measures]
        return {
            "questions": len(asked),
            "found": found,
            "recall": round(found / len(asked), 4) if asked else 1.0,
            "peer_found": peer,
            "peer_recall": round(peer / len(asked), 4) if asked else 1.0,
            "mean_files": round(_mean([len(m.loaded) for m in routed]), 2),
            "within_4_files": sum(len(m.loaded) <= 4 for m in routed),
            "in_domain": len(routed),
            "in_domain_loaded_nothing": sum(not m.loaded for m in routed),
            "out_of_domain": len(outside),
            "out_of_domain_loaded_something": sum(bool(m.loaded) for m in outside),
        }

    @property
    def recall(self) -> float:
        """The share of questions with ``must_load`` whose every file was loaded."""
        return float(self.figures(self.mode)["recall"])

    @property
    def misses(self) -> list[QueryOutcome]:
        """The questions that did not load every file they must."""
        return [o for o in self.outcomes if o.must_files and not o.measures[self.mode].found]

    @property
    def found_reduction(self) -> float:
        """Mean share of tokens saved over the questions routed correctly (every expectation met)
        only: a question that missed its file saved nothing."""
        return _mean([o.result.tokens.reduction for o in self.outcomes if o.ok])

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
            "mode": self.mode,
            "modes": {m: self.figures(m) for m in MODES},
            "misses": len(self.misses),
            "found_reduction": round(self.found_reduction, 4),
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

        from ckp_lsp.core.format.yaml_load import safe_load

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


def must_files(query: Query, bank: Bank) -> dict[str, str | None]:
    """Each ``must_load`` entry and its file: a concept's file, or a path relative to the bank's
    root (ending in ``.md``) that is a knowledge file; None when it is neither."""
    out: dict[str, str | None] = {}
    for c in query.must_load:
        if c.endswith(".md"):
            out[c] = c if c in bank.files else None
        else:
            kf = bank.file_of(c)
            out[c] = kf.path if kf is not None else None
    return out


def failures(query: Query, result: RouteResult, files: dict[str, str | None]) -> list[str]:
    """What ``result`` got wrong against ``query``'s expectations (``files``: ``must_files``), in words."""
    out = []
    loaded = {e.file for e in result.loaded}
    for c, path in files.items():
        if path is None:
            what = "a knowledge file" if c.endswith(".md") else "a concept"
            out.append(f"must_load names '{c}', which is not {what} of this bank")
        elif path not in loaded:
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
        for path in must_files(q, bank).values():
            if path is not None and path not in first:
                first.append(path)
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
            text, utf8, _ = bank.disk.read(bank.root / rel)
        except OSError:
            continue
        sub.set_file(rel, text, utf8, on_disk=True)
    return sub


def size_row(router: Router | RankedRouter, queries: Sequence[Query]) -> SizeRow:
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
    bank: Bank,
    queries: Sequence[Query],
    sizes: Sequence[int] = (),
    index_format: str | None = None,
    mode: str = "ranked",
) -> BenchReport:
    """Route every query over ``bank`` with both routers and the peer, check the expectations
    against the ``mode`` router, and measure the bank (or its subsets).

    With ``index_format``, the index the agent reads is the one ``ckp index`` writes in that
    form (the bank's files are not touched).
    """
    if index_format is not None:
        bank.config = bank.config.replace(index_format=index_format)
        bank.index_text = update_index_text(bank.index_text, bank)
    ranked = RankedRouter(bank)
    routers: dict[str, Router | RankedRouter] = {"ranked": ranked, "index": ranked.index}
    peer = PlainBM25(ranked.texts)
    outcomes = []
    for q in queries:
        files = must_files(q, bank)
        wanted = {f for f in files.values() if f is not None}
        measures = {}
        results = {}
        for m, router in routers.items():
            results[m] = r = router.route(q.text)
            loaded = [e.file for e in r.loaded]
            top = peer.top(q.text, len(loaded)) if loaded else []
            # (a must_load entry that names no file of the bank can be found by no router)
            known = None not in files.values()
            measures[m] = Measure(
                loaded,
                known and wanted <= set(loaded) if q.must_load else None,
                top,
                known and wanted <= set(top) if q.must_load else None,
            )
        result = results[mode]
        outcomes.append(
            QueryOutcome(q, result, failures(q, result, files), measures, tuple(sorted(wanted)), mode)
        )
    report = BenchReport(len(bank.files), outcomes, [], index_format=bank.config.index_format, mode=mode)
    make = Router if mode == "index" else RankedRouter
    if not sizes:
        report.sizes.append(size_row(routers[mode], queries))
        return report
    order = subset_order(bank, queries)
    for n in sorted(set(sizes)):
        if n < 1 or n > len(order):
            report.skipped_sizes.append(n)
            continue
        report.sizes.append(size_row(make(subset(bank, order[:n])), queries))
    return report
