"""``ckp-lsp``: start the language server over stdio (default) or TCP."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from typing import Any

from .. import __version__


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="ckp-lsp", description="Language server for CKP memory banks.")
    p.add_argument("--stdio", action="store_true", help="talk over stdin/stdout (the default)")
    p.add_argument("--tcp", metavar="HOST:PORT", help="listen on a TCP address instead, for debugging")
    p.add_argument("--log-file", metavar="FILE", help="write the server's own log to FILE")
    p.add_argument(
        "--one-core",
        action="store_true",
        help="read the banks in this process only, after its start (no child on another core)",
    )
    p.add_argument("--version", action="version", version=f"ckp-lsp {__version__}")
    args = p.parse_args(argv)
    if args.log_file:
        logging.basicConfig(filename=args.log_file, level=logging.INFO)
    else:
        # Editors show a server's stderr as errors: keep pygls's routine warnings out of it.
        logging.getLogger("pygls").setLevel(logging.ERROR)
    preload = None
    if not args.tcp and not args.one_core and _reads_pipe():
        from .preload import Preload

        preload = Preload.start()
    from .server import server

    consumed = b""
    if preload is not None:
        consumed = preload.consumed()
        server.preload = preload
        preload.adopt()
        del preload  # the server lets go of it once indexed
    if args.tcp:
        host, _, port = args.tcp.rpartition(":")
        if not port.isdigit():
            p.error("--tcp takes HOST:PORT, e.g. 127.0.0.1:2087")
        server.start_tcp(host or "127.0.0.1", int(port))
    else:
        _start_io(server, consumed)
    # LSP: exit code 0 after a shutdown request, 1 when the client exits (or goes away) without one.
    # pygls swallows the SystemExit that carries it.
    return 0 if getattr(server.protocol, "_shutdown", False) else 1


def _reads_pipe() -> bool:
    """Whether stdin is a pipe (or socket) that the event loop can read itself (see ``_start_io``)."""
    import os
    import stat

    try:
        mode = os.fstat(sys.stdin.fileno()).st_mode
    except (OSError, ValueError, AttributeError):
        return False
    return os.name == "posix" and (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode))


def _start_io(server: Any, consumed: bytes) -> None:
    """Serve over stdio, reading stdin on the event loop.

    pygls reads stdin on a worker thread, one hand-off per header line and per body: most of
    a request's round trip on a small machine. Where stdin is a pipe the event loop reads it
    itself; elsewhere (a file, Windows) pygls's own reader serves.
    """
    import asyncio
    import threading

    if not _reads_pipe():
        server.start_io()
        return
    from pygls.io_ import StdoutWriter, run_async

    async def serve() -> None:
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=1 << 20)
        reader.feed_data(consumed)  # what was read before (see ``preload``)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin.buffer)
        await run_async(
            stop_event=server._stop_event,
            reader=reader,
            protocol=server.protocol,
            logger=logging.getLogger("pygls.io_"),
            error_handler=server.report_server_error,
        )

    server._stop_event = threading.Event()
    server.protocol.set_writer(StdoutWriter(sys.stdout.buffer))
    try:
        asyncio.run(serve())
    except BrokenPipeError:
        logging.getLogger("pygls").error("Connection to the client is lost! Shutting down the server.")
    except (KeyboardInterrupt, SystemExit, asyncio.IncompleteReadError):
        pass
    finally:
        server.shutdown()


if __name__ == "__main__":
    sys.exit(main())
