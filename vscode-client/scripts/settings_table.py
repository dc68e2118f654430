#!/usr/bin/env python3
"""The README's settings table, made from package.json's `contributes.configuration`.

    python3 scripts/settings_table.py          # rewrite the table in README.md
    python3 scripts/settings_table.py --check  # exit 1 when README.md's table is not package.json's

The table sits between `<!-- settings:begin -->` and `<!-- settings:end -->` in README.md; one
row per setting, in package.json's order: its name, its default, its description and, for a
setting with a fixed set of values, each value with what it means.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

CLIENT = Path(__file__).resolve().parent.parent
BEGIN = "<!-- settings:begin -->"
END = "<!-- settings:end -->"
_SETTING_LINK = re.compile(r"`?#(ckp\.[A-Za-z0-9_.]+)#`?")  # VS Code's link to another setting


def _cell(text: str) -> str:
    """``text`` fit for one table cell: one line, pipes escaped, setting links as code."""
    text = _SETTING_LINK.sub(r"`\1`", text)
    return " ".join(text.split()).replace("|", "\\|")


def _lower(sentence: str) -> str:
    """A sentence as a clause: its first letter lower-case (unless a name: ``OpenAI``), no full stop."""
    sentence = sentence.rstrip(".")
    if len(sentence) > 1 and sentence[1].isupper():
        return sentence
    return sentence[:1].lower() + sentence[1:]


def _default(value: object) -> str:
    if value in ("", None):
        return ""
    return f"`{json.dumps(value) if not isinstance(value, str) else value}`"


def table(manifest: dict) -> str:
    """The Markdown table of every setting the manifest declares."""
    rows = ["| setting | default | |", "|---|---|---|"]
    for name, spec in manifest["contributes"]["configuration"]["properties"].items():
        text = spec.get("markdownDescription") or spec.get("description") or ""
        values = spec.get("enum")
        if values:
            meanings = spec.get("enumDescriptions") or []
            listed = [
                f"`{v}`" + (f": {_lower(meanings[i])}" if i < len(meanings) else "")
                for i, v in enumerate(values)
            ]
            text = f"{text} One of {'; '.join(listed)}."
        each = (spec.get("additionalProperties") or {}).get("enum")
        if each:
            text = f"{text} Values: {', '.join(f'`{v}`' for v in each)}."
        rows.append(f"| `{name}` | {_default(spec.get('default'))} | {_cell(text)} |")
    return "\n".join(rows)


def with_table(readme: str, manifest: dict) -> str:
    """``readme`` with the text between the markers replaced by the table."""
    start, end = readme.find(BEGIN), readme.find(END)
    if start < 0 or end < start:
        raise SystemExit(f"settings_table: README.md has no {BEGIN} … {END} section")
    return f"{readme[: start + len(BEGIN)]}\n{table(manifest)}\n{readme[end:]}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="only say whether README.md is current")
    args = parser.parse_args()
    manifest = json.loads((CLIENT / "package.json").read_text(encoding="utf-8"))
    path = CLIENT / "README.md"
    readme = path.read_text(encoding="utf-8")
    new = with_table(readme, manifest)
    if args.check:
        if new != readme:
            sys.exit(
                "settings_table: README.md's settings table differs from package.json: run scripts/settings_table.py"
            )
        return
    path.write_text(new, encoding="utf-8")


if __name__ == "__main__":
    main()
