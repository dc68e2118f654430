"""``ckp-lsp``: start the language server over stdio (default) or TCP."""

from __future__ import annotations

import argparse
import logging
import os
import stat
import sys
import time
from collections.abc import Sequence

from .. import __version__


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="ckp-lsp", description="Language server for CKP memory banks.")
    p.add_argument("--stdio", action="store_true", help="talk over stdin/stdout (the default)")
    p.add_argument("--tcp", metavar="HOST:PORT", help="listen on a TCP address instead, for debugging")
    p.add_argument("--log-file", metavar="FILE", help="write the server's own log to FILE")
    p.add_argument(
        "--no-cache",
        action="store_true",
        help="read every file of the banks, and leave their cache (.ckp-cache/) alone",
    )
    p.add_argument("--version", action="version", version=f"ckp-lsp {__version__}")
    args = p.parse_args(argv)
    if args.log_file:
        logging.basicConfig(filename=args.log_file, level=logging.INFO)
    else:
        # Editors show a server's stderr as errors: keep pygls's routine warnings out of it.
        logging.getLogger("pygls").setLevel(logging.ERROR)
    started = time.perf_counter()
    from . import methods_cache

    with methods_cache.kept():  # attrs's methods of the protocol's classes, compiled at a start before
        from . import pygls_compat, stdio
        from .factory import create_server

        pygls_compat.install()
        server = create_server(use_cache=not args.no_cache)

    server.import_seconds = time.perf_counter() - started
    if args.tcp:
        host, _, port = args.tcp.rpartition(":")
        if not port.isdigit():
            p.error("--tcp takes HOST:PORT, e.g. 127.0.0.1:2087")
        server.start_tcp(host or "127.0.0.1", int(port))
    else:
        stdio.serve_stdio(server, reads_pipe())
    # LSP: exit code 0 after a shutdown request, 1 when the client exits (or goes away) without one.
    return 0 if pygls_compat.shut_down_cleanly(server) else 1


def reads_pipe() -> bool:
    """Whether stdin is a pipe (or socket) that the event loop can read itself."""
    try:
        mode = os.fstat(sys.stdin.fileno()).st_mode
    except (OSError, ValueError, AttributeError):
        return False
    return os.name == "posix" and (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode))


if __name__ == "__main__":
    sys.exit(main())
