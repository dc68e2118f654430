"""Findings as JSON, the shape `ckp check --format json` prints and the MCP server's check tools
return: every finding with its LSP range, and a summary."""

from __future__ import annotations

import json
import json.encoder
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ckp_lsp.core.bank.findings import Finding, Severity

from .paths import display_path

#: each severity as `ckp check` names it
SEVERITY_NAMES = {
    Severity.ERROR: "error",
    Severity.WARNING: "warning",
    Severity.INFORMATION: "info",
    Severity.HINT: "hint",
}
#: a JSON string of a str, as ``json.dumps(..., ensure_ascii=False)`` writes it (C-accelerated)
_string = json.encoder.encode_basestring


def summary(results: list[tuple[Path, Finding]], checked: int) -> dict[str, int]:
    """How many files were checked, and how many findings of each severity."""
    count = {name: 0 for name in ("error", "warning", "info", "hint")}
    for _, f in results:
        count[SEVERITY_NAMES[f.severity]] += 1
    return {
        "files": checked,
        "errors": count["error"],
        "warnings": count["warning"],
        "information": count["info"],
        "hints": count["hint"],
    }


def _diagnostic(path: Path, f: Finding) -> dict[str, Any]:
    return {
        "file": display_path(path),
        "range": {
            "start": {"line": f.span.start_line, "character": f.span.start_col},
            "end": {"line": f.span.end_line, "character": f.span.end_col},
        },
        "severity": int(f.severity),
        "code": f.code,
        "message": f.message,
    }


def as_json(results: list[tuple[Path, Finding]], checked: int) -> dict[str, Any]:
    """The JSON of `ckp check --format json`: every finding with its LSP range, and a summary."""
    return {"diagnostics": [_diagnostic(p, f) for p, f in results], "summary": summary(results, checked)}


def json_chunks(results: list[tuple[Path, Finding]], checked: int) -> Iterator[str]:
    """``json.dumps(as_json(results, checked), indent=2, ensure_ascii=False)`` and a newline, a
    finding at a time: the whole text of 375,000 findings and their dicts are never held. Each
    finding is laid out here, its strings escaped by ``json``'s own escaper: ``json.dumps`` with an
    indent builds closures that refer to each other, garbage the paused collector never frees."""
    if not results:
        yield json.dumps(as_json(results, checked), indent=2, ensure_ascii=False) + "\n"
        return
    yield '{\n  "diagnostics": [\n'
    first = True
    for path, f in results:
        s = f.span
        yield (
            ("" if first else ",\n") + "    {\n"
            f'      "file": {_string(display_path(path))},\n'
            '      "range": {\n'
            f'        "start": {{\n          "line": {s.start_line},\n          "character": {s.start_col}\n        }},\n'
            f'        "end": {{\n          "line": {s.end_line},\n          "character": {s.end_col}\n        }}\n'
            "      },\n"
            f'      "severity": {int(f.severity)},\n'
            f'      "code": {_string(f.code)},\n'
            f'      "message": {_string(f.message)}\n'
            "    }"
        )
        first = False
    counts = json.dumps(summary(results, checked), indent=2).replace("\n", "\n  ")
    yield f'\n  ],\n  "summary": {counts}\n}}\n'
