"""Fetching a page for ``WebFetch``: HTTP(S) only, redirects followed only within the same host, a size cap, and
HTML turned into Markdown (``html2text``) so the model reads text, not markup."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit, urlunsplit

MAX_DOWNLOAD_BYTES = 10 * 1024 * 1024
MAX_MARKDOWN_CHARS = 100_000
MAX_REDIRECTS = 10
TIMEOUT_S = 60.0
USER_AGENT = "agentcli-webfetch"


class FetchError(Exception):
    """A page that could not be fetched, in words for the model."""


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


async def fetch(url: str) -> Page | Redirect:
    import httpx2

    current = normalized(url)
    async with httpx2.AsyncClient(
        follow_redirects=False,
        timeout=TIMEOUT_S,
        headers={"User-Agent": USER_AGENT, "Accept": "text/html, text/*, */*"},
    ) as client:
        for _ in range(MAX_REDIRECTS + 1):
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
                    body, truncated = await _read_capped(response)
                    content_type = response.headers.get("content-type", "")
                    text = body.decode(response.encoding or "utf-8", errors="replace")
            except httpx2.HTTPError as exc:
                raise FetchError(f"Could not fetch {current}: {type(exc).__name__}: {exc}") from None
            markdown = to_markdown(text) if "html" in content_type.lower() or _looks_like_html(text) else text
            if len(markdown) > MAX_MARKDOWN_CHARS:
                markdown, truncated = markdown[:MAX_MARKDOWN_CHARS], True
            return Page(current, response.status_code, content_type, markdown, len(body), truncated)
    raise FetchError(f"Too many redirects fetching {url}")


async def _read_capped(response: object) -> tuple[bytes, bool]:
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():  # type: ignore[attr-defined]
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_DOWNLOAD_BYTES:
            return b"".join(chunks)[:MAX_DOWNLOAD_BYTES], True
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
