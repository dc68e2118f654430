"""Each agent host's hook configuration, merged as text: ours added once, everything else kept.

``planned(host, project, bank)`` is what ``ckp hooks install`` writes: for each file, its new text
from its current one. A host that keeps its hooks in a JSON settings file gets our entries merged
into it (every other setting and hook kept, our own entries replaced, never doubled); Cline, whose
hooks are executable files named after their event, gets those files, and a file of that name we
did not write is left alone and said so. ``removed`` undoes it the same way.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from dataclasses import dataclass
from typing import Any

#: every hook we write runs this, so ours are told from the user's by their command
COMMAND = "ckp hook"
#: the first lines of a Cline hook script we wrote
CLINE_MARK = "# Written by `ckp hooks install cline`"
#: seconds a host waits for our hook (a route takes well under one)
TIMEOUT = 10


class ConfigError(Exception):
    """The configuration cannot be merged (it is not what the host reads): nothing is written."""


@dataclass(frozen=True)
class Planned:
    """One file of a host's configuration: where, its text now (None: missing), its new text
    (None: to be deleted), and whether it is a script to make executable."""

    path: str  # relative to the project
    old: str | None
    new: str | None
    executable: bool = False

    @property
    def changed(self) -> bool:
        return self.old != self.new


#: host -> (file, {event: SessionStart-style matcher or None}) for the hosts configured in JSON
_JSON_FILES = {
    "claude-code": ".claude/settings.json",
    "codex": ".codex/hooks.json",
    "cursor": ".cursor/hooks.json",
    "copilot": ".github/hooks/ckp.json",
}
_EVENTS: dict[str, dict[str, str | None]] = {
    "claude-code": {"UserPromptSubmit": None, "SessionStart": "startup|clear|compact"},
    "codex": {"UserPromptSubmit": None, "SessionStart": "startup|resume|clear"},
    "cursor": {"sessionStart": None},
    "copilot": {"SessionStart": None},
    "cline": {"UserPromptSubmit": None, "TaskStart": None},
}
HOSTS = tuple(_EVENTS)


def files_of(host: str) -> list[str]:
    """The files ``host``'s hooks live in, relative to the project."""
    if host == "cline":
        return [f".clinerules/hooks/{event}" for event in _EVENTS["cline"]]
    return [_JSON_FILES[host]]


def command(host: str, event: str, bank: str | None, program: str = "ckp") -> str:
    """The command line a host runs for ``event``."""
    parts = [program, "hook", host, event]
    if bank:
        parts += ["--bank", bank]
    return " ".join(shlex.quote(p) for p in parts)


#: the options of ``ckp hook`` a command of ours may carry, each with its value
_OPTIONS = ("--bank", "--max-chars")


def _ours(cmd: Any, host: str) -> bool:
    """Whether ``cmd`` is a command we write (``command``): ``ckp hook HOST EVENT`` and its
    options, parsed as the shell does; a command of the user's that merely mentions it is not."""
    if not isinstance(cmd, str):
        return False
    try:
        argv = shlex.split(cmd)
    except ValueError:
        return False
    if len(argv) < 4 or os.path.basename(argv[0]) != "ckp" or argv[1:3] != ["hook", host]:
        return False
    if argv[3] not in _EVENTS[host]:
        return False
    rest = argv[4:]
    return len(rest) % 2 == 0 and all(o in _OPTIONS for o in rest[::2])


class _Number(str):
    """A number of the file, kept as the text it was written as (``1e400``, ``1.000…01``): a
    float would write it back changed, or as ``Infinity``, which is no JSON."""


def _no_constant(name: str) -> Any:
    raise ConfigError(f"{name} is not JSON")


def _no_twins(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    value = dict(pairs)
    if len(value) != len(pairs):
        seen: set[str] = set()
        twin = next(k for k, _ in pairs if k in seen or seen.add(k))  # type: ignore[func-returns-value]
        raise ConfigError(
            f"the key {twin!r} is written twice in one object (which one a host reads is unsure)"
        )
    return value


def _parse(text: str) -> Any:
    """``text``'s JSON value, each number as its own text (``_Number``); a duplicate key or a
    ``NaN`` is a ``ConfigError``."""
    return json.loads(
        text, parse_float=_Number, parse_int=_Number, parse_constant=_no_constant, object_pairs_hook=_no_twins
    )


def _load(path: str, text: str | None) -> dict[str, Any]:
    if text is None or not text.strip():
        return {}
    try:
        value = _parse(text)
    except ValueError as exc:
        raise ConfigError(f"{path} is not valid JSON ({exc}): nothing was written; fix it first") from None
    except RecursionError:
        raise ConfigError(f"{path} is nested too deeply to be read: nothing was written") from None
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}: nothing was written; fix it first") from None
    if "\\u0000" in text.lower():  # a NUL in a string: the marks ``_dump`` writes could collide
        raise ConfigError(f"{path} holds a NUL character (\\u0000) in a string: nothing was written")
    if not isinstance(value, dict):
        raise ConfigError(f"{path} is not a JSON object: nothing was written")
    hooks = value.get("hooks")
    if hooks is not None and not isinstance(hooks, dict):
        raise ConfigError(f'{path}: its "hooks" is not an object: nothing was written')
    return value


def _dump(value: dict[str, Any]) -> str:
    """``value`` as JSON, each number written back as the text it was read as."""
    numbers: list[str] = []

    def mark(v: Any) -> Any:
        if isinstance(v, _Number):
            numbers.append(str(v))
            return f"\0{len(numbers) - 1}\0"
        if isinstance(v, dict):
            return {k: mark(x) for k, x in v.items()}
        if isinstance(v, list):
            return [mark(x) for x in v]
        return v

    try:
        text = json.dumps(mark(value), indent=2, ensure_ascii=False)
    except RecursionError:
        raise ConfigError("the settings are nested too deeply to be written: nothing was written") from None
    # Each number went out as the string "\u0000i\u0000" (``_load`` refused a file whose strings
    # hold a NUL, so nothing else reads so): its original text goes back in its place.
    return _MARKED.sub(lambda m: numbers[int(m.group(1))], text) + "\n"


