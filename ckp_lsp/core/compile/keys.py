"""API keys: where they come from, and blanking them (whole or in part) out of everything shown."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping

KEY_VARIABLES = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "CKP_LLM_API_KEY")
BLANK = "***"
# A run of this many characters of a key is blanked wherever it shows; a shorter key is blanked
# whole. Six characters of a random key are already far more than chance puts in a message.
FRAGMENT = 6
_SPACE = re.compile(r"\s")


def api_keys(env: Mapping[str, str] | None = None) -> list[str]:
    """The API keys set in the environment."""
    env = os.environ if env is None else env
    return [env[v] for v in KEY_VARIABLES if env.get(v)]


def blank(text: str, secrets: Iterable[str | None] | None = None) -> str:
    """``text`` with every key of ``secrets`` (default: those in the environment) blanked, and any
    run of ``FRAGMENT`` or more of its characters, also where whitespace was put inside it."""
    keys = [k for k in (api_keys() if secrets is None else secrets) if k and k.strip()]
    if not keys or not text:
        return text
    # The text without whitespace, and where each of its characters was in the original.
    kept = [(i, c) for i, c in enumerate(text) if not _SPACE.match(c)]
    compact = "".join(c for _, c in kept)
    hidden = [False] * len(text)
    for key in keys:
        key = _SPACE.sub("", key)
        if len(key) < FRAGMENT:  # too short for its parts to mean anything: only the whole word
            for m in re.finditer(rf"(?<!\w){re.escape(key)}(?!\w)", text):
                hidden[m.start() : m.end()] = [True] * (m.end() - m.start())
            continue
        size = FRAGMENT
        grams = {key[i : i + size] for i in range(len(key) - size + 1)}
        for start in range(len(compact) - size + 1):
            if compact[start : start + size] in grams:
                first, last = kept[start][0], kept[start + size - 1][0]
                for i in range(first, last + 1):
                    hidden[i] = True
    if not any(hidden):
        return text
    out: list[str] = []
    for i, c in enumerate(text):
        if not hidden[i]:
            out.append(c)
        elif i == 0 or not hidden[i - 1]:
            out.append(BLANK)
    return "".join(out)
