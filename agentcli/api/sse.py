"""Server-sent events decoding for the Messages API stream.

We parse the byte stream ourselves instead of letting the SDK build a pydantic object per event: the raw
dicts are what faces and ``stream-json`` need anyway, and this halves the per-delta cost.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any


class SSEDecoder:
    """Incremental SSE decoder: feed bytes, get ``(event, data)`` pairs for each complete event.

    Lines end in LF, CRLF or a bare CR, as the SSE specification allows; a CRLF split between two chunks is
    still one line ending.
    """

    __slots__ = ("_buffer", "_data", "_event", "_skip_lf", "_started")

    def __init__(self) -> None:
        self._buffer = b""
        self._event: str | None = None
        self._data: list[bytes] = []
        self._skip_lf = False
        self._started = False

    def feed(self, chunk: bytes) -> list[tuple[str | None, bytes]]:
        """Consume ``chunk`` and return the events it completed, in order."""
        if not self._started and chunk:
            self._started = True
            chunk = chunk.removeprefix(b"\xef\xbb\xbf")  # a byte-order mark may open the stream
        if self._skip_lf:
            self._skip_lf = False
            chunk = chunk.removeprefix(b"\n")
        if b"\r" in chunk:
            self._skip_lf = chunk.endswith(b"\r")  # its LF, if any, comes with the next chunk
            chunk = chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
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
            if not line:
                if self._data or self._event is not None:
                    out.append((self._event, b"\n".join(self._data)))
                    self._event = None
                    self._data = []
                continue
            if line.startswith(b"data: "):  # the usual forms first, without a call
                self._data.append(line[6:])
            elif line.startswith(b"event: "):
                self._event = line[7:].decode()
            else:
                self._field(line)
        self._buffer = buffer[start:]
        return out

    def _field(self, line: bytes) -> None:
        name, colon, value = line.partition(b":")
        if colon and value.startswith(b" "):
            value = value[1:]
        if name == b"data":
            self._data.append(value)
        elif name == b"event":
            self._event = value.decode()
        # comments (empty name) and other fields (id, retry) are ignored, as the spec says


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