_MARKED = re.compile(r'"\\u0000(\d+)\\u0000"')


def _without_ours(entries: Any, host: str, grouped: bool) -> list[Any]:
    """A host's list of hooks for one event without ours (a group left empty goes too)."""
    if not isinstance(entries, list):
        return []
    out = []
    for entry in entries:
        if grouped and isinstance(entry, dict) and isinstance(entry.get("hooks"), list):
            kept = [h for h in entry["hooks"] if not (isinstance(h, dict) and _ours(h.get("command"), host))]
            if kept:
                out.append({**entry, "hooks": kept} if len(kept) != len(entry["hooks"]) else entry)
            elif not entry["hooks"]:
                out.append(entry)
        elif not (isinstance(entry, dict) and _ours(entry.get("command") or entry.get("bash"), host)):
            out.append(entry)
    return out


def _entry(host: str, event: str, matcher: str | None, cmd: str) -> dict[str, Any]:
    if host == "cursor":
        return {"command": cmd}
    if host == "copilot":
        return {"type": "command", "command": cmd, "timeout": TIMEOUT}
    group: dict[str, Any] = {"hooks": [{"type": "command", "command": cmd, "timeout": TIMEOUT}]}
    return {"matcher": matcher, **group} if matcher else group


def merged(host: str, path: str, text: str | None, bank: str | None, program: str = "ckp") -> str:
    """``text`` (a host's JSON configuration, None when missing) with our hooks, added once."""
    value = _load(path, text)
    if host == "cursor":
        value.setdefault("version", 1)
    hooks = value.setdefault("hooks", {})
    grouped = host in ("claude-code", "codex")
    for event, matcher in _EVENTS[host].items():
        kept = _without_ours(hooks.get(event), host, grouped)
        hooks[event] = [*kept, _entry(host, event, matcher, command(host, event, bank, program))]
    new = _dump(value)
    return text if text is not None and _same(text, new) else new


def unmerged(host: str, path: str, text: str | None) -> str | None:
    """``text`` without our hooks (None: the file was only ours, and goes)."""
    if text is None:
        return None
    value = _load(path, text)
    hooks = value.get("hooks")
    if not isinstance(hooks, dict):
        return text
    grouped = host in ("claude-code", "codex")
    for event in list(hooks):
        if event not in _EVENTS[host]:
            continue
        kept = _without_ours(hooks[event], host, grouped)
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
    if not hooks:
        del value["hooks"]
    if host in ("copilot", "cursor") and (not value or value == {"version": 1}):
        return None  # nothing but what we wrote
    new = _dump(value)
    return text if _same(text, new) else new


def _same(text: str, new: str) -> bool:
    """Whether two JSON texts hold the same value (an unchanged file keeps its own layout)."""
    try:
        return bool(_parse(text) == _parse(new))
    except (ValueError, RecursionError, ConfigError):
        return False


def cline_script(event: str, bank: str | None, program: str = "ckp") -> str:
    return (
        "#!/bin/sh\n"
        f"{CLINE_MARK}: "
        + (
            "the memory bank's files for each prompt"
            if event == "UserPromptSubmit"
            else "the bank's concepts"
        )
        + ".\n"
        f"exec {command('cline', event, bank, program)}\n"
    )


def planned(
    host: str, current: dict[str, str | None], bank: str | None, program: str = "ckp"
) -> tuple[list[Planned], list[str]]:
    """What installing ``host``'s hooks writes, from the files' ``current`` texts (by path); and
    what is left alone, and why."""
    if host not in _EVENTS:
        raise ConfigError(f"unknown host {host!r}: one of {', '.join(HOSTS)}")
    if host == "cline":
        plans, kept = [], []
        for path, event in zip(files_of(host), _EVENTS["cline"], strict=True):
            old = current.get(path)
            if old is not None and CLINE_MARK not in old:
                kept.append(
                    f"{path} is a hook of your own: left as it is (add `{command(host, event, bank)}` to it)"
                )
                continue
            plans.append(Planned(path, old, cline_script(event, bank, program), executable=True))
        return plans, kept
    path = files_of(host)[0]
    return [Planned(path, current.get(path), merged(host, path, current.get(path), bank, program))], []


def removal(host: str, current: dict[str, str | None]) -> list[Planned]:
    """What removing ``host``'s hooks writes (or deletes)."""
    if host not in _EVENTS:
        raise ConfigError(f"unknown host {host!r}: one of {', '.join(HOSTS)}")
    if host == "cline":
        return [
            Planned(path, old, None)
            for path in files_of(host)
            if (old := current.get(path)) is not None and CLINE_MARK in old
        ]
    path = files_of(host)[0]
    return [Planned(path, current.get(path), unmerged(host, path, current.get(path)))]


def installed(host: str, current: dict[str, str | None]) -> bool:
    """Whether ``host``'s configuration runs our hook."""
    if host == "cline":
        return any(t is not None and CLINE_MARK in t for t in current.values())
    text = current.get(files_of(host)[0])
    return text is not None and any(_ours(c, host) for c in _commands(text))


def _commands(text: str) -> list[str]:
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return []
    found: list[str] = []
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            for k, x in v.items():
                if k in ("command", "bash") and isinstance(x, str):
                    found.append(x)
                else:
                    stack.append(x)
        elif isinstance(v, list):
            stack.extend(v)
    return found
