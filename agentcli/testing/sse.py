"""Turns a scripted turn into the exact event sequence (and Message JSON) the real Messages API produces.

Everything here is pure: no sockets, no clocks, so the wire format can be unit-tested on its own.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any, TypeVar, cast

from agentcli.testing.scenario import (
    ContentSpec,
    RedactedThinkingSpec,
    TextSpec,
    ThinkingSpec,
    ToolUseSpec,
    Turn,
    WebSearchResultSpec,
)

Event = tuple[str, dict[str, Any]]
T = TypeVar("T")

_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
_ASCII = json.JSONEncoder(ensure_ascii=True, separators=(",", ":"))
_DEFAULT_CHARS_PER_CHUNK = 16


def split_evenly(text: str, pieces: int) -> list[str]:
    """Cut `text` at evenly spaced character offsets, blind to escapes and words, like a tokenizer would.

    Asking for more pieces than there are characters gives one piece per character, so no delta is empty
    (except for empty text, which is a single empty piece).
    """
    if not text:
        return [""]
    count = max(1, min(pieces, len(text)))
    cuts = [len(text) * i // count for i in range(count + 1)]
    return [text[cuts[i] : cuts[i + 1]] for i in range(count)]


def default_chunks(payload: str) -> int:
    """About one delta per sixteen characters, which looks like real streaming without flooding the client."""
    return max(1, math.ceil(len(payload) / _DEFAULT_CHARS_PER_CHUNK))


def _pieces(payload: str, chunks: int | None) -> list[str]:
    return split_evenly(payload, chunks if chunks is not None else default_chunks(payload))


def block_start(block: ContentSpec) -> dict[str, Any]:
    """The `content_block` of content_block_start: the block with its payload still empty."""
    if isinstance(block, TextSpec):
        return {"type": "text", "text": ""}
    if isinstance(block, ThinkingSpec):
        return {"type": "thinking", "thinking": "", "signature": ""}
    if isinstance(block, RedactedThinkingSpec):
        return {"type": "redacted_thinking", "data": block.data}
    if isinstance(block, WebSearchResultSpec):
        return block.model_dump()
    return {"type": block.type, "id": block.id, "name": block.name, "input": {}}


def block_complete(block: ContentSpec) -> dict[str, Any]:
    """The block as it appears in a non-streamed Message."""
    if isinstance(block, TextSpec):
        return {"type": "text", "text": block.text}
    if isinstance(block, ThinkingSpec):
        return {"type": "thinking", "thinking": block.thinking, "signature": block.signature}
    if isinstance(block, RedactedThinkingSpec):
        return {"type": "redacted_thinking", "data": block.data}
    if isinstance(block, WebSearchResultSpec):
        return block.model_dump()
    return {"type": block.type, "id": block.id, "name": block.name, "input": block.input}


def _delta(index: int, delta: dict[str, Any]) -> Event:
    return "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}


def _start_event(index: int, block: ContentSpec) -> Event:
    return "content_block_start", {"type": "content_block_start", "index": index, "content_block": block_start(block)}


def _stop_event(index: int) -> Event:
    return "content_block_stop", {"type": "content_block_stop", "index": index}


def block_events(index: int, block: ContentSpec) -> list[Event]:
    """content_block_start, the deltas, content_block_stop for one block."""
    events = [_start_event(index, block)]
    if isinstance(block, TextSpec):
        events += [_delta(index, {"type": "text_delta", "text": p}) for p in _pieces(block.text, block.chunks)]
    elif isinstance(block, ThinkingSpec):
        pieces = _pieces(block.thinking, block.chunks)
        events += [_delta(index, {"type": "thinking_delta", "thinking": p}) for p in pieces]
        events.append(_delta(index, {"type": "signature_delta", "signature": block.signature}))
    elif isinstance(block, ToolUseSpec):
        pieces = _pieces(block.input_json(), block.chunks)
        events += [_delta(index, {"type": "input_json_delta", "partial_json": p}) for p in pieces]
    events.append(_stop_event(index))
    return events


def usage_for(
    turn: Turn,
    *,
    input_tokens: int,
    output_tokens: int,
    cache_creation_input_tokens: int = 0,
    cache_read_input_tokens: int = 0,
) -> dict[str, Any]:
    """Final usage: scripted numbers win over the estimates passed in."""
    scripted = turn.usage
    usage: dict[str, Any] = {
        "input_tokens": scripted.input_tokens if scripted.input_tokens is not None else input_tokens,
        "output_tokens": scripted.output_tokens if scripted.output_tokens is not None else output_tokens,
        "cache_creation_input_tokens": (
            scripted.cache_creation_input_tokens
            if scripted.cache_creation_input_tokens is not None
            else cache_creation_input_tokens
        ),
        "cache_read_input_tokens": (
            scripted.cache_read_input_tokens
            if scripted.cache_read_input_tokens is not None
            else cache_read_input_tokens
        ),
    }
    if turn.usage.web_search_requests:
        usage["server_tool_use"] = {"web_search_requests": turn.usage.web_search_requests}
    return usage


def _stop_sequence(turn: Turn) -> str | None:
    return turn.stop_sequence if turn.resolved_stop_reason() == "stop_sequence" else None


def render_message(turn: Turn, *, message_id: str, model: str, usage: dict[str, int]) -> dict[str, Any]:
    """The complete Message a non-streaming request gets back."""
    return {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [block_complete(b) for b in turn.content],
        "stop_reason": turn.resolved_stop_reason(),
        "stop_sequence": _stop_sequence(turn),
        "usage": dict(usage),
    }


def _delta_usage(usage: dict[str, Any]) -> dict[str, Any]:
    final: dict[str, Any] = {"output_tokens": usage["output_tokens"]}
    if "server_tool_use" in usage:
        final["server_tool_use"] = usage["server_tool_use"]
    return final


def _start_events(message_id: str, model: str, usage: dict[str, int]) -> list[Event]:
    start_usage = {**usage, "output_tokens": min(1, usage["output_tokens"])}
    start_usage.pop("server_tool_use", None)  # the real API reports server tool use in message_delta
    message = {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": start_usage,
    }
    return [("message_start", {"type": "message_start", "message": message}), ping_event()]


def _end_events(turn: Turn, usage: dict[str, int]) -> list[Event]:
    delta = {"stop_reason": turn.resolved_stop_reason(), "stop_sequence": _stop_sequence(turn)}
    return [
        (
            "message_delta",
            {"type": "message_delta", "delta": delta, "usage": _delta_usage(usage)},
        ),
        ("message_stop", {"type": "message_stop"}),
    ]


def render_stream(turn: Turn, *, message_id: str, model: str, usage: dict[str, int]) -> list[Event]:
    """Every SSE event of a successful streamed turn, pings included, in wire order."""
    body: list[Event] = []
    for index, block in enumerate(turn.content):
        body += block_events(index, block)
    body += _end_events(turn, usage)
    return [*_start_events(message_id, model, usage), *with_pings(body, turn.ping_every)]


def stream_frames(turn: Turn, *, message_id: str, model: str, usage: dict[str, int]) -> list[bytes]:
    """Same bytes as `encode_events(render_stream(...))`, built without per-delta dicts.

    Long turns are the point of this: tens of thousands of deltas must be ready in a few milliseconds.
    """
    body: list[bytes] = []
    for index, block in enumerate(turn.content):
        body += _block_frames(index, block)
    body += encode_events(_end_events(turn, usage))
    return [*encode_events(_start_events(message_id, model, usage)), *with_pings(body, turn.ping_every, _PING_FRAME)]


def _delta_frames(index: int, delta_type: str, field: str, pieces: list[str]) -> list[bytes]:
    prefix = (
        f'event: content_block_delta\ndata: {{"type":"content_block_delta","index":{index},'
        f'"delta":{{"type":"{delta_type}","{field}":'
    )
    encode = _ENCODER.encode
    return [
        _utf8(prefix + encode(piece) + "}}\n\n", lambda piece=piece: prefix + _ASCII.encode(piece) + "}}\n\n")
        for piece in pieces
    ]


def _utf8(frame: str, escaped: Callable[[], str]) -> bytes:
    """The frame as UTF-8; a lone surrogate (which JSON allows) goes out as a ``\\uXXXX`` escape instead."""
    try:
        return frame.encode()
    except UnicodeEncodeError:
        return escaped().encode()


def _block_frames(index: int, block: ContentSpec) -> list[bytes]:
    frames = [encode_event(*_start_event(index, block))]
    if isinstance(block, TextSpec):
        frames += _delta_frames(index, "text_delta", "text", _pieces(block.text, block.chunks))
    elif isinstance(block, ThinkingSpec):
        frames += _delta_frames(index, "thinking_delta", "thinking", _pieces(block.thinking, block.chunks))
        frames += _delta_frames(index, "signature_delta", "signature", [block.signature])
    elif isinstance(block, ToolUseSpec):
        frames += _delta_frames(index, "input_json_delta", "partial_json", _pieces(block.input_json(), block.chunks))
    frames.append(encode_event(*_stop_event(index)))
    return frames


def ping_event() -> Event:
    """Keep-alive event; the real API sends one right after message_start."""
    return "ping", {"type": "ping"}


def with_pings(events: list[T], every: int, ping: T | None = None) -> list[T]:
    """Insert `ping` (default: a ping event) after every `every` events; 0 leaves the list alone."""
    if every <= 0:
        return list(events)
    marker = cast(T, ping_event()) if ping is None else ping
    out: list[T] = []
    for n, event in enumerate(events, start=1):
        out.append(event)
        if n % every == 0 and n != len(events):
            out.append(marker)
    return out


def error_event(error_type: str, message: str) -> Event:
    """The in-stream error the real API sends when it fails after the 200 has gone out."""
    return "error", {"type": "error", "error": {"type": error_type, "message": message}}


def encode_event(name: str, data: dict[str, Any]) -> bytes:
    """One SSE frame: `event: NAME`, `data: JSON`, blank line. UTF-8 is sent raw, as the real API does."""
    return _utf8(
        f"event: {name}\ndata: {_ENCODER.encode(data)}\n\n", lambda: f"event: {name}\ndata: {_ASCII.encode(data)}\n\n"
    )


def encode_events(events: list[Event]) -> list[bytes]:
    """Encode every event; kept separate so callers can batch or pace the frames."""
    return [encode_event(name, data) for name, data in events]


_PING_FRAME = encode_event(*ping_event())
