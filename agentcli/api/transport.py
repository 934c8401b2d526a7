"""The one HTTP transport every Messages API request goes through: the SDK's own HTTP library, set up as the SDK
sets it up, without importing the SDK (which costs about a second at start-up).

Same library, timeouts, connection limits, redirects, TCP keep-alive, proxies from the environment
(``HTTPS_PROXY``, ``NO_PROXY``, …), TLS verification (``SSL_CERT_FILE`` and friends, read by the library), base URL
and auth header; failures come out as :mod:`agentcli.api.errors` with the fields the retry policy reads.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import os
import socket
import sys
import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agentcli.api.errors import ApiConnectionError, ApiError, AuthError
from agentcli.api.headers import custom_headers, request_headers

if TYPE_CHECKING:
    import httpx2

DEFAULT_BASE_URL = "https://api.anthropic.com"
MESSAGES_PATH = "v1/messages"
MAX_CONNECTIONS = 1000
MAX_KEEPALIVE_CONNECTIONS = 100


@dataclass(slots=True)
class Credentials:
    api_key: str | None = None
    auth_token: str | None = None
    base_url: str | None = None

    @property
    def source(self) -> str:
        """Which credential is in use, for messages (never the value itself)."""
        if self.api_key:
            return "ANTHROPIC_API_KEY"
        if self.auth_token:
            return "ANTHROPIC_AUTH_TOKEN"
        return "none"

    @property
    def bearer(self) -> str:
        """The credential sent: the API key wins over a token when both are set."""
        return self.api_key or self.auth_token or ""


def environment_proxies() -> dict[str, str | None]:
    """Proxy mounts from the environment, read as the SDK reads them: ``http``/``https``/``all`` proxies, and a
    direct route (None) for each ``NO_PROXY`` entry; ``NO_PROXY=*`` turns every proxy off."""
    from urllib.request import getproxies

    found = getproxies()
    mounts: dict[str, str | None] = {}
    for scheme in ("http", "https", "all"):
        if proxy := found.get(scheme):
            mounts[f"{scheme}://"] = proxy if "://" in proxy else f"http://{proxy}"
    for entry in (part.strip() for part in found.get("no", "").split(",")):
        if entry == "*":
            return {}
        if entry:
            mounts[_no_proxy_pattern(entry)] = None
    return mounts


def _no_proxy_pattern(entry: str) -> str:
    if "://" in entry:
        return entry
    address = entry.split("/")[0]
    for kind, form in ((ipaddress.IPv4Address, "all://{}"), (ipaddress.IPv6Address, "all://[{}]")):
        with contextlib.suppress(ValueError):
            kind(address)
            return form.format(entry)
    return f"all://{entry}" if entry.lower() == "localhost" else f"all://*{entry}"


def _socket_options() -> list[tuple[int, int, int | bool]]:
    """TCP keep-alive probing after 60 s idle, every 60 s, 5 tries: a dead peer is noticed on a long stream."""
    options: list[tuple[int, int, int | bool]] = [(socket.SOL_SOCKET, socket.SO_KEEPALIVE, True)]
    if (interval := getattr(socket, "TCP_KEEPINTVL", None)) is not None:
        options.append((socket.IPPROTO_TCP, interval, 60))
    elif sys.platform == "darwin":
        options.append((socket.IPPROTO_TCP, getattr(socket, "TCP_KEEPALIVE", 0x10), 60))
    if (count := getattr(socket, "TCP_KEEPCNT", None)) is not None:
        options.append((socket.IPPROTO_TCP, count, 5))
    if (idle := getattr(socket, "TCP_KEEPIDLE", None)) is not None:
        options.append((socket.IPPROTO_TCP, idle, 60))
    return options


def build_http_client(base_url: str, timeout: httpx2.Timeout) -> httpx2.AsyncClient:
    import httpx2

    limits = httpx2.Limits(max_connections=MAX_CONNECTIONS, max_keepalive_connections=MAX_KEEPALIVE_CONNECTIONS)
    transport_options: dict[str, Any] = {"limits": limits, "socket_options": _socket_options()}
    mounts = {
        pattern: None if proxy is None else httpx2.AsyncHTTPTransport(proxy=proxy, **transport_options)
        for pattern, proxy in environment_proxies().items()
    }
    return httpx2.AsyncClient(
        base_url=base_url,
        timeout=timeout,
        limits=limits,
        follow_redirects=True,
        mounts=mounts,
        transport=httpx2.AsyncHTTPTransport(**transport_options),
    )


def messages_url(base_url: str) -> httpx2.URL:
    """``v1/messages`` under the base URL, whatever path it has (a gateway's prefix is kept)."""
    import httpx2

    base = httpx2.URL(base_url)
    if not base.raw_path.endswith(b"/"):
        base = base.copy_with(raw_path=base.raw_path + b"/")
    return base.copy_with(raw_path=base.raw_path + MESSAGES_PATH.encode())


class HttpTransport:
    """Sends request bodies; one connection pool, built on first use (or by :meth:`warm_up`, in a thread)."""

    def __init__(self, credentials: Credentials, *, connect_timeout_s: float, read_timeout_s: float) -> None:
        self.credentials = credentials
        self.base_url = credentials.base_url or os.environ.get("ANTHROPIC_BASE_URL") or DEFAULT_BASE_URL
        self._timeouts = (connect_timeout_s, read_timeout_s)
        self._client: httpx2.AsyncClient | None = None
        self._timeout: httpx2.Timeout | None = None
        self._headers: httpx2.Headers | None = None
        self._url: httpx2.URL | None = None
        self._extensions: dict[str, Any] | None = None
        self._building = threading.Lock()
        """A warm-up in a thread and the first request may both build the client: only one may."""

    def warm_up(self) -> None:
        """Import the HTTP library and build the pool and TLS context now."""
        self._http()

    def _http(self) -> httpx2.AsyncClient:
        with self._building:
            if self._client is None:
                import httpx2

                connect_s, read_s = self._timeouts
                # the read timeout is the stall watchdog: no byte (pings included) for this long aborts the attempt
                self._timeout = httpx2.Timeout(timeout=None, connect=connect_s, read=read_s)
                headers = request_headers(self.credentials.bearer, read_s, custom_headers())
                self._headers = httpx2.Headers(headers, encoding="utf-8")
                self._url = url = messages_url(self.base_url)
                if "_" in url.host:  # such a host is not a valid TLS server name: send the one a certificate can have
                    self._extensions = {"sni_hostname": url.host.replace("_", "-")}
                self._client = build_http_client(self.base_url, self._timeout)
            return self._client

    async def aclose(self) -> None:
        """Close the connection pool (it belongs to the event loop that opened it)."""
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()

    @contextlib.asynccontextmanager
    async def post_messages(self, body: bytes) -> AsyncIterator[httpx2.Response]:
        """POST ``body`` to the Messages API and yield the streaming response once its status is a success."""
        import httpx2

        client = self._http()
        assert self._url is not None
        request = client.build_request(
            "POST", self._url, headers=self._headers, content=body, timeout=self._timeout, extensions=self._extensions
        )
        try:
            response = await client.send(request, stream=True)
        except httpx2.TimeoutException as exc:
            raise connection_error(exc, "Request timed out.", exc, partial=False) from exc
        except Exception as exc:
            raise connection_error(exc, "Connection error.", exc, partial=False) from exc
        try:
            if not response.is_success:
                await response.aread()
                raise status_error(response, self.credentials)
            yield response
        finally:
            await response.aclose()


def connection_error(
    error: BaseException, summary: str, cause: BaseException | None, *, partial: bool
) -> ApiConnectionError:
    """``connection failed`` / ``connection timed out``: ``summary``, and what the socket said (``cause``) when the
    summary does not already say it."""
    import httpx2

    kind = "timed out" if isinstance(error, httpx2.TimeoutException) else "failed"
    detail = f" ({type(cause).__name__}: {cause})" if cause is not None and str(cause) not in summary else ""
    return ApiConnectionError(f"connection {kind}: {summary}{detail}", partial=partial)


def status_error(response: httpx2.Response, credentials: Credentials) -> ApiError:
    """An HTTP error status as an :class:`ApiError`: the body's ``error.message`` and ``error.type``, the request id
    and every header (``retry-after``, ``x-should-retry``, … are the retry policy's to read)."""
    status = response.status_code
    text = response.text.strip()
    body: Any = text
    try:
        body = json.loads(text)
        summary = f"Error code: {status} - {body}"
    except ValueError:
        summary = text or f"Error code: {status}"
    error: dict[str, Any] = {}
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        error = body["error"]
    message = str(error.get("message") or summary)
    headers = {name.lower(): value for name, value in response.headers.items()}
    fields: dict[str, Any] = {
        "status": status,
        "error_type": error.get("type"),
        "request_id": headers.get("request-id"),
        "headers": headers,
    }
    if status in (401, 403):
        hint = (
            f"The API refused the credential from {credentials.source} ({status}: {message}). "
            "Check that the key is valid and active, and that ANTHROPIC_BASE_URL points at the right endpoint."
        )
        return AuthError(hint, **fields)
    return ApiError(message, **fields)
