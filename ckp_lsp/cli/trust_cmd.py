"""``ckp trust``: let a folder's ``.ckp.toml`` choose the LLM program or endpoint (SPEC §8)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ckp_lsp.core.project.config import CONFIG_NAME, config_chain
from ckp_lsp.core.project.trust import (
    TrustStore,
    fingerprint,
    real_folder,
    sensitive_settings,
    shown_value,
)
from ckp_lsp.core.project.within import config_text, repository_of

from ..faces.clock import utc_stamp

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "trust",
        help="trust a folder's .ckp.toml to choose the LLM program or endpoint",
        description=(
            "A cloned repository's .ckp.toml cannot choose a program to run, an endpoint to call or "
            "where an API key is sent until you trust its folder. Trusting PATH trusts the .ckp.toml "
            "of PATH and of the folders above it up to the repository root, as they read now: when "
            "their LLM settings change, ckp asks again. The decision is kept in your own "
            "configuration folder, never in the repository."
        ),
    )
    p.add_argument("path", nargs="?", type=Path, default=Path("."), metavar="PATH")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--list", action="store_true", help="list the trusted folders")
    group.add_argument("--revoke", action="store_true", help="stop trusting PATH")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    store = TrustStore()
    if args.list:
        return _list(store)
    if args.revoke:
        try:
            revoked = store.revoke(args.path)
        except OSError as exc:
            print(
                f"ckp: cannot keep the trust decision in {store.path} ({_reason(exc)}); nothing was revoked",
                file=sys.stderr,
            )
            return 1
        if revoked:
            print(f"no longer trusted: {real_folder(args.path)}")
            return 0
        print(f"ckp: {real_folder(args.path)} was not trusted", file=sys.stderr)
        return 1
    if not args.path.is_dir():
        print(f"ckp: {args.path}: not a folder", file=sys.stderr)
        return 2
    folders = [f for f in config_chain(Path(real_folder(args.path))) if (f / CONFIG_NAME).is_file()]
    if not folders:
        print(
            f"ckp: there is no {CONFIG_NAME} in {real_folder(args.path)} or above it; nothing to trust",
            file=sys.stderr,
        )
        return 1
    failed = 0
    for folder in folders:
        settings = _settings(folder / CONFIG_NAME)
        if settings is None:
            failed += 1
            continue
        try:
            store.trust(folder, settings, utc_stamp())
        except OSError as exc:
            print(
                f"ckp: cannot keep the trust decision in {store.path} ({_reason(exc)}); {folder / CONFIG_NAME} is not trusted",
                file=sys.stderr,
            )
            return 1
        shown = ", ".join(shown_value(k, v) for k, v in settings.items()) or "no LLM program or endpoint"
        print(f"trusted {folder / CONFIG_NAME}: {shown}")
    print(f"(kept in {store.path})")
    return 1 if failed else 0


def _reason(exc: OSError) -> str:
    """The system's reason, with the path it names when that is not the store itself."""
    where = f": {exc.filename}" if exc.filename else ""
    return f"{exc.strerror or exc}{where}"


def _settings(path: Path) -> dict[str, Any] | None:
    """The trust-sensitive settings of ``path``, or None (and a message) when it cannot be read."""
    try:
        data = tomllib.loads(config_text(path, repository_of(path.parent)))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        print(f"ckp: {path}: {exc}; fix it before trusting it", file=sys.stderr)
        return None
    return sensitive_settings(data)


def _list(store: TrustStore) -> int:
    entries = store.entries()
    if not entries:
        print("no trusted folders")
        return 0
    for entry in entries.values():
        state = _state(Path(entry.folder), entry.fingerprint)
        print(f"{entry.folder}  (trusted {entry.since}{state})")
    return 0


def _state(folder: Path, trusted_with: str) -> str:
    """What changed since the folder was trusted, as a suffix for ``--list``."""
    path = folder / CONFIG_NAME
    if not path.is_file():
        return f"; no {CONFIG_NAME} now"
    settings = _settings(path)
    if settings is None:
        return "; unreadable now"
    return (
        ""
        if fingerprint(settings) == trusted_with
        else "; the settings trust covers changed since: run ckp trust again"
    )
