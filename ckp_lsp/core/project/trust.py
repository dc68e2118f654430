"""Trust (SPEC §8): which folders' ``.ckp.toml`` may choose a program, an endpoint or a key's destination.

A cloned repository is not trusted. The user trusts a folder with ``ckp trust PATH``; the decision
is kept in the user's own configuration folder (never in the repository), keyed by the folder's
real path and by a fingerprint of the trust-sensitive settings its ``.ckp.toml`` held then, so a
``git pull`` that changes the command or the endpoint asks again.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ckp_lsp.core.format.records import Frozen

CONFIG_NAME = ".ckp.toml"
USER_CONFIG_NAME = "config.toml"
TRUST_FILE_NAME = "trusted.json"
# The llm keys (as .ckp.toml and editor settings spell them) that choose what runs, where a
# request goes and so where a key is sent; ``provider`` only when it is not the offline one.
SENSITIVE_KEYS = ("provider", "command", "base_url", "baseUrl")
#: how ``staleness = "git"`` is named among the trust-sensitive settings
GIT_STALENESS = "staleness"


def user_config_dir(env: Mapping[str, str] | None = None) -> Path:
    """The user's ckp folder: ``$XDG_CONFIG_HOME/ckp``, else ``~/.config/ckp`` (``%APPDATA%\\ckp``)."""
    env = os.environ if env is None else env
    if env.get("XDG_CONFIG_HOME"):
        return Path(env["XDG_CONFIG_HOME"]) / "ckp"
    if sys.platform == "win32" and env.get("APPDATA"):  # pragma: no cover - not run on Linux
        return Path(env["APPDATA"]) / "ckp"
    return Path.home() / ".config" / "ckp"


def user_config_path(env: Mapping[str, str] | None = None) -> Path:
    """The user-level configuration file, read before any workspace ``.ckp.toml``."""
    return user_config_dir(env) / USER_CONFIG_NAME


def trust_file(env: Mapping[str, str] | None = None) -> Path:
    """Where trust decisions are kept."""
    return user_config_dir(env) / TRUST_FILE_NAME


def sensitive_settings(data: Mapping[str, Any]) -> dict[str, Any]:
    """The trust-sensitive settings of a parsed ``.ckp.toml`` (empty when it has none): the ``llm``
    ones, and ``staleness = "git"``, which runs git in the repository on every check."""
    llm = data.get("llm")
    out = (
        {k: llm[k] for k in SENSITIVE_KEYS if k in llm and llm[k] is not None}
        if isinstance(llm, Mapping)
        else {}
    )
    if out.get("provider") == "offline":  # choosing no provider runs nothing and sends nothing
        del out["provider"]
    if data.get("staleness") == "git":
        out[GIT_STALENESS] = "git"
    return out


def fingerprint(settings: Mapping[str, Any]) -> str:
    """A digest of trust-sensitive settings: a change to any of them voids an earlier trust."""
    import json  # (imported where a store or settings are read: not by a route from the snapshot)

    canonical = json.dumps(settings, sort_keys=True, ensure_ascii=True, default=str)
    import hashlib  # (OpenSSL's start: only when a bank's settings are judged)

    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class TrustEntry(Frozen):
    """A trusted folder: its real path, the fingerprint it was trusted with, and when."""

    _fields = ("folder", "fingerprint", "since")
    __slots__ = _fields

    def __init__(self, folder: str, fingerprint: str, since: str) -> None:
        self.folder = folder
        self.fingerprint = fingerprint
        self.since = since


class TrustStore:
    """The user's trust decisions, read from and written to ``trust_file()``."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or trust_file()

    def entries(self) -> dict[str, TrustEntry]:
        """Trusted folders by real path; an unreadable store trusts nothing."""
        import json

        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError):
            return {}
        folders = data.get("folders") if isinstance(data, dict) else None
        if not isinstance(folders, dict):
            return {}
        out: dict[str, TrustEntry] = {}
        for folder, entry in folders.items():
            if isinstance(entry, dict) and isinstance(entry.get("fingerprint"), str):
                out[folder] = TrustEntry(folder, entry["fingerprint"], str(entry.get("since", "")))
        return out

    def verdict(self, folder: Path, settings: Mapping[str, Any]) -> str:
        """``trusted``, ``changed`` (trusted with other settings) or ``untrusted``."""
        entry = self.entries().get(real_folder(folder))
        if entry is None:
            return "untrusted"
        return "trusted" if entry.fingerprint == fingerprint(settings) else "changed"

    def trust(self, folder: Path, settings: Mapping[str, Any], since: str) -> TrustEntry:
        """Trust ``folder`` with these settings of its ``.ckp.toml``; ``since``: when, as the face
        read it from the clock (``faces.clock.utc_stamp``)."""
        entry = TrustEntry(real_folder(folder), fingerprint(settings), since)
        entries = self.entries()
        entries[entry.folder] = entry
        self._write(entries)
        return entry

    def revoke(self, folder: Path) -> bool:
        """Forget ``folder``; whether it was trusted."""
        entries = self.entries()
        gone = entries.pop(real_folder(folder), None) or entries.pop(str(folder), None)
        if gone is not None:
            self._write(entries)
        return gone is not None

    def _write(self, entries: Mapping[str, TrustEntry]) -> None:
        data = {
            "version": 1,
            "folders": {
                e.folder: {"fingerprint": e.fingerprint, "since": e.since}
                for e in sorted(entries.values(), key=lambda e: e.folder)
            },
        }
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # Written whole then renamed: a crash never leaves a half store (which would trust nothing).
        import json
        import tempfile  # only when the store is written

        fd, tmp = tempfile.mkstemp(prefix=".trusted-", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(data, f, indent=2)
                f.write("\n")
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise


def real_folder(folder: Path) -> str:
    """The key of a folder: its real path (symbolic links resolved)."""
    return str(Path(os.path.realpath(folder)))


def shown_value(key: str, value: Any) -> str:
    """A setting as a message shows it: ``llm.command = 'sh -c …'`` (control characters escaped)."""
    return f"{key} = {value!r}" if key == GIT_STALENESS else f"llm.{key} = {value!r}"
