"""The headers of a Messages API request, as the official SDK writes them, built without importing the SDK.

The API (and any proxy or gateway in between) sees the same client whichever path sent the request: the same
names, values and order. ``tests/api/test_wire_parity.py`` holds both side by side, so an SDK upgrade that
changes what it sends fails there rather than drifting silently.
"""

from __future__ import annotations

import functools
import os
import platform
import sys
from collections.abc import Iterable, Mapping

API_VERSION = "2026-10-21"
"""``anthropic-version``: the API version the installed SDK is written against."""
CUSTOM_HEADERS_ENV = "ANTHROPIC_CUSTOM_HEADERS"
"""Extra headers, one ``Name: value`` a line, sent with every request (read when the client is built)."""
RAW_RESPONSE = ("X-Stainless-Raw-Response", "stream")
"""The SDK's marker for a response read as a raw stream; sent as it sends it."""


@functools.cache
def sdk_version() -> str:
    """The installed SDK's version, from its package metadata (reading it does not import the SDK)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("anthropic")
    except PackageNotFoundError:
        return "unknown"


def _platform_name() -> str:
    """The OS as the SDK names it (without ``platform.platform()``, which forks ``uname``)."""
    try:
        system, machine, release = (
            value.lower() for value in (platform.system(), platform.machine(), platform.release())
        )
    except Exception:
        return "Unknown"
    if system in ("ios", "ipados") or machine.startswith(("iphone", "ipad")):
        return "iOS"
    if system in ("darwin", "windows"):
        return "MacOS" if system == "darwin" else "Windows"
    if system == "android" or hasattr(sys, "getandroidapilevel") or "android" in release:
        return "Android"
    named = {"linux": "Linux", "freebsd": "FreeBSD", "openbsd": "OpenBSD"}
    return named.get(system) or (f"other:{system}" if system else "Unknown")


def _architecture() -> str:
    try:
        machine = platform.machine().lower()
    except Exception:
        return "unknown"
    named = {"arm64": "arm64", "aarch64": "arm64", "arm": "arm", "x86_64": "x64"}
    if machine in named:
        return named[machine]
    if sys.maxsize <= 2**32:
        return "x32"
    return f"other:{machine}" if machine else "unknown"


@functools.cache
def _platform_headers(version: str) -> tuple[tuple[str, str], ...]:
    return (
        ("X-Stainless-Lang", "python"),
        ("X-Stainless-Package-Version", version),
        ("X-Stainless-OS", _platform_name()),
        ("X-Stainless-Arch", _architecture()),
        ("X-Stainless-Runtime", platform.python_implementation()),
        ("X-Stainless-Runtime-Version", platform.python_version()),
    )


def custom_headers(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """``ANTHROPIC_CUSTOM_HEADERS``, parsed as the SDK parses it (lines without a colon are skipped)."""
    raw = (os.environ if environ is None else environ).get(CUSTOM_HEADERS_ENV)
    parsed: dict[str, str] = {}
    for line in (raw or "").split("\n"):
        name, colon, value = line.partition(":")
        if colon:
            parsed[name.strip()] = value.strip()
    return parsed


def request_headers(bearer: str, read_timeout_s: float | None, custom: Mapping[str, str]) -> list[tuple[str, str]]:
    """The request's headers, layered and ordered as the SDK layers them: its default headers are plain dicts
    merged by spreading (exact names), then every layer is folded in case-insensitively."""
    version = sdk_version()
    defaults = {
        "Accept": "application/json",
        "Content-Type": "application/json",
        "User-Agent": f"AsyncAnthropic/Python {version}",
        **dict(_platform_headers(version)),
        "Authorization": f"Bearer {bearer}",
        **custom,
    }
    defaults = {**defaults, "X-Stainless-Async": "async:asyncio", "anthropic-version": API_VERSION, **custom}
    first = {
        "x-stainless-timeout": "NOT_GIVEN",  # the SDK writes its "no per-call timeout" sentinel here
        "x-stainless-retry-count": "0",  # retries are ours: each attempt is a first attempt to the SDK
        **({"x-stainless-read-timeout": str(read_timeout_s)} if read_timeout_s is not None else {}),
        **defaults,
    }
    return _folded([first.items(), custom.items(), [RAW_RESPONSE]])


def _folded(layers: Iterable[Iterable[tuple[str, str]]]) -> list[tuple[str, str]]:
    """Later layers win: a name already there (in any case) takes the new spelling and value in its place."""
    position: dict[str, int] = {}
    out: list[tuple[str, str]] = []
    for layer in layers:
        for name, value in layer:
            key = name.lower()
            if key in position:
                out[position[key]] = (name, value)
            else:
                position[key] = len(out)
                out.append((name, value))
    return out
