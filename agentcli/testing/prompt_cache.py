"""A prompt cache for the fake Messages API, so a client's cache breakpoints can be tested for what they save.

Modelled on the real API: a request is read as tools, system blocks, then message blocks; a ``cache_control``
breakpoint writes the prefix that ends there; a later request reads the longest prefix written before that ends at
one of its breakpoints or up to :data:`LOOKBACK` blocks before one. Usage then splits the prompt into
``cache_read_input_tokens`` (the prefix read), ``cache_creation_input_tokens`` (from there to the last breakpoint)
and ``input_tokens`` (the rest). Prefixes are compared without their ``cache_control`` markers, per model; they do
not expire. Token counts are the fake's usual estimate (about four characters a token).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterator, Mapping
from typing import Any

LOOKBACK = 20
"""How many blocks before a breakpoint the API looks for a prefix it has cached."""


def _canonical(kind: str, block: Any) -> bytes:
    if isinstance(block, dict) and "cache_control" in block:
        block = {key: value for key, value in block.items() if key != "cache_control"}
    return json.dumps([kind, block], ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=str).encode()


def _blocks(body: Mapping[str, Any]) -> Iterator[tuple[bytes, bool]]:
    """Each block of the prompt in the order the API reads it: its canonical bytes and whether it is a
    breakpoint."""
    for tool in body.get("tools") or []:
        yield _canonical("tool", tool), isinstance(tool, dict) and "cache_control" in tool
    system = body.get("system")
    for block in [{"type": "text", "text": system}] if isinstance(system, str) else (system or []):
        yield _canonical("system", block), isinstance(block, dict) and "cache_control" in block
    for message in body.get("messages") or []:
        role = str(message.get("role")) if isinstance(message, dict) else "?"
        content = message.get("content") if isinstance(message, dict) else None
        for block in [{"type": "text", "text": content}] if isinstance(content, str) else (content or []):
            marked = isinstance(block, dict) and (
                "cache_control" in block
                or any(isinstance(inner, dict) and "cache_control" in inner for inner in _inner(block))
            )
            yield _canonical(role, block), marked


def _inner(block: dict[str, Any]) -> list[Any]:
    content = block.get("content") if block.get("type") == "tool_result" else None
    return content if isinstance(content, list) else []


class PromptCache:
    """The prefixes written so far; thread-safe (the fake serves each connection on its own thread)."""

    def __init__(self) -> None:
        self._written: set[bytes] = set()
        self._lock = threading.Lock()

    def usage(self, body: Mapping[str, Any], total_tokens: int) -> dict[str, int]:
        """How ``total_tokens`` of this request's prompt divide into cache reads, cache writes and plain input."""
        hashes: list[bytes] = []
        ends: list[int] = []  # tokens up to and including each block
        breakpoints: list[int] = []
        running = hashlib.sha256(str(body.get("model")).encode())
        tokens = 0
        for index, (data, marked) in enumerate(_blocks(body)):
            running.update(len(data).to_bytes(8, "big") + data)
            hashes.append(running.copy().digest())
            tokens += len(data) // 4
            ends.append(tokens)
            if marked:
                breakpoints.append(index)
        with self._lock:
            read_at = -1
            for point in breakpoints:
                for index in range(point, max(-1, point - LOOKBACK), -1):
                    if hashes[index] in self._written:
                        read_at = max(read_at, index)
                        break
            self._written.update(hashes[point] for point in breakpoints)
        read = ends[read_at] if read_at >= 0 else 0
        written = ends[breakpoints[-1]] - read if breakpoints and breakpoints[-1] > read_at else 0
        scale = total_tokens / tokens if tokens else 0.0  # keep the split in the units of the fake's estimate
        read, written = round(read * scale), round(written * scale)
        return {
            "cache_read_input_tokens": read,
            "cache_creation_input_tokens": written,
            "input_tokens": max(0, total_tokens - read - written),
        }
