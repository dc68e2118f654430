"""Prompt hooks (SPEC §11): each agent host's hook input read, and its output written, as values.

A host runs ``ckp hook HOST EVENT`` on an event and reads what it prints. Each host documents its
own JSON on stdin and on stdout; this module knows them (and nothing else: the face reads stdin,
finds the bank, routes and prints):

- Claude Code ``UserPromptSubmit`` and ``SessionStart``: ``hookSpecificOutput.additionalContext``.
- Codex ``UserPromptSubmit`` and ``SessionStart``: the same shape (Codex's published schemas).
- Cline ``UserPromptSubmit`` and ``TaskStart``: ``contextModification``.
- Cursor ``sessionStart``: ``additional_context`` (its ``beforeSubmitPrompt`` can only allow or
  block a prompt, so no per-prompt context).
- GitHub Copilot in VS Code ``SessionStart``: ``hookSpecificOutput.additionalContext`` (its
  ``UserPromptSubmit`` output, like every prompt hook of Copilot CLI and the cloud agent, is not
  read by the host).
"""

from __future__ import annotations

import json
import re
from typing import Any

from ckp_lsp.core.format.records import Record

#: what a host's hook keeps: Claude Code adds up to 10,000 characters of a hook's output whole
DEFAULT_MAX_CHARS = 10_000
#: the session summary: concepts and TLDRs, never the whole index
SUMMARY_MAX_CHARS = 2_000
#: the most of stdin a hook reads (a host's input is a prompt and a few ids)
MAX_INPUT = 4 << 20
#: the characters of a prompt routing reads: its start says what it is about (a pasted log or
#: document after it would only slow every prompt down, the host waiting for the hook)
ROUTED_PROMPT_CHARS = 4_000

PROMPT = "prompt"
SESSION = "session"

#: host -> event -> what the event is for ("prompt": route the prompt; "session": the summary)
EVENTS: dict[str, dict[str, str]] = {
    "claude-code": {"UserPromptSubmit": PROMPT, "SessionStart": SESSION},
    "codex": {"UserPromptSubmit": PROMPT, "SessionStart": SESSION},
    "cline": {"UserPromptSubmit": PROMPT, "TaskStart": SESSION},
    "cursor": {"sessionStart": SESSION},
    "copilot": {"SessionStart": SESSION},
}
#: events a host has that cannot add context, and why (said instead of pretending)
CANNOT: dict[tuple[str, str], str] = {
    ("cursor", "beforeSubmitPrompt"): "Cursor's beforeSubmitPrompt hook can only allow or block a prompt, "
    "not add context to it; install the sessionStart hook (ckp hooks install cursor) and ckp mcp",
    ("copilot", "UserPromptSubmit"): "GitHub Copilot does not read the output of a prompt hook; "
    "install the SessionStart hook (ckp hooks install copilot) and ckp mcp",
    (
        "copilot",
        "userPromptSubmitted",
    ): "GitHub Copilot CLI does not read the output of a userPromptSubmitted hook; use ckp mcp",
    ("copilot", "sessionStart"): "GitHub Copilot CLI does not read the output of a sessionStart hook; "
    "use ckp mcp (the SessionStart hook of Copilot in VS Code does add context)",
}
HOSTS = tuple(EVENTS)


class HookError(Exception):
    """The hook cannot answer: the message is the one line a hook writes on stderr."""


class HookInput(Record):
    """What a host's hook input says: the event, the prompt, and where the project is."""

    _fields = ("host", "event", "kind", "prompt", "folders")
    __slots__ = _fields

    def __init__(
        self, host: str, event: str, kind: str, prompt: str = "", folders: list[str] | None = None
    ) -> None:
        self.host = host
        self.event = event
        self.kind = kind  # PROMPT or SESSION
        self.prompt = prompt
        self.folders = [] if folders is None else folders  # the project's folders the host names, first first


def kind_of(host: str, event: str) -> str:
    """What ``event`` of ``host`` is for; HookError when the host has no such event with context."""
    if host not in EVENTS:
        raise HookError(f"unknown host {host!r}: one of {', '.join(HOSTS)}")
    found = EVENTS[host].get(event)
    if found is None:
        why = CANNOT.get((host, event))
        if why:
            raise HookError(why)
        raise HookError(
            f"{host} has no hook event {event!r} that adds context: one of {', '.join(EVENTS[host])}"
        )
    return found


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str) and v] if isinstance(value, list) else []


#: Cline wraps what the user typed in a tag naming the mode: the tag is not the question
_CLINE_WRAP = re.compile(r"^\s*<user_input\b[^>]*>(.*)</user_input>\s*$", re.DOTALL)


def parse_input(host: str, event: str, raw: str) -> HookInput:
    """The hook input ``raw`` (JSON, as ``host`` documents it for ``event``)."""
    kind = kind_of(host, event)
    try:
        data = json.loads(raw) if raw.strip() else {}
    except json.JSONDecodeError as exc:
        raise HookError(f"the hook input is not JSON ({exc.msg} at line {exc.lineno})") from None
    except ValueError as exc:  # a number too long to convert
        raise HookError(f"the hook input is not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise HookError("the hook input is not a JSON object")
    got = HookInput(host, event, kind)
    if host == "cline":
        submitted = data.get("userPromptSubmit")
        got.prompt = _text(submitted.get("prompt")) if kind == PROMPT and isinstance(submitted, dict) else ""
        m = _CLINE_WRAP.match(got.prompt)
        if m:
            got.prompt = m.group(1)
        got.folders = _strings(data.get("workspaceRoots"))
    elif host == "cursor":
        got.folders = _strings(data.get("workspace_roots"))
    else:
        got.prompt = _text(data.get("prompt"))
        got.folders = [c for c in [_text(data.get("cwd"))] if c]
    if kind == PROMPT and not got.prompt.strip():
        raise HookError(f"the {event} input has no prompt")
    return got


def render(host: str, event: str, context: str) -> str:
    """What ``host`` reads on stdout to add ``context`` ("" adds nothing: print nothing)."""
    if not context:
        return ""
    if host == "cline":
        value: dict[str, Any] = {"cancel": False, "contextModification": context}
    elif host == "cursor":
        value = {"additional_context": context}
    else:  # Claude Code, Codex, Copilot in VS Code
        value = {"hookSpecificOutput": {"hookEventName": event, "additionalContext": context}}
    return json.dumps(value, ensure_ascii=False) + "\n"
