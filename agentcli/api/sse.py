"""Server-sent events decoding for the Messages API stream.

We parse the byte stream ourselves instead of letting the SDK build a pydantic object per event: the raw
dicts are what faces and ``stream-json`` need anyway, and this halves the per-delta cost.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any


class SSEDecoder:
    """Incremental SSE decoder: feed bytes, get ``(event, data)`` pairs for each complete event."""

    __slots__ = ("_buffer", "_data", "_event")

    def __init__(self) -> None:
        self._buffer = b""
        self._event: str | None = None
        self._data: list[bytes] = []

    def feed(self, chunk: bytes) -> list[tuple[str | None, bytes]]:
        """Consume ``chunk`` and return the events it completed, in order."""
        buffer = self._buffer + chunk if self._buffer else chunk
        out: list[tuple[str | None, bytes]] = []
        start = 0
        find = buffer.find
        while True:
            end = find(b"\n", start)
            if end < 0:
                break
            line = buffer[start:end]
            start = end + 1
            if line.endswith(b"\r"):
                line = line[:-1]
            if not line:
                if self._data or self._event is not None:
                    out.append((self._event, b"\n".join(self._data)))
                    self._event = None
                    self._data = []
                continue
            if line.startswith(b"data:"):
                value = line[5:]
                self._data.append(value[1:] if value.startswith(b" ") else value)
            elif line.startswith(b"event:"):
                self._event = line[6:].strip().decode()
            # comments (":") and unknown fields (id, retry) are ignored, as the spec says
        self._buffer = buffer[start:]
        return out


async def iter_sse_json(chunks: AsyncIterator[bytes]) -> AsyncIterator[dict[str, Any]]:
    """Yield each event's JSON payload; the payload's own ``type`` names the event."""
    decoder = SSEDecoder()
    loads = json.loads
    async for chunk in chunks:
        for event, data in decoder.feed(chunk):
            if not data:
                continue
            payload = loads(data)
            if event and "type" not in payload:
                payload["type"] = event
            yield payload
