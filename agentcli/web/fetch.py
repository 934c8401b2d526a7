"""Fetching a page for ``WebFetch``: HTTP(S) only, redirects followed only within the same host, a size cap, one
deadline for the whole fetch, and HTML turned into Markdown (``html2text``) so the model reads text, not markup.

A per-read timeout alone lets a server that trickles a byte now and then hold the turn for ever; the deadline covers
connecting, every redirect and the whole body."""

from __future__ import annotations

import asyncio
import ipaddress
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit, urlunsplit

MAX_DOWNLOAD_BYTES = 10 * 1024 * 1024
MAX_MARKDOWN_CHARS = 100_000
MAX_REDIRECTS = 10
CONNECT_TIMEOUT_S = 10.0
TOTAL_TIMEOUT_S = 60.0
USER_AGENT = "agentcli-webfetch"


class FetchError(Exception):
    """A page that could not be fetched, in words for the model."""


@dataclass(frozen=True)
class FetchLimits:
    """How long and how much one fetch may take: ``connect_s`` to reach the server, ``total_s`` for everything
    (redirects and body included), ``max_bytes`` of body kept (the rest is not read)."""

    connect_s: float = CONNECT_TIMEOUT_S
    total_s: float = TOTAL_TIMEOUT_S
    max_bytes: int = MAX_DOWNLOAD_BYTES


@dataclass
class Page:
    url: str
    status: int
    content_type: str
    markdown: str
    bytes: int
    truncated: bool


@dataclass
class Redirect:
    """A redirect to another host: the model must ask again for that URL (so the permission rules see it)."""

    url: str
    location: str
    status: int


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def normalized(url: str) -> str:
    """The URL to fetch: http upgraded to https (except on this machine); anything else is refused."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise FetchError(f"Invalid URL: {url!r} (a full http:// or https:// URL is needed)")
    if parts.scheme == "http" and not is_loopback(parts.hostname):
        parts = parts._replace(scheme="https")
    return urlunsplit(parts)


def host_of(url: str) -> str:
    return (urlsplit(url).hostname or "").lower()


async def fetch(url: str, limits: FetchLimits | None = None) -> Page | Redirect:
    limits = limits or FetchLimits()
    progress = _Progress(normalized(url))
    try:
        async with asyncio.timeout(limits.total_s):
            answer = await _fetch(url, limits, progress)
    except TimeoutError:
        raise FetchError(
            f"Could not fetch {progress.url}: it did not finish within {limits.total_s:g} s (WebFetch's limit for a "
            f"whole fetch, connecting and the body included; {progress.received:,} bytes had arrived)"
        ) from None
    if isinstance(answer, Redirect):
        return answer
    text = answer.markdown  # still the page as it came
    if "html" in answer.content_type.lower() or _looks_like_html(text):
        answer.markdown = await asyncio.to_thread(to_markdown, text)  # a big page takes a while: not on the loop
    if len(answer.markdown) > MAX_MARKDOWN_CHARS:
        answer.markdown, answer.truncated = answer.markdown[:MAX_MARKDOWN_CHARS], True
    return answer


@dataclass
class _Progress:
    """Where a fetch got to, for the message when its deadline passes."""

    url: str
    received: int = 0


async def _fetch(url: str, limits: FetchLimits, progress: _Progress) -> Page | Redirect:
    import httpx2

    current = progress.url
    timeout = httpx2.Timeout(limits.total_s, connect=limits.connect_s)
    async with httpx2.AsyncClient(
        follow_redirects=False,
        timeout=timeout,
        headers={"User-Agent": USER_AGENT, "Accept": "text/html, text/*, */*"},
    ) as client:
        for _ in range(MAX_REDIRECTS + 1):
            progress.url = current
            try:
                async with client.stream("GET", current) as response:
                    if response.is_redirect and "location" in response.headers:
                        target = urljoin(current, response.headers["location"])
                        if host_of(target).removeprefix("www.") != host_of(current).removeprefix("www."):
                            return Redirect(current, target, response.status_code)
                        current = target
                        continue
                    if response.status_code >= 400:
                        raise FetchError(f"{current} answered HTTP {response.status_code}")
                    body, truncated = await _read_capped(response, limits.max_bytes, progress)
                    content_type = response.headers.get("content-type", "")
                    text = body.decode(response.encoding or "utf-8", errors="replace")
            except httpx2.ConnectTimeout:
                raise FetchError(f"Could not fetch {current}: no connection within {limits.connect_s:g} s") from None
            except httpx2.HTTPError as exc:
                raise FetchError(f"Could not fetch {current}: {type(exc).__name__}: {exc}") from None
            return Page(current, response.status_code, content_type, text, len(body), truncated)
    raise FetchError(f"Too many redirects fetching {url}")


async def _read_capped(response: object, max_bytes: int, progress: _Progress) -> tuple[bytes, bool]:
    """The body up to ``max_bytes``; a longer one (or an endless one) is cut there and the rest never read."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():  # type: ignore[attr-defined]
        chunks.append(chunk)
        size += len(chunk)
        progress.received = size
        if size > max_bytes:
            return b"".join(chunks)[:max_bytes], True
    return b"".join(chunks), False


def _looks_like_html(text: str) -> bool:
    head = text.lstrip()[:200].lower()
    return head.startswith(("<!doctype html", "<html"))


def to_markdown(html: str) -> str:
    import html2text

    converter = html2text.HTML2Text()
    converter.body_width = 0
    converter.ignore_images = True
    return converter.handle(html).strip()
