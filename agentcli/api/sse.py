"""Server-sent events decoding for the Messages API stream.

We parse the byte stream ourselves instead of letting the SDK build a pydantic object per event: the raw
dicts are what faces and ``stream-json`` need anyway, and this halves the per-delta cost.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

# One text delta exactly as the Messages API writes it. The text group admits only complete JSON escapes and no
# bare quote, so the bodies of several such events, joined, are one valid JSON string body.
_TEXT_DELTA_EVENT = re.compile(
    rb'(?:event: content_block_delta\n)?data: \{"type":"content_block_delta","index":(\d+),'
    rb'"delta":\{"type":"text_delta","text":"((?:[^"\\\n]|\\[^\n])*)"\}\}\n\n'
)


@dataclass(slots=True)
class TextRun:
    """Consecutive text deltas of one block, still JSON-escaped: decoded with one ``json.loads`` for the lot."""

    index: int
    bodies: list[bytes] = field(default_factory=list)

    def payload(self) -> dict[str, Any]:
        text: str = json.loads(b'"' + b"".join(self.bodies) + b'"')
        return {"type": "content_block_delta", "index": self.index, "delta": {"type": "text_delta", "text": text}}


class SSEDecoder:
    """Incremental SSE decoder: feed bytes, get ``(event, data)`` pairs for each complete event.

    Lines end in LF, CRLF or a bare CR, as the SSE specification allows; a CRLF split between two chunks is
    still one line ending.

    ``text_runs``: text deltas in the API's own compact form come out as :class:`TextRun` items instead, one per
    run of the same block within one :meth:`feed` — matched with one regular expression per event rather than
    split into lines and parsed as JSON one by one, which is most of the cost of a fast stream.
    """

    __slots__ = ("_buffer", "_data", "_event", "_skip_lf", "_started", "_text_runs")

    def __init__(self, *, text_runs: bool = False) -> None:
        self._buffer = b""
        self._event: str | None = None
        self._data: list[bytes] = []
        self._skip_lf = False
        self._started = False
        self._text_runs = text_runs

    def feed(self, chunk: bytes) -> list[tuple[str | None, bytes] | TextRun]:
        """Consume ``chunk`` and return the events it completed, in order."""
        chunk = self._normalized(chunk)
        buffer = self._buffer + chunk if self._buffer else chunk
        out: list[tuple[str | None, bytes] | TextRun] = []
        start = 0
        find = buffer.find
        match = _TEXT_DELTA_EVENT.match if self._text_runs else None
        run: TextRun | None = None
        while True:
            if match is not None and not self._data and self._event is None:
                found = match(buffer, start)
                if found is not None:
                    index = int(found[1])
                    if run is None or run.index != index:
                        run = TextRun(index)
                        out.append(run)
                    run.bodies.append(found[2])
                    start = found.end()
                    continue
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
                    run = None
                continue
            if line.startswith(b"data: "):  # the usual forms first, without a call
                self._data.append(line[6:])
            elif line.startswith(b"event: "):
                self._event = line[7:].decode()
            else:
                self._field(line)
        self._buffer = buffer[start:]
        return out

    def _normalized(self, chunk: bytes) -> bytes:
        """The chunk without a leading byte-order mark, its line endings all LF."""
        if not self._started and chunk:
            self._started = True
            chunk = chunk.removeprefix(b"\xef\xbb\xbf")  # a byte-order mark may open the stream
        if self._skip_lf:
            self._skip_lf = False
            chunk = chunk.removeprefix(b"\n")
        if b"\r" in chunk:
            self._skip_lf = chunk.endswith(b"\r")  # its LF, if any, comes with the next chunk
            chunk = chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        return chunk

    def _field(self, line: bytes) -> None:
        name, colon, value = line.partition(b":")
        if colon and value.startswith(b" "):
            value = value[1:]
        if name == b"data":
            self._data.append(value)
        elif name == b"event":
            self._event = value.decode()
        # comments (empty name) and other fields (id, retry) are ignored, as the spec says


async def iter_sse_json(chunks: AsyncIterator[bytes], *, merge_text: bool = False) -> AsyncIterator[dict[str, Any]]:
    """Yield each event's JSON payload; the payload's own ``type`` names the event.

    ``merge_text``: text deltas of one block that arrived in the same network read are yielded as one delta (same
    text, one event instead of hundreds when the stream outruns the reader) — for callers that show text rather than
    hand the events on.
    """
    decoder = SSEDecoder(text_runs=merge_text)
    loads = json.loads
    async for chunk in chunks:
        held: dict[str, Any] | None = None  # a text delta that later deltas of its block, in this read, extend
        parts: list[str] = []
        for item in decoder.feed(chunk):
            if isinstance(item, TextRun):
                payload = item.payload()
            else:
                event, data = item
                if not data:
                    continue
                payload = loads(data)
                if event and "type" not in payload:
                    payload["type"] = event
            if merge_text:
                text = _text_delta(payload)
                if text is not None:
                    if held is not None and held.get("index") == payload.get("index"):
                        parts.append(text)
                        continue
                    if held is not None:
                        yield _joined(held, parts)
                    held, parts = payload, [text]
                    continue
                if held is not None:
                    yield _joined(held, parts)
                    held = None
            yield payload
        if held is not None:
            yield _joined(held, parts)


def _text_delta(payload: dict[str, Any]) -> str | None:
    if payload.get("type") != "content_block_delta":
        return None
    delta = payload.get("delta")
    if not isinstance(delta, dict) or delta.get("type") != "text_delta":
        return None
    text = delta.get("text")
    return text if isinstance(text, str) else None


def _joined(payload: dict[str, Any], parts: list[str]) -> dict[str, Any]:
    if len(parts) > 1:
        payload["delta"]["text"] = "".join(parts)
    return payload
