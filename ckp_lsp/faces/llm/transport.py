"""One HTTP POST to an LLM API within a job's deadline: no key across origins, a capped answer.

``http.client`` rather than ``urllib``: urllib follows redirects with the request's headers (the
key) to any host, and its timeout bounds each socket read, not the answer; here a watchdog closes
the connection at the deadline, a redirect is followed only to the same origin, and at most
``MAX_ANSWER_BYTES`` are read. The request and the answer are the core's values
(``core/compile/wire.py``); this face is what touches the network.
"""

from __future__ import annotations

import base64
import http.client
import socket
import ssl
import urllib.parse
import urllib.request
from collections.abc import Mapping

from ...core.compile.job import Job
from ...core.compile.wire import (
    MAX_ANSWER_BYTES,
    Cancelled,
    HttpAnswer,
    ProviderError,
    Request,
    origin,
    shown,
    timeout_error,
)

_REDIRECTS = 3
_LOOPBACK_HOSTS = {"localhost", "127.0.0.1", "::1"}
_USER_AGENT = "ckp-lsp"


def post(request: Request, job: Job) -> HttpAnswer:
    """POST ``request`` within ``job``'s deadline; every failure a ProviderError."""
    url, headers, payload = request.url, request.headers, request.payload
    for _ in range(_REDIRECTS + 1):
        answer = _post_once(url, headers, payload, job)
        if answer.status not in (301, 302, 303, 307, 308):
            return answer
        target = urllib.parse.urljoin(url, answer.headers.get("location", ""))
        if origin(target) != origin(url) or answer.status not in (307, 308):
            # The reply of a server that sends us elsewhere is not used, and the key does not follow.
            raise ProviderError(
                f"the provider at {shown(url)} redirected to {shown(target)} (HTTP {answer.status}); "
                "the request and its key are not sent on to another address: set the base URL to "
                "the address the API really answers at"
            )
        url = target
    raise ProviderError(
        f"the provider at {shown(url)} redirected more than {_REDIRECTS} times; check the base URL"
    )


def _post_once(url: str, headers: Mapping[str, str], payload: bytes, job: Job) -> HttpAnswer:
    if job.cancelled:
        raise Cancelled()
    if job.expired:
        raise timeout_error(url, job.seconds)
    conn, target = _connection(url, job.remaining())

    def abort() -> None:
        sock = conn.sock
        if sock is not None:
            sock.shutdown(socket.SHUT_RDWR)

    try:
        with job.guard(abort):
            conn.request(
                "POST",
                target,
                body=payload,
                headers={
                    "Content-Type": "application/json",
                    "Accept": "application/json",
                    "User-Agent": _USER_AGENT,
                    **headers,
                },
            )
            response = conn.getresponse()
            status = response.status
            got = {k.lower(): v for k, v in response.getheaders()}
            if status in (301, 302, 303, 307, 308):
                return HttpAnswer(url, status, got, b"")  # its body is never read
            body = _read_capped(response, url)
    except ProviderError:
        raise
    except (OSError, http.client.HTTPException) as exc:
        if job.cancelled:
            raise Cancelled() from None
        if job.expired or isinstance(exc, TimeoutError):
            raise timeout_error(url, job.seconds) from None
        raise connection_error(exc, url) from None
    finally:
        conn.close()
    # A connection closed by the watchdog reads as an early end: what came is not the answer.
    if job.cancelled:
        raise Cancelled()
    if job.expired:
        raise timeout_error(url, job.seconds)
    return HttpAnswer(url, status, got, body)


def _read_capped(response: http.client.HTTPResponse, url: str) -> bytes:
    """The body, read a piece at a time so that a huge one is refused before it is all in memory."""
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = response.read1(65536)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > MAX_ANSWER_BYTES:
            raise ProviderError(
                f"the provider at {shown(url)} sent more than {MAX_ANSWER_BYTES // (1024 * 1024)} MiB; "
                "that is not an answer for one header: check the base URL and the model"
            )
        chunks.append(chunk)


def _connection(url: str, timeout: float) -> tuple[http.client.HTTPConnection, str]:
    """A connection for ``url`` (through the environment's proxy unless local) and the request target."""
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    proxy = _proxy_for(parts.scheme, host)
    auth: dict[str, str] = {}
    if proxy is not None:
        p = urllib.parse.urlsplit(proxy if "://" in proxy else f"http://{proxy}")
        if p.username:
            token = f"{urllib.parse.unquote(p.username)}:{urllib.parse.unquote(p.password or '')}"
            auth = {"Proxy-Authorization": "Basic " + base64.b64encode(token.encode()).decode()}
        proxy_host, proxy_port = p.hostname or "", p.port or 80
    if parts.scheme == "https":
        context = ssl.create_default_context()
        if proxy is None:
            return http.client.HTTPSConnection(host, port, timeout=timeout, context=context), path
        conn = http.client.HTTPSConnection(proxy_host, proxy_port, timeout=timeout, context=context)
        conn.set_tunnel(host, port, headers=auth)
        return conn, path
    if proxy is None:
        return http.client.HTTPConnection(host, port, timeout=timeout), path
    plain = http.client.HTTPConnection(proxy_host, proxy_port, timeout=timeout)
    return plain, url  # a plain-HTTP proxy takes the whole URL


def _proxy_for(scheme: str, host: str) -> str | None:
    """The environment's proxy for ``scheme``, except for local servers (Ollama, llama.cpp)."""
    if host.lower() in _LOOPBACK_HOSTS:
        return None
    proxy = urllib.request.getproxies().get(scheme)
    if not proxy or urllib.request.proxy_bypass(host):
        return None
    return proxy


def connection_error(reason: object, url: str) -> ProviderError:
    """A ProviderError for a request that got no HTTP answer at all."""
    if isinstance(reason, ConnectionRefusedError):
        return ProviderError(
            f"could not connect to {shown(url)} (connection refused); "
            f"is the server running at {shown(url)}? Check the base URL"
        )
    if isinstance(reason, socket.gaierror):
        return ProviderError(
            f"could not resolve the host of {shown(url)}; check the base URL and the network"
        )
    if isinstance(reason, http.client.HTTPException):
        return ProviderError(
            f"the connection to {shown(url)} broke before the answer was complete; try again"
        )
    why = getattr(reason, "strerror", None) or str(reason) or type(reason).__name__
    return ProviderError(f"could not reach {shown(url)} ({why}); check the base URL and the network")
