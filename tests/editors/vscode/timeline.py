"""The start of the extension in code-server as one timeline: what the extension host, the CKP
output channel and drive.mjs each saw, on one clock, in milliseconds from opening the file."""

from __future__ import annotations

import datetime
import re
from pathlib import Path

#: ``2026-12-02 00:39:45.739 [info] ...`` in VS Code's log files (local time)
LOG_LINE = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}) \[\w+\] (.*)$")
#: the CKP output's own timings, in ms after the extension started the server
CLIENT_TIMINGS = {
    "interpreter found": re.compile(r"\(server found in (\d+) ms\)"),
    "server running (initialize answered)": re.compile(r"server running (\d+) ms after the start"),
    "first diagnostics in the extension": re.compile(r"first diagnostics (\d+) ms after the start"),
}
#: the server's own durations (not times): how long its imports took, and its first reading
SERVER_IMPORTS = re.compile(r"the server's modules imported in (\d+) ms")
SERVER_READ = re.compile(r"banks? read and checked in (\d+) ms")


def log_epoch(stamp: str) -> float:
    """ms since 1970 of a VS Code log time stamp (written in local time)."""
    return datetime.datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S.%f").timestamp() * 1000


def exthost_events(user_data: Path) -> dict[str, float]:
    """When the extension host started and when it activated the CKP extension (ms since 1970)."""
    events: dict[str, float] = {}
    for log in sorted(user_data.glob("logs/**/remoteexthost.log")):
        for line in log.read_text(errors="replace").splitlines():
            match = LOG_LINE.match(line)
            if not match:
                continue
            stamp, text = match.groups()
            if text.startswith("Extension host with pid") and "extension host started" not in events:
                events["extension host started"] = log_epoch(stamp)
            elif "_doActivateExtension ckp.ckp-lsp" in text and "CKP extension activated" not in events:
                events["CKP extension activated"] = log_epoch(stamp)
            elif text.startswith("Eager extensions activated") and "eager extensions activated" not in events:
                events["eager extensions activated"] = log_epoch(stamp)
    return events


def start_timeline(user_data: Path, output: str, epochs: dict[str, float]) -> list[tuple[str, float]]:
    """(event, ms after the file was opened), in order; empty when the file was never opened."""
    opened = epochs.get("opened")
    if opened is None:
        return []
    events = exthost_events(user_data)
    activated = events.get("CKP extension activated")
    if activated is not None:
        for name, pattern in CLIENT_TIMINGS.items():
            if found := pattern.search(output):
                events[name] = activated + int(found.group(1))
    events["workbench shown"] = epochs.get("workbench", opened)
    events["file opened (Enter in Quick Open)"] = opened
    if "tab" in epochs:
        events["editor tab shown"] = epochs["tab"]
    if "markers" in epochs:
        events["Problems count in the status bar"] = epochs["markers"]
    if "squiggle" in epochs:
        events["first squiggle"] = epochs["squiggle"]
    return sorted(((name, at - opened) for name, at in events.items()), key=lambda e: e[1])


def format_timeline(timeline: list[tuple[str, float]], output: str) -> str:
    lines = [f"  {at / 1000:+7.2f} s  {name}" for name, at in timeline]
    if imports := SERVER_IMPORTS.search(output):
        lines.append(f"  (the server's own imports took {int(imports.group(1))} ms of its start)")
    if read := SERVER_READ.search(output):
        lines.append(f"  (its first reading and checking of the banks took {int(read.group(1))} ms)")
    return "start timeline, from opening the file:\n" + "\n".join(lines)
