"""What each MCP tool answers, as JSON Schemas (the tools' ``outputSchema``), and its arguments'
errors in one sentence.

The schemas describe the structured result an agent can rely on; fields a later version adds are
allowed (``additionalProperties``), the ones named here are always there.
"""

from __future__ import annotations

from typing import Any

_STR: dict[str, Any] = {"type": "string"}
_INT: dict[str, Any] = {"type": "integer"}
_BOOL: dict[str, Any] = {"type": "boolean"}
_STRS: dict[str, Any] = {"type": "array", "items": _STR}


def _object(required: dict[str, Any], optional: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {**required, **(optional or {})},
        "required": list(required),
    }


_ENTRY = _object(
    {
        "concept": _STR,
        "file": {**_STR, "description": "relative to the bank"},
        "reason": {"type": "string", "enum": ["match", "high", "mid"]},
        "keywords": {**_STRS, "description": "the file's keywords the question matched"},
        "via": {"type": ["string", "null"], "description": "the primary file that pulled it in"},
        "tokens": _INT,
        "over_budget": _BOOL,
    },
    {"content": {**_STR, "description": "the file's text as given, quoted as the bank's content"}},
)
_BUDGET = _object(
    {
        "max_tokens": _INT,
        "tokens": {**_INT, "description": "the tokens of what was given"},
        "given": {
            "type": "array",
            "items": _object(
                {"file": _STR, "part": {"type": "string", "enum": ["whole", "sections"]}, "tokens": _INT},
                {"sections": _STRS, "left_out_sections": _STRS},
            ),
        },
        "dropped": {**_STRS, "description": "files left out: not even their TLDR fit"},
    }
)
_RANGE = _object(
    {
        "start": _object({"line": _INT, "character": _INT}),
        "end": _object({"line": _INT, "character": _INT}),
    }
)
_DIAGNOSTICS = {
    "type": "array",
    "items": _object(
        {
            "file": _STR,
            "range": _RANGE,
            "severity": {**_INT, "description": "1 error, 2 warning, 3 information, 4 hint"},
            "code": _STR,
            "message": _STR,
        }
    ),
}

OUTPUT: dict[str, dict[str, Any]] = {
    "ckp_route": _object(
        {
            "query": _STR,
            "loaded": {"type": "array", "items": _ENTRY, "description": "the files to read, primaries first"},
            "matched_not_loaded": {"type": "array", "items": _ENTRY},
            "out_of_domain": _BOOL,
            "declaration": {**_STR, "description": "the line to state before answering"},
            "tokens": _object({"index": _INT, "loaded": _INT, "with_ckp": _INT, "without_ckp": _INT}),
            "file_budget_tokens": _INT,
            "over_budget": _STRS,
        },
        {
            "budget": {**_BUDGET, "description": "with max_tokens: what the budget let through"},
            "note": {**_STR, "description": "how the quoted content is to be read"},
        },
    ),
    "ckp_read": _object(
        {
            "bank": _STR,
            "file": _STR,
            "concept": {"type": ["string", "null"]},
            "tokens": _INT,
            "text": {**_STR, "description": "the file's text, quoted as the bank's content"},
            "note": _STR,
        }
    ),
    "ckp_check": _object(
        {
            "diagnostics": _DIAGNOSTICS,
            "summary": _object(
                {"files": _INT, "errors": _INT, "warnings": _INT, "information": _INT, "hints": _INT}
            ),
        }
    ),
    "ckp_compile": _object(
        {
            "bank": _STR,
            "file": _STR,
            "provider": _STR,
            "ignored": {**_STRS, "description": "settings left out because the folder is not trusted"},
            "changed": _BOOL,
            "header": _STR,
            "diagnostics": _DIAGNOSTICS,
        }
    ),
    "ckp_index": _object(
        {"bank": _STR, "file": _STR, "changed": _BOOL, "concepts": _INT, "tokens": _INT},
    ),
}

_KINDS = {"string": "a string", "boolean": "true or false", "integer": "a whole number", "array": "a list"}
_PLURALS = {"string": "strings", "boolean": "true or false values", "integer": "whole numbers"}


def expects(prop: dict[str, Any]) -> str:
    """What an argument of schema ``prop`` expects, in words."""
    kind = prop.get("type")
    what = _KINDS.get(kind, "a value") if isinstance(kind, str) else "a value"
    if kind == "array" and isinstance(prop.get("items"), dict):
        item = _PLURALS.get(prop["items"].get("type"), "values")
        what = f"a list of {item}"
    if kind == "integer" and "minimum" in prop:
        what += f" of at least {prop['minimum']}"
    described = prop.get("description")
    return f"{what} ({described})" if described else what


def argument_error(tool: str, schema: dict[str, Any], errors: list[dict[str, Any]]) -> str:
    """One sentence for a call whose arguments did not validate: the first wrong argument and
    what it expects."""
    props = schema.get("properties", {})
    first = errors[0] if errors else {}
    loc = [str(p) for p in first.get("loc", ())]
    name = loc[0] if loc else "?"
    prop = props.get(name, {})
    if first.get("type") == "missing":
        return f"{tool}: the argument '{name}' is missing: it expects {expects(prop)}."
    if name not in props:
        known = ", ".join(f"'{p}'" for p in props)
        return f"{tool}: there is no argument '{name}': its arguments are {known}."
    return f"{tool}: the argument '{name}' expects {expects(prop)}."
