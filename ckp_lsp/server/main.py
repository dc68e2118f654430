"""``ckp-lsp``: start the language server over stdio (default) or TCP."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

from .. import __version__


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="ckp-lsp", description="Language server for CKP memory banks.")
    p.add_argument("--stdio", action="store_true", help="talk over stdin/stdout (the default)")
    p.add_argument("--tcp", metavar="HOST:PORT", help="listen on a TCP address instead, for debugging")
    p.add_argument("--log-file", metavar="FILE", help="write the server's own log to FILE")
    p.add_argument("--version", action="version", version=f"ckp-lsp {__version__}")
    args = p.parse_args(argv)
    if args.log_file:
        logging.basicConfig(filename=args.log_file, level=logging.INFO)
    else:
        # Editors show a server's stderr as errors: keep pygls's routine warnings out of it.
        logging.getLogger("pygls").setLevel(logging.ERROR)
    from .server import server

    if args.tcp:
        host, _, port = args.tcp.rpartition(":")
        if not port.isdigit():
            p.error("--tcp takes HOST:PORT, e.g. 127.0.0.1:2087")
        server.start_tcp(host or "127.0.0.1", int(port))
    else:
        server.start_io()
    # LSP: exit code 0 after a shutdown request, 1 when the client exits (or goes away) without one.
    # pygls swallows the SystemExit that carries it.
    return 0 if getattr(server.protocol, "_shutdown", False) else 1


if __name__ == "__main__":
    sys.exit(main())
